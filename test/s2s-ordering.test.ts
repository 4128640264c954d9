import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RawData } from 'ws';
import { rawServer, messageText } from './helpers.js';
import { wordEmissionLatencies } from '../src/metrics/emission.js';
import { renderSummary } from '../src/report/console.js';
import type { HeldSession } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run/run.js';
import { sessionView } from '../src/views/session-view.js';

/**
 * Servers that answer out of order, over real sockets: a response's done before its
 * creation or for no response, a second done or creation, audio after the done, an
 * absurd cumulative duration; and a vLLM transcription server that repeats a turn's
 * final once the next turn has begun. Each is a named protocol anomaly, figures come
 * only from well-formed responses, and a premature done never ends the session.
 */

const FAST = { kind: 'realtime', speed: 8 } as const;
/** Every well-formed answer is five 100 ms chunks. */
const CHUNKS = 5;
const CHUNK_MS = 100;

/** An event to send, or a pause (ms) before the next. */
type Step = object | number;

const created = (id: string): object => ({ type: 'response.created', response: { id, status: 'in_progress', output: [] } });
const done = (id: string): object => ({ type: 'response.done', response: { id, status: 'completed', output: [] } });
/** 100 ms of 24 kHz PCM16; `cumulativeMs` as vLLM-Omni's `metadata.audio_duration_ms`. */
const audio = (id: string, cumulativeMs?: number): object => ({
  type: 'response.output_audio.delta',
  response_id: id,
  delta: Buffer.alloc((24_000 * 2 * CHUNK_MS) / 1000).toString('base64'),
  ...(cumulativeMs !== undefined ? { metadata: { audio_duration_ms: cumulativeMs } } : {}),
});
/** `n` chunks of a response's audio, paced 20 ms apart, the k-th reporting `cumulative(k)`. */
const chunks = (id: string, n: number, cumulative: (k: number) => number | undefined = (k) => (k + 1) * CHUNK_MS): Step[] =>
  Array.from({ length: n }, (_, k) => [20, audio(id, cumulative(k))]).flat();
/** A well-formed answer. */
const answer = (id: string): Step[] => [created(id), ...chunks(id, CHUNKS), done(id)];

/**
 * A conversation server in both shapes: it answers each turn the client asks for
 * (vLLM-Omni's `commit {response_create: true}`, OpenAI's `response.create`) with
 * `script(turn)`, and counts the audio deltas it sends.
 */
async function conversationServer(script: (turn: number) => Step[]): Promise<{ target: string; audioSent: () => number }> {
  let audioSent = 0;
  const target = await rawServer((send, ws) => {
    let turn = 0;
    send({ type: 'session.created', session: {} });
    const answer = async (raw: RawData): Promise<void> => {
      const event = JSON.parse(messageText(raw)) as { type: string; response_create?: boolean };
      if (event.type !== 'response.create' && !(event.type === 'input_audio_buffer.commit' && event.response_create)) return;
      for (const step of script(turn++)) {
        if (typeof step === 'number') await new Promise((resolve) => setTimeout(resolve, step));
        else if (ws.readyState === ws.OPEN) {
          if ((step as { type: string }).type === 'response.output_audio.delta') audioSent++;
          send(step);
        }
      }
    };
    // An answer that fails cuts the connection, which the test sees as a failed session.
    ws.on('message', (raw) => void answer(raw).catch(() => ws.terminate()));
  });
  return { target, audioSent: () => audioSent };
}

async function oneSession(options: RunOptions): Promise<HeldSession & { summary: string }> {
  const { report } = await run({ maxSessions: 1, turnsPerSession: 2, pace: FAST, ...options });
  const session = report.benchmarks[0]!.sessions[0]!;
  assert.deepEqual(session.outcome, { status: 'completed' });
  return { ...session, summary: renderSummary(report) };
}

interface Case {
  name: string;
  protocol: 'vllm-omni-duplex' | 'openai-realtime';
  /** What the server answers each turn with. */
  script: (turn: number) => Step[];
  /** The anomalies, as [reason, input in progress]. */
  anomalies: Array<[string, number]>;
  /** The well-formed responses, whose figures alone count. */
  wellFormed: string[];
}

