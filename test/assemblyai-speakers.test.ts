import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SPEAKER_ERRORS } from '../src/server/models/speakers.js';
import { loadDataset } from '../src/data/load.js';
import { turnDecoder } from '../src/dialects/assemblyai/client.js';
import { ASSEMBLYAI } from '../src/dialects/assemblyai/spec.js';
import type { DecodedEvent } from '../src/dialects/dialect.js';
import { ANCHORS } from '../src/metrics/anchors.js';
import { sessionSpeakers } from '../src/metrics/diarization/session.js';
import { wordEmissionLatencies } from '../src/metrics/emission.js';
import type { HeldSession } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import type { ServerOptions } from '../src/server/server.js';
import type { ReceivedFrame } from '../src/timeline/types.js';
import { sessionView } from '../src/views/session-view.js';
import { messageText, oneInputTimeline, rawServer, testServer, twoSpeakerHarvard } from './helpers.js';

/**
 * AssemblyAI's words as the service sends them: each final word with its `speaker`, the
 * newest word of a running turn pending (`word_is_final: false`, not yet in `transcript`),
 * and a `SpeakerRevision` near the end of a labelled stream.
 */

const json = (value: object): Buffer => Buffer.from(JSON.stringify(value));
const word = (text: string, start: number, end: number, extra: object = {}) => ({ text, start, end, confidence: 0.9, word_is_final: true, ...extra });
const running = (order: number, transcript: string, words: object[], extra: object = {}) => ({
  type: 'Turn',
  turn_order: order,
  turn_is_formatted: false,
  end_of_turn: false,
  end_of_turn_confidence: 0.1,
  transcript,
  words,
  ...extra,
});

/** A one-input session whose reference is A 0–350 ms then B 350–700 ms, and the events the decoder made of `frames`, received 10 ms apart. */
function decoded(frames: object[]) {
  const decode = turnDecoder();
  const received: ReceivedFrame[] = frames.flatMap((f, i) => decode(json(f), false).map((e: DecodedEvent) => ({ ...e, t: 10 * i, input: 0 })));
  const timeline = oneInputTimeline(
    {
      turns: [
        { speaker: 'A', startMs: 0, endMs: 350 },
        { speaker: 'B', startMs: 350, endMs: 700 },
      ],
      speechEndMs: 700,
      eosSource: 'audio_end',
      audioEndMs: 1000,
    },
    [],
    received,
  );
  return { received, speakers: sessionSpeakers(sessionView(timeline)) };
}

describe('assemblyai words on the wire', () => {
  it("labels each word with its own speaker; the turn's speaker_label (their majority) labels no word", () => {
    const { received } = decoded([
      running(0, 'yes no maybe', [word('yes', 100, 300, { speaker: 'A' }), word('no', 400, 600, { speaker: 'B' }), word('maybe', 600, 650)], {
        end_of_turn: true,
        speaker_label: 'A',
      }),
    ]);
    const final = received.find((e) => e.kind === 'text_final')!;
    assert.deepEqual(final.words, [
      { text: 'yes', startMs: 100, endMs: 300, speaker: 'A' },
      { text: 'no', startMs: 400, endMs: 600, speaker: 'B' },
      { text: 'maybe', startMs: 600, endMs: 650 },
    ]);
    assert.equal(final.speaker, 'A', "the turn's own label is kept on the event");
  });

  it('a pending word is provisional text with its own words, never a final label: two words scored where two were said, though the pending one was re-timed', () => {
    const { received, speakers } = decoded([
      running(0, 'yes', [word('yes', 100, 300, { speaker: 'A' }), word('no', 380, 580, { word_is_final: false, speaker: 'A' })]),
      running(0, 'yes no', [word('yes', 100, 300, { speaker: 'A' }), word('no', 400, 600, { speaker: 'B' })], { end_of_turn: true, speaker_label: 'A' }),
    ]);
    const deltas = received.filter((e) => e.kind === 'text_delta');
    assert.deepEqual(
      deltas.map((e) => [e.text, e.provisional ?? false, e.words?.map((w) => w.text)]),
      [
        ['yes', false, ['yes']],
        [' no', true, ['no']],
        [' no', false, ['yes', 'no']],
      ],
    );
    const [input] = speakers;
    assert.deepEqual([input?.words.words, input?.words.wrong], [2, 0], 'the final words only, each with its final label');
  });

  it("a SpeakerRevision is the last word on earlier turns' speakers: its labels are scored and each change counts as a relabel", () => {
    const said = [word('yes', 100, 300, { speaker: 'A' }), word('no', 400, 600, { speaker: 'A' })];
    const { received, speakers } = decoded([
      running(0, 'yes no', said, { end_of_turn: true, speaker_label: 'A' }),
      { type: 'SpeakerRevision', revisions: [{ turn_order: 0, speaker_label: 'A', words: [said[0], { ...said[1], speaker: 'B' }] }] },
      { type: 'Termination', audio_duration_seconds: 1, session_duration_seconds: 1 },
    ]);
    const revision = received.find((e) => e.type === 'SpeakerRevision')!;
    assert.deepEqual([revision.kind, revision.itemId, revision.provisional], ['other', 'turn-0', undefined]);
    const [input] = speakers;
    assert.equal(input?.words.wrong, 0, 'the revised labels are the final ones');
    assert.deepEqual(input?.stability, { words: 2, relabelledWords: 1, relabels: 1 });
    const none = turnDecoder()(json({ type: 'SpeakerRevision', revisions: [] }), false);
    assert.deepEqual(none, [{ type: 'SpeakerRevision', kind: 'other' }]);
    assert.throws(() => turnDecoder()(json({ type: 'SpeakerRevision', revisions: [{ words: [] }] }), false), /without a whole turn_order/);
  });
});

