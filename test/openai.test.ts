import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { interpretOpenAIEvent } from '../src/dialects/openai/client.js';
import { run } from '../src/run/run.js';
import { sessionView } from '../src/views/session-view.js';
import type { AudioInput, InputRecord, ReceivedFrame, SentFrame, SessionTimeline } from '../src/timeline/types.js';
import { testServer, messageText } from './helpers.js';
import { flushRacingTheVad } from './vad-race.js';

const MODEL = 'gpt-4o-transcribe';
const REFERENCES = ['The birch canoe slid on the smooth planks.', 'Glue the sheet to the dark blue background.', "It's easy to tell the depth of a well."];

/** Opens a raw OpenAI-dialect client; sends `frames` after session.created; resolves when `until` matches. */
async function exchange(
  url: string,
  frames: unknown[],
  until: (e: Record<string, unknown>) => boolean,
  headers: Record<string, string> = {},
): Promise<Array<Record<string, unknown>>> {
  const ws = new WebSocket(`${url}?intent=transcription`, { headers });
  const events: Array<Record<string, unknown>> = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no matching event; got ${JSON.stringify(events.map((e) => e.type))}`)), 5000);
    ws.on('error', reject);
    ws.on('message', (raw) => {
      const event = JSON.parse(messageText(raw)) as Record<string, unknown>;
      events.push(event);
      if (event.type === 'session.created' || event.type === 'transcription_session.created') for (const f of frames) ws.send(JSON.stringify(f));
      if (until(event)) {
        clearTimeout(timer);
        ws.close();
        resolve(events);
      }
    });
  });
}

const texts = (events: ReceivedFrame[]) => events.filter((e) => e.kind === 'text_final').map((e) => e.text);
/** The client's commits: the controls that start, end or flush an input (not session settings). */
const commits = (timeline: SessionTimeline): SentFrame[] =>
  timeline.sent.filter((f) => f.kind === 'control' && (f.control === 'input_start' || f.control === 'input_end' || f.control === 'flush'));
const audioInput = (input: InputRecord | undefined): AudioInput => {
  assert.equal(input?.kind, 'audio');
  return input;
};
const closeOf = (timeline: SessionTimeline) => (timeline.transport.kind === 'websocket' ? timeline.transport.close : undefined);

describe('OpenAI Realtime transcription (GA) against the simulated server', () => {
  it('manual commits: one completed transcript per turn, with the reference text', async () => {
    const server = await testServer();
    const { report } = await run({
      target: server.url,
      protocol: 'openai',
      model: MODEL,
      language: 'en',
      prompt: 'Harvard sentences',
      turnsPerSession: 3,
      padding: { gapMs: 300 },
      maxSessions: 1,
      pace: { kind: 'realtime', speed: 8 },
    });
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(session.outcome, { status: 'completed' });
    assert.deepEqual(texts(session.timeline.received), REFERENCES);
    assert.equal(session.timeline.turnDetection, 'client');
    assert.deepEqual(
      commits(session.timeline).map((c) => `${c.input}:${c.control}`),
      ['0:input_end', '1:input_end', '2:input_end'],
    );
    assert.ok(session.timeline.received.some((e) => e.type === 'session.updated'));
    assert.equal(session.metrics.inputs.length, 3);
    for (const turn of session.metrics.inputs) {
      assert.ok(turn.commit_to_flush_ms! > 0 && turn.finalization_ms! >= turn.commit_to_flush_ms!);
    }
    assert.deepEqual(report.benchmarks[0]!.summary.turns, { planned: 3, finalized: 3, boundaries: 'client commits', eosSources: { label: 3 } });
  });

  it('server VAD: the server commits each utterance of one continuous stream, and turns map to utterances', async () => {
    const server = await testServer();
    const { report } = await run({
      target: server.url,
      protocol: 'openai',
      model: MODEL,
      turnDetection: { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 },
      turnsPerSession: 3,
      // The last utterance's VAD stop may come as the audio ends, and race the client's flush: that
      // changes no figure (the race's own tests, below), so the trail need not outlast the VAD.
      padding: { gapMs: 700, trailMs: 100 },
      maxSessions: 1,
      pace: { kind: 'realtime', speed: 8 },
    });
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(session.outcome, { status: 'completed' });
    const { received: events, inputs: turns } = session.timeline;
    assert.equal(session.timeline.turnDetection, 'server');
    // On failure, the session's VAD and commit events in order, with their times and the client's sends around them.
    const trace = (): string =>
      JSON.stringify([
        ...events.filter((e) => ['speech_started', 'speech_stopped', 'committed'].includes(e.kind)).map((e) => [e.t, e.type, e.audioStartMs ?? e.audioEndMs]),
        ...session.timeline.sent.filter((f) => f.control !== undefined).map((f) => [f.t, f.control]),
      ]);
    assert.equal(events.filter((e) => e.kind === 'speech_started').length, 3, trace());
    // The VAD's three commits (a flush that raced the last one may add a fourth, of silence, no turn's).
    assert.deepEqual(
      sessionView(session.timeline).inputs.map((turn) => turn.items),
      [1, 1, 1],
      trace(),
    );
    assert.deepEqual(
      sessionView(session.timeline).inputs.map((turn) => turn.transcript.text),
      REFERENCES,
    );
    // Each VAD stop lands near the labelled end of speech (an energy VAD misses quiet final phonemes).
    const stops = events.filter((e) => e.kind === 'speech_stopped').map((e) => e.audioEndMs!);
    stops.forEach((stop, i) =>
      assert.ok(Math.abs(stop - audioInput(turns[i]).speechEndMs) <= 100, `turn ${i}: VAD stop ${stop} vs label ${audioInput(turns[i]).speechEndMs}`),
    );
    assert.equal(session.metrics.inputs.length, 3);
    for (const turn of session.metrics.inputs) {
      assert.ok(turn.finalization_ms! > 0, 'finalization is measured');
      assert.equal(turn.commit_to_flush_ms, undefined, 'no client commit, so no commit-to-flush');
    }
    assert.deepEqual(report.benchmarks[0]!.summary.turns, { planned: 3, finalized: 3, boundaries: 'server VAD', eosSources: { label: 3 } });
  });

  it('server VAD: speech still going when the audio ends is flushed with a client commit', async () => {
    const server = await testServer();
    const { report } = await run({
      target: server.url,
      protocol: 'openai',
      model: MODEL,
      turnDetection: { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 2000 },
      maxSessions: 1,
      pace: { kind: 'realtime', speed: 8 },
    });
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(session.outcome, { status: 'completed' });
    assert.deepEqual(
      commits(session.timeline).map((c) => c.control),
      ['flush'],
    );
    assert.deepEqual(texts(session.timeline.received), [REFERENCES[0]]);
    assert.ok(session.metrics.inputs[0]!.commit_to_flush_ms! > 0);
  });

  // The race a real server runs: the VAD's stop and commit are on the wire when the client, at the end of its
  // audio and still seeing speech, flushes (made certain by `flushRacingTheVad`).
  for (const [afterStopMs, answer] of [
    [40, 'refuses to commit the 40 ms left (input_audio_buffer_commit_empty)'],
    [300, 'commits the 300 ms of silence left as an item with an empty transcript'],
  ] as const) {
    it(`server VAD: a flush racing the VAD's stop, which the server ${answer}, changes no figure`, async () => {
      const server = await testServer();
      const turnDetection = { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 } as const;
      const base = { target: server.url, protocol: 'openai', model: MODEL, turnDetection, maxSessions: 1, pace: { kind: 'realtime', speed: 16 } } as const;
      const session = await flushRacingTheVad(base, 500, afterStopMs);
      const { timeline } = session;
      assert.deepEqual(session.outcome, { status: 'completed' });
      assert.deepEqual(
        commits(timeline).map((c) => c.control),
        ['flush'],
      );
      // The turn is the VAD's item alone: its text, its final, one item, nothing anomalous.
      const stop = timeline.received.find((e) => e.kind === 'speech_stopped')!;
      const turn = sessionView(timeline).inputs[0]!;
      assert.deepEqual(
        turn.transcript.finals.map((f) => [f.itemId, f.text]),
        [[stop.itemId, REFERENCES[0]]],
      );
      assert.equal(turn.items, 1);
      assert.equal(session.metrics.inputs[0]!.commit_to_flush_ms, undefined, 'the VAD committed the turn, not the flush');
      assert.equal(session.metrics.session.protocol_anomalies, 0);
    });
  }

  it('a mid-stream session.update is confirmed by session.updated and timed', async () => {
    const server = await testServer();
    const { report } = await run({
      target: server.url,
      protocol: 'openai',
      model: MODEL,
      updateAtMs: 100,
      maxSessions: 1,
      pace: { kind: 'realtime', speed: 4 },
    });
    const session = report.benchmarks[0]!.sessions[0]!;
    assert.equal(session.timeline.sent.filter((f) => f.control === 'session_update').length, 1);
    assert.ok(session.metrics.session.update_ms! >= 0);
    assert.equal(session.timeline.received.filter((e) => e.kind === 'updated').length, 2);
  });

  it('idle time keeps the session open after the last turn', async () => {
    const server = await testServer();
    const { report } = await run({ target: server.url, protocol: 'openai', model: MODEL, idleMs: 300, maxSessions: 1, pace: { kind: 'none' } });
    const { timeline, outcome } = report.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(outcome, { status: 'completed' });
    const lastFinal = timeline.received.filter((e) => e.kind === 'text_final').at(-1)!;
    assert.ok(closeOf(timeline)!.t - lastFinal.t >= 300, 'closed no earlier than the idle time');
  });
});