const CASES: Case[] = [
  {
    name: 'a done before its response.created is premature: the session waits for the response, which is in no figure',
    protocol: 'vllm-omni-duplex',
    script: (turn) => (turn === 0 ? answer('r1') : [done('r2'), 20, created('r2'), ...chunks('r2', 7), done('r2')]),
    anomalies: [['done_before_created', 1]],
    wellFormed: ['r1'],
  },
  {
    name: 'a done for a response never created ends nothing',
    protocol: 'openai-realtime',
    script: (turn) => (turn === 0 ? answer('r1') : [done('ghost'), 50, ...answer('r2')]),
    anomalies: [['unknown_response_done', 1]],
    wellFormed: ['r1', 'r2'],
  },
  {
    name: "a duplicate done, arriving once the next turn was asked for, is not that turn's answer",
    protocol: 'openai-realtime',
    script: (turn) => (turn === 0 ? answer('r1') : [done('r1'), 50, ...answer('r2')]),
    anomalies: [['duplicate_done', 1]],
    wellFormed: ['r2'],
  },
  {
    name: "audio after its response's done is not that response's audio",
    protocol: 'vllm-omni-duplex',
    script: (turn) => (turn === 0 ? [...answer('r1'), 50, ...chunks('r1', 2, (k) => (CHUNKS + k + 1) * CHUNK_MS)] : [200, ...answer('r2')]),
    anomalies: [
      ['audio_after_done', 1],
      ['audio_after_done', 1],
    ],
    wellFormed: ['r2'],
  },
  {
    name: 'a second response.created for one id',
    protocol: 'openai-realtime',
    script: (turn) => (turn === 0 ? answer('r1') : [created('r2'), ...chunks('r2', 2), created('r2'), ...chunks('r2', 3), done('r2')]),
    anomalies: [['duplicate_created', 1]],
    wellFormed: ['r1'],
  },
  {
    name: 'a negative audio_duration_ms',
    protocol: 'vllm-omni-duplex',
    script: (turn) => (turn === 0 ? answer('r1') : [created('r2'), ...chunks('r2', CHUNKS, () => -500), done('r2')]),
    anomalies: Array.from({ length: CHUNKS }, () => ['bad_audio_duration', 1] as [string, number]),
    wellFormed: ['r1'],
  },
  {
    name: 'an absurd audio_duration_ms',
    protocol: 'vllm-omni-duplex',
    script: (turn) => (turn === 0 ? [created('r1'), ...chunks('r1', CHUNKS, (k) => (k === 2 ? 3_600_000 : (k + 1) * CHUNK_MS)), done('r1')] : answer('r2')),
    anomalies: [['bad_audio_duration', 0]],
    wellFormed: ['r2'],
  },
];

describe('speech-to-speech responses out of order', () => {
  for (const c of CASES) {
    it(`${c.protocol}: ${c.name}`, async () => {
      const { target, audioSent } = await conversationServer(c.script);
      const model = c.protocol === 'openai-realtime' ? 'gpt-realtime' : 'openbmb/MiniCPM-o-4_5';
      const { timeline, metrics, summary } = await oneSession({ target, protocol: c.protocol, model });
      const view = sessionView(timeline);
      const received = timeline.received.filter((e) => e.kind === 'audio');
      const scripted = [0, 1].flatMap(c.script).filter((step) => (step as { type?: string }).type === 'response.output_audio.delta').length;
      assert.deepEqual([audioSent(), received.length], [scripted, scripted], 'every audio delta was sent and arrived before the session ended');
      assert.deepEqual(
        view.anomalies.map((a) => [a.reason, a.input]),
        c.anomalies,
      );
      assert.equal(metrics.session.protocol_anomalies, c.anomalies.length);
      assert.match(summary, new RegExp(`^protocol anomalies: ${c.anomalies[0]![0]} ×${c.anomalies.length} in 1 session `, 'm'));
      assert.deepEqual(
        view.responses.map((r) => r.id),
        c.wellFormed,
      );
      assert.equal(metrics.responses.length, c.wellFormed.length);
      // Stream RTF from the well-formed answers alone: their last audio, over their 500 ms each.
      const firstSent = timeline.sent.find((f) => f.kind === 'audio')!.t;
      const lastWellFormed = Math.max(...received.filter((e) => c.wellFormed.includes(e.responseId!)).map((e) => e.t));
      assert.equal(metrics.session.stream_rtf, (lastWellFormed - firstSent) / (c.wellFormed.length * CHUNKS * CHUNK_MS));
      for (const r of metrics.responses) assert.ok(r.response_rtf! > 0 && r.response_rtf! < 10, `response_rtf ${r.response_rtf}`);
    });
  }
});

const REFERENCE_1 = 'The birch canoe slid on the smooth planks.';
const REFERENCE_2 = 'Glue the sheet to the dark blue background.';

describe('vLLM transcription: a stale final in the next turn', () => {
  it("a repeat of turn 1's final once turn 2 began is unrequested, and its text is never turn 2's", async () => {
    let finals = 0;
    let appends = 0;
    const target = await rawServer((send, ws) => {
      send({ type: 'session.created' });
      ws.on('message', (raw) => {
        const event = JSON.parse(messageText(raw)) as { type: string; final?: boolean };
        if (event.type === 'input_audio_buffer.commit' && event.final) {
          const text = ++finals === 1 ? REFERENCE_1 : REFERENCE_2;
          send({ type: 'transcription.delta', delta: text });
          send({ type: 'transcription.done', text });
        }
        // Turn 2 has begun streaming: the server repeats turn 1's answer, as a stale queue would.
        if (event.type === 'input_audio_buffer.append' && finals === 1 && ++appends === 3) {
          send({ type: 'transcription.delta', delta: REFERENCE_1 });
          send({ type: 'transcription.done', text: REFERENCE_1 });
        }
      });
    });
    const { timeline, metrics } = await oneSession({ target, model: 'm' });
    const view = sessionView(timeline);
    assert.deepEqual(
      view.anomalies.map((a) => [a.reason, a.event.text, a.input]),
      [['unrequested', REFERENCE_1, 1]],
    );
    assert.equal(metrics.session.protocol_anomalies, 1);
    const turn2 = view.inputs[1]!;
    assert.equal(turn2.transcript.text, REFERENCE_2);
    assert.deepEqual(
      turn2.transcript.textEvents.map((e) => e.text),
      [REFERENCE_2],
      "the repeat's delta went with its final",
    );
    assert.ok(turn2.transcript.textEvents[0]!.t > turn2.endControl!.t);
    const emission = view.inputs.flatMap(wordEmissionLatencies);
    assert.ok(emission.length > 0, 'the bundled samples have word timings');
    assert.ok(Math.min(...emission) >= 0, `word emission ${Math.min(...emission)} ms is never negative`);
  });
});