/** At the file's level, so the folder lasts until the file ends. */
const data = await twoSpeakerHarvard();
const { samples } = await loadDataset(data);
const timings = samples[0]!.words!;

describe('assemblyai against a server that sends each word on a schedule', () => {
  it('first text, word emission and commit to flush anchor on the frame that first shows a word, pending or final', async () => {
    // Each audio message brings one more word, shown pending; the one before it turns final.
    const url = await rawServer((send, ws) => {
      send({ type: 'Begin', id: 'x', expires_at: 0 });
      let heard = 0;
      const said = timings.map((w) => word(w.word, Math.round(w.start * 1000), Math.round(w.end * 1000)));
      ws.on('message', (data, binary) => {
        if (binary) {
          if (++heard > said.length) return;
          const words = [...said.slice(0, heard - 1), { ...said[heard - 1]!, word_is_final: false }];
          send(
            running(
              0,
              said
                .slice(0, heard - 1)
                .map((w) => w.text)
                .join(' '),
              words,
            ),
          );
          return;
        }
        const message = JSON.parse(messageText(data)) as { type: string };
        if (message.type === 'ForceEndpoint') send(running(0, said.map((w) => w.text).join(' '), said, { end_of_turn: true, end_of_turn_confidence: 1 }));
        if (message.type === 'Terminate') {
          send({ type: 'Termination', audio_duration_seconds: 3, session_duration_seconds: 3 });
          ws.close(1000);
        }
      });
    });
    const { report } = await run({ target: url, protocol: 'assemblyai', model: 'm', data, maxSessions: 1, pace: { kind: 'none' } });
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(session.outcome, { status: 'completed' });
    const input = sessionView(session.timeline).inputs[0]!;
    const turnFrames = [...new Set(session.timeline.received.filter((e) => e.type === 'Turn').map((e) => e.t))];
    assert.equal(turnFrames.length, timings.length + 1, 'a Turn per word, and the ended turn');
    assert.equal(ANCHORS.input.transcript_first_text.at(input), turnFrames[0], "first text is the first Turn's pending word");
    assert.ok(Math.abs((session.metrics.inputs[0]!.ttft_ms as number) - (turnFrames[0]! - input.media[0]!.t)) < 0.01, 'ttft_ms to the first Turn');
    const planned = input.plan?.kind === 'audio' ? (input.plan.words ?? []) : [];
    assert.equal(planned.length, timings.length);
    const shown = planned.map((w, i) => turnFrames[i]! - input.frameAt(w.endMs)!.t);
    assert.deepEqual(wordEmissionLatencies(input), shown, 'each word timed by the Turn that first showed it');
    assert.equal(ANCHORS.input.transcript_final.at(input), turnFrames[timings.length], 'commit to flush ends at the ended turn');
  });
});

describe('assemblyai speakers against the built-in server', () => {
  const target = (server: { url: string }): string => `${new URL(server.url).origin.replace(/^http/, 'ws')}${ASSEMBLYAI.path}`;
  const benchmark = async (options: Partial<ServerOptions>): Promise<HeldSession> => {
    const server = await testServer({ references: samples, ...options });
    const { report } = await run({
      target: target(server),
      protocol: 'assemblyai',
      model: ASSEMBLYAI.defaultModel,
      data,
      maxSessions: 1,
      pace: { kind: 'none' },
    });
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(session.outcome, { status: 'completed' });
    return session;
  };

  it('every label right scores DER under 0.1%: each word at its own start, with its own speaker; pending words shown first are never final labels', async () => {
    const session = await benchmark({ pendingWordsMs: 40 });
    const figures = session.metrics.session;
    assert.ok(typeof figures.der === 'number' && figures.der < 0.001, `DER ${figures.der}`);
    assert.equal(figures.word_speaker_error, 0, 'each word with its own speaker, though the turn is mostly one');
    const pending = session.timeline.received.filter((e) => e.provisional);
    assert.ok(pending.length >= timings.length - 1, `each word shown pending first (${pending.length} provisional deltas)`);
    const [input] = sessionSpeakers(sessionView(session.timeline));
    assert.equal(input?.words.words, timings.length, `${timings.length} words said, ${input?.words.words} scored`);
    assert.equal(session.metrics.inputs[0]!.wer, 0, 'the pending words are no words of the transcript');
  });

  it("--speaker-revision: the stream's SpeakerRevision undoes confused labels; the revised labels are scored and the changes counted as relabels", async () => {
    // Every word after the second speaker first speaks goes to the other speaker.
    const session = await benchmark({ speakers: { ...DEFAULT_SPEAKER_ERRORS, confusion: 1, boundaryMs: 0 }, speakerRevision: true });
    const revisions = session.timeline.received.filter((e) => e.type === 'SpeakerRevision');
    assert.equal(revisions.length, 1, 'one revised turn');
    const figures = session.metrics.session;
    assert.equal(figures.word_speaker_error, 0, 'the final labels are the revised ones');
    assert.ok(typeof figures.der === 'number' && figures.der < 0.001, `DER ${figures.der}`);
    assert.equal(figures.speaker_relabelled, 0.5, "B's four words of eight were relabelled");
    const unrevised = (await benchmark({ speakers: { ...DEFAULT_SPEAKER_ERRORS, confusion: 1, boundaryMs: 0 } })).metrics.session;
    assert.equal(unrevised.word_speaker_error, 0.5, 'without the revision the confused labels stand');
  });
});