describe('OpenAI Realtime transcription (beta) against the simulated server', () => {
  it('uses transcription_session.update and the OpenAI-Beta header', async () => {
    const server = await testServer();
    const { report } = await run({ target: server.url, protocol: 'openai-beta', model: MODEL, maxSessions: 2, pace: { kind: 'none' } });
    const sessions = report.benchmarks[0]!.sessions;
    for (const s of sessions) assert.deepEqual(s.outcome, { status: 'completed' });
    const types = sessions[0]!.timeline.received.map((e) => e.type);
    assert.equal(types[0], 'transcription_session.created');
    assert.ok(types.includes('transcription_session.updated'));
    assert.ok(types.includes('conversation.item.created'));
    assert.deepEqual(texts(sessions[1]!.timeline.received), [REFERENCES[1]]);
  });
});

describe('simulated OpenAI server errors', () => {
  it('refuses to commit an empty buffer', async () => {
    const server = await testServer();
    const events = await exchange(server.url, [{ type: 'input_audio_buffer.commit' }], (e) => e.type === 'error');
    const error = events.at(-1)!.error as Record<string, unknown>;
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.code, 'input_audio_buffer_commit_empty');
  });

  it('refuses a model it does not serve, and the client records the code', async () => {
    const server = await testServer();
    const { report } = await run({ target: server.url, protocol: 'openai', model: 'no-such-model', maxSessions: 1, pace: { kind: 'none' } });
    const { outcome, timeline } = report.benchmarks[0]!.sessions[0]!;
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.status === 'failed' && outcome.failure.code, 'invalid_value');
    assert.equal(timeline.received.find((e) => e.kind === 'error')!.code, 'invalid_value');
  });

  it('answers an unknown event with an invalid_value error naming the parameter', async () => {
    const server = await testServer();
    const events = await exchange(server.url, [{ type: 'response.create' }], (e) => e.type === 'error');
    assert.equal((events.at(-1)!.error as Record<string, unknown>).param, 'type');
  });
});

