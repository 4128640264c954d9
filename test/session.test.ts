import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { vllmAdapter } from '../src/adapters/vllm.js';
import { monotonicClock } from '../src/clock.js';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { loadFolderDataset } from '../src/data/load.js';
import { computeSessionMetrics } from '../src/metrics/compute.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import type { Pace } from '../src/session/pace.js';
import { NO_PADDING, prepareSample } from '../src/session/prepare.js';
import { DEFAULT_TIMEOUTS, runSession } from '../src/session/run-session.js';
import { testServer } from './helpers.js';

const dataset = await loadFolderDataset(BUNDLED_SAMPLES_DIR);
const sample = dataset.samples[0]!;
const adapter = vllmAdapter({ model: DEFAULT_MODEL });

async function session(url: string, pace: Pace, chunkMs = 100) {
  return runSession({
    url,
    headers: {},
    adapter,
    turns: [(await prepareSample(sample, adapter, chunkMs, NO_PADDING, 'auto')).first],
    pace,
    plannedStartMs: 0,
    timeouts: DEFAULT_TIMEOUTS,
    clock: monotonicClock(),
  });
}

describe('vLLM adapter against the simulated server over real sockets', () => {
  it('completes a session in the canonical order and receives the reference transcript', async () => {
    const server = await testServer({ emptyDeltas: true });
    const { timeline, outcome } = await session(server.url, { kind: 'realtime', speed: 4 });
    assert.deepEqual(outcome, { status: 'completed' });
    assert.equal(timeline.events[0]!.type, 'session.created');
    assert.deepEqual(timeline.commits.map((c) => c.kind), ['start', 'final']);
    const [start, final] = timeline.commits;
    assert.ok(start!.sentMs <= timeline.chunks[0]!.sentMs && final!.sentMs >= timeline.chunks.at(-1)!.sentMs);
    const done = timeline.events.find((e) => e.kind === 'transcript_final')!;
    assert.equal(done.text!.trim(), sample.text);
    const deltas = timeline.events.filter((e) => e.kind === 'transcript_delta');
    assert.ok(deltas.some((e) => e.text === ''), 'empty deltas are recorded');
    assert.equal(deltas.map((e) => e.text).join(''), done.text);
    assert.equal(timeline.close!.by, 'client');
    assert.equal(timeline.framesSent, timeline.chunks.length + 3);
    const turn = computeSessionMetrics(timeline).turns[0]!;
    const firstWord = deltas.find((e) => e.text !== '')!;
    assert.equal(turn.ttft_ms, firstWord.t - timeline.chunks[0]!.sentMs, 'TTFT ignores the empty deltas before the first word');
  });

  it('carries the audio exactly: chunk positions cover the whole sample', async () => {
    const server = await testServer();
    const { timeline } = await session(server.url, { kind: 'none' }, 40);
    const expectedMs = (sample.audio.samples.length / 16_000) * 1000;
    assert.equal(timeline.chunks.length, Math.ceil(expectedMs / 40));
    assert.equal(timeline.chunks.at(-1)!.audioEndMs, expectedMs);
    timeline.chunks.forEach((c, i) => assert.equal(c.audioStartMs, i * 40));
  });
});

describe('pacing', () => {
  it('plans every chunk on an absolute deadline and never sends early', async () => {
    const server = await testServer();
    const { timeline } = await session(server.url, { kind: 'realtime', speed: 2 });
    const t0 = timeline.chunks[0]!.plannedMs!;
    for (const c of timeline.chunks) {
      assert.equal(c.plannedMs, t0 + c.audioStartMs / 2, `chunk ${c.seq} is planned at start + offset / speed`);
      assert.ok(c.sentMs >= c.plannedMs!, `chunk ${c.seq} sent ${c.plannedMs! - c.sentMs} ms early`);
    }
  });

  it('sends unpaced audio without a plan', async () => {
    const server = await testServer();
    const { timeline, outcome } = await session(server.url, { kind: 'none' });
    assert.equal(outcome.status, 'completed');
    assert.ok(timeline.chunks.every((c) => c.plannedMs === null));
    const span = timeline.chunks.at(-1)!.sentMs - timeline.chunks[0]!.sentMs;
    assert.ok(span < 1000, `unpaced streaming of ~2.8 s of audio took ${span} ms`);
  });
});
