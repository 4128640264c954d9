import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { monotonicClock } from '../src/runtime/clock.js';
import { vllmDialect } from '../src/dialects/vllm/client.js';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { loadFolderDataset } from '../src/data/load.js';
import { computeSessionMetrics } from '../src/metrics/compute.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import type { Pace } from '../src/session/pace.js';
import { NO_PADDING, prepareSample } from '../src/session/prepare.js';
import { DEFAULT_TIMEOUTS } from '../src/session/runner.js';
import { runWebSocketSession } from '../src/session/ws-runner.js';
import type { SessionTimeline } from '../src/timeline/types.js';
import { testServer } from './helpers.js';

const dataset = await loadFolderDataset(BUNDLED_SAMPLES_DIR);
const sample = dataset.samples[0]!;
const dialect = vllmDialect({ model: DEFAULT_MODEL });
/** The audio frames sent, in order. */
const chunksOf = (timeline: SessionTimeline) => timeline.sent.filter((f) => f.kind === 'audio');
/** The client's commits: the controls that start, end or flush an input (not session settings). */
const commitsOf = (timeline: SessionTimeline) =>
  timeline.sent.filter((f) => f.kind === 'control' && (f.control === 'input_start' || f.control === 'input_end' || f.control === 'flush'));

async function session(url: string, pace: Pace, chunkMs = 100) {
  return runWebSocketSession({
    url,
    headers: {},
    dialect,
    inputs: [(await prepareSample(sample, dialect, chunkMs, NO_PADDING, 'auto')).first],
    pace,
    plannedStartMs: 0,
    timeouts: DEFAULT_TIMEOUTS,
    clock: monotonicClock(),
  });
}

describe('vLLM dialect against the simulated server over real sockets', () => {
  it('completes a session in the canonical order and receives the reference transcript', async () => {
    const server = await testServer({ emptyDeltas: true });
    const { timeline, outcome } = await session(server.url, { kind: 'realtime', speed: 4 });
    assert.deepEqual(outcome, { status: 'completed' });
    const chunks = chunksOf(timeline);
    assert.equal(timeline.received[0]!.type, 'session.created');
    assert.deepEqual(
      commitsOf(timeline).map((c) => c.control),
      ['input_start', 'input_end'],
    );
    const [start, final] = commitsOf(timeline);
    assert.ok(start!.t <= chunks[0]!.t && final!.t >= chunks.at(-1)!.t);
    const done = timeline.received.find((e) => e.kind === 'text_final')!;
    assert.equal(done.text!.trim(), sample.text);
    const deltas = timeline.received.filter((e) => e.kind === 'text_delta');
    assert.ok(
      deltas.some((e) => e.text === ''),
      'empty deltas are recorded',
    );
    assert.equal(deltas.map((e) => e.text).join(''), done.text);
    assert.equal(timeline.transport.kind === 'websocket' && timeline.transport.close!.by, 'client');
    assert.equal(timeline.counters.framesSent, chunks.length + 3);
    const turn = computeSessionMetrics(timeline).inputs[0]!;
    const firstWord = deltas.find((e) => e.text !== '')!;
    assert.equal(turn.ttft_ms, firstWord.t - chunks[0]!.t, 'TTFT ignores the empty deltas before the first word');
  });

  it('carries the audio exactly: chunk positions cover the whole sample', async () => {
    const server = await testServer();
    const { timeline } = await session(server.url, { kind: 'none' }, 40);
    const expectedMs = (sample.audio.samples.length / 16_000) * 1000;
    const chunks = chunksOf(timeline);
    assert.equal(chunks.length, Math.ceil(expectedMs / 40));
    assert.equal(chunks.at(-1)!.audioEndMs, expectedMs);
    chunks.forEach((c, i) => assert.equal(c.audioStartMs, i * 40));
  });
});

describe('pacing', () => {
  it('plans every chunk on an absolute deadline and never sends early', async () => {
    const server = await testServer();
    const { timeline } = await session(server.url, { kind: 'realtime', speed: 2 });
    const chunks = chunksOf(timeline);
    const t0 = chunks[0]!.plannedMs!;
    chunks.forEach((c, seq) => {
      assert.equal(c.plannedMs, t0 + c.audioStartMs! / 2, `chunk ${seq} is planned at start + offset / speed`);
      assert.ok(c.t >= c.plannedMs, `chunk ${seq} sent ${c.plannedMs - c.t} ms early`);
    });
  });

  it('sends unpaced audio without a plan', async () => {
    const server = await testServer();
    const { timeline, outcome } = await session(server.url, { kind: 'none' });
    assert.equal(outcome.status, 'completed');
    const chunks = chunksOf(timeline);
    assert.ok(chunks.every((c) => c.plannedMs === null));
    const span = chunks.at(-1)!.t - chunks[0]!.t;
    assert.ok(span < 1000, `unpaced streaming of ~2.8 s of audio took ${span} ms`);
  });
});