describe('OpenAI client tolerance', () => {
  it('records events it does not know and goes on', async () => {
    // A hand-written server: extra events before and between the ones that matter.
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => wss.once('listening', resolve));
    after(() => new Promise((resolve) => wss.close(resolve)));
    wss.on('connection', (ws) => {
      const send = (e: object) => ws.send(JSON.stringify(e));
      send({ type: 'session.created', session: {} });
      send({ type: 'rate_limits.updated', rate_limits: [] });
      ws.on('message', (raw) => {
        if ((JSON.parse(messageText(raw)) as { type: string }).type !== 'input_audio_buffer.commit') return;
        send({ type: 'input_audio_buffer.committed', item_id: 'item_1' });
        send({ type: 'conversation.item.added', item: { id: 'item_1' } });
        send({ type: 'something.new', item_id: 'item_1' });
        send({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'item_1', transcript: 'hello' });
      });
    });
    const target = `ws://127.0.0.1:${(wss.address() as { port: number }).port}/v1/realtime`;
    const { report } = await run({ target, protocol: 'openai', model: MODEL, maxSessions: 1, pace: { kind: 'none' } });
    const { outcome, timeline } = report.benchmarks[0]!.sessions[0]!;
    assert.deepEqual(outcome, { status: 'completed' });
    assert.deepEqual(
      timeline.received.filter((e) => e.kind === 'other').map((e) => e.type),
      ['rate_limits.updated', 'conversation.item.added', 'something.new'],
    );
  });

  it('interprets nested errors, failed transcriptions and VAD positions', () => {
    assert.deepEqual(interpretOpenAIEvent('{"type":"error","error":{"type":"invalid_request_error","code":"bad","message":"no"}}'), {
      type: 'error',
      kind: 'error',
      code: 'bad',
      message: 'no',
    });
    assert.deepEqual(
      interpretOpenAIEvent('{"type":"conversation.item.input_audio_transcription.failed","item_id":"i","error":{"type":"server_error","message":"x"}}'),
      {
        type: 'conversation.item.input_audio_transcription.failed',
        kind: 'text_failed',
        channel: 'input_transcript',
        itemId: 'i',
        code: 'server_error',
        message: 'x',
      },
    );
    assert.deepEqual(interpretOpenAIEvent('{"type":"input_audio_buffer.speech_started","item_id":"i","audio_start_ms":1200}'), {
      type: 'input_audio_buffer.speech_started',
      kind: 'speech_started',
      itemId: 'i',
      audioStartMs: 1200,
    });
  });
});
