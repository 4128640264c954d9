import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULT_VLLM_OMNI_TTS_MODEL } from '../src/dialects/vllm-omni-speech/spec.js';
import { run } from '../src/run/run.js';
import { startServer } from '../src/simulator/start.js';
import { startStampProbe } from '../src/runtime/stamp-probe.js';
import { loadStamps, stampTruth } from '../bench/stamp-truth.js';

const bench = (name: string): string => fileURLToPath(new URL(`../bench/${name}.js`, import.meta.url));
const CHUNKS = 5;
/** 20 ms chunks of 24 kHz PCM16. */
const CHUNK_BYTES = 960;

describe('the speech-out scale bench: its load process and its bare reader', () => {
  let load: ChildProcess;
  let url = '';
  before(async () => {
    load = spawn(process.execPath, [bench('speech-load'), '20', String(CHUNKS)], { stdio: ['ignore', 'pipe', 'inherit'] });
    url = await new Promise<string>((resolve) => load.stdout!.once('data', (d) => resolve(/http:\/\/\S+/.exec(String(d))![0])));
  });
  after(() => load.kill('SIGTERM'));

  for (const [protocol, target] of [
    ['vllm-omni-speech', (u: string) => u],
    ['vllm-omni-speech-ws', (u: string) => u.replace(/^http/, 'ws')],
  ] as const) {
    it(`answers voxbench's ${protocol} sessions to completion, every chunk whole, and stamps each chunk it writes`, async () => {
      await loadStamps(url); // forgets earlier answers
      let origin = NaN;
      const { report } = await run({
        onRunStart: () => (origin = performance.timeOrigin + performance.now()),
        target: target(url),
        protocol,
        model: DEFAULT_VLLM_OMNI_TTS_MODEL,
        ...(protocol === 'vllm-omni-speech' ? { speech: { streamFormat: 'sse' as const } } : {}),
        profile: { kind: 'concurrent', concurrency: 3 },
        maxSessions: 3,
      });
      for (const s of report.benchmarks[0]!.sessions) {
        assert.deepEqual(s.outcome, { status: 'completed' });
        const audio = s.timeline.received.filter((f) => f.kind === 'audio');
        assert.equal(audio.length, CHUNKS);
        assert.ok(audio.every((f) => f.audioBytes === CHUNK_BYTES));
      }
      // Each session is found among the load's answers, each audio event at a chunk's write; on one clock, none arrives before it was
      // written, within the agreement of two processes' performance.timeOrigin (a fraction of a millisecond: CI saw -0.16 ms).
      const CLOCKS_AGREE_MS = 1;
      const truth = stampTruth(report.benchmarks[0]!.sessions, await loadStamps(url), origin);
      assert.equal(truth.matched, 3);
      assert.ok(
        truth.ttfaMs.every((d) => d >= -CLOCKS_AGREE_MS && d < 1000),
        `TTFA against the write stamps: ${truth.ttfaMs.map((d) => d.toFixed(2)).join(', ')} ms`,
      );
      assert.equal(truth.stallCount.length, 3);
      // The later audio events too: none before its write, and the figures in order.
      const { p50Ms, p99Ms, maxMs } = truth.laterAudio;
      assert.ok(-CLOCKS_AGREE_MS <= p50Ms && p50Ms <= p99Ms && p99Ms <= maxMs && maxMs < 1000, `later audio events: ${p50Ms}, ${p99Ms}, ${maxMs} ms`);
    });
  }

  /** The bare reader's JSON line for `sessions` sessions of `dialect` against `target`. */
  async function bare(
    target: string,
    dialect: string,
    sessions: number,
  ): Promise<{ completed: number; events: number; receiveDelay: { p99Ms: number }; cpuMs: number }> {
    const reader = spawn(process.execPath, [bench('bare-reader'), target, dialect, String(sessions), '100'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    reader.stdout.on('data', (d) => (out += String(d)));
    await new Promise((resolve) => reader.on('exit', resolve));
    return JSON.parse(out) as { completed: number; events: number; receiveDelay: { p99Ms: number }; cpuMs: number };
  }

  for (const dialect of ['sse', 'ws']) {
    it(`has the bare reader open the same ${dialect} streams and stamp every arrival`, async () => {
      const result = await bare(url, dialect, 4);
      assert.equal(result.completed, 4);
      // SSE: a read per chunk at least; WebSocket: audio.start, the chunks, audio.done, session.done.
      assert.ok(result.events >= 4 * CHUNKS, `${result.events} arrivals`);
      assert.ok(Number.isFinite(result.receiveDelay.p99Ms));
      assert.ok(result.cpuMs > 0, 'the CPU time its sessions took, for bench/session-cpu.ts');
    });
  }

  it('has the bare reader speak duplex sessions to the built-in server to their answers', async () => {
    const server = await startServer({ port: 0 });
    try {
      const result = await bare(server.url, 'duplex', 2);
      assert.equal(result.completed, 2, 'every session reached its response.done');
      assert.ok(result.events > 10, `${result.events} arrivals`);
    } finally {
      await server.close();
    }
  });
});

describe("the receive-stamp probe a speech level's sessions start after", () => {
  it('has its sender thread started when it resolves, so the thread does not start while the first sessions receive', async () => {
    const probe = await startStampProbe();
    try {
      assert.ok(probe.received >= 1, 'the sender has written its first message');
    } finally {
      await probe.stop();
    }
  });
});
