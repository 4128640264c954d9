import assert from 'node:assert/strict';
import { run, type RunOptions } from '../src/run/run.js';
import type { HeldSession } from '../src/report/schema.js';

/**
 * One session whose stream ends `afterStopMs` after the point where the server's VAD stops the
 * utterance (found by a first session with a long trail), in two chunks so that the stop
 * falls in the second: the client sends that chunk and, still seeing speech, its closing
 * flush back to back, before any answer can arrive. The race a real server runs when its
 * stop and commit are on the wire as the client flushes, every time. `base` must ask for
 * `server_vad` with `silenceDurationMs`.
 */
export async function flushRacingTheVad(base: RunOptions, silenceDurationMs: number, afterStopMs: number): Promise<HeldSession> {
  const { stoppedAtMs, untrailedMs } = await vadStop(base, silenceDurationMs);
  const endMs = stoppedAtMs + afterStopMs;
  const { report } = await run({ ...base, padding: { trailMs: endMs - untrailedMs }, chunkMs: Math.ceil(endMs / 2) });
  const session = report.benchmarks[0]!.sessions[0]!;
  const flush = session.timeline.sent.find((f) => f.control === 'flush');
  const stopped = session.timeline.received.find((e) => e.kind === 'speech_stopped');
  assert.ok(flush && stopped && stopped.t > flush.t, 'the race took place: the stop arrived after the flush was sent');
  return session;
}

/**
 * One session whose stream ends with its last sample's own audio, no trail: with a VAD silence longer
 * than the sample's trailing silence, the VAD never stops the utterance, so the client's closing
 * flush is what commits it (the user still speaking as far as the server knows).
 */
export async function flushBeforeTheVad(base: RunOptions): Promise<HeldSession> {
  const { report } = await run({ ...base, padding: { ...base.padding, trailMs: 0 } });
  const session = report.benchmarks[0]!.sessions[0]!;
  const { sent, received } = session.timeline;
  const flush = sent.find((f) => f.control === 'flush');
  const lastStart = received.filter((e) => e.kind === 'speech_started').at(-1);
  const stoppedFirst = received.some((e) => e.kind === 'speech_stopped' && e.t >= lastStart!.t && e.t < flush!.t);
  assert.ok(flush && lastStart && !stoppedFirst, 'the flush left while the VAD still heard the last speech');
  return session;
}

/** Probes already run, by protocol and VAD settings: where the VAD stops depends on nothing else (every simulated server has the same samples). */
const probes = new Map<string, Promise<{ stoppedAtMs: number; untrailedMs: number }>>();

/** Where the VAD decides the first sample's speech stopped (its end of speech plus the silence), and how long the sample's audio is without trail. */
function vadStop(base: RunOptions, silenceDurationMs: number): Promise<{ stoppedAtMs: number; untrailedMs: number }> {
  const key = JSON.stringify([base.protocol, base.turnDetection]);
  let probe = probes.get(key);
  if (!probe) {
    probe = run({ ...base, padding: { trailMs: 1500 } }).then(({ report }) => {
      const { timeline } = report.benchmarks[0]!.sessions[0]!;
      const stop = timeline.received.find((e) => e.kind === 'speech_stopped');
      const input = timeline.inputs[0];
      assert.ok(stop?.audioEndMs !== undefined && input?.kind === 'audio', 'the probe session has a VAD stop');
      return { stoppedAtMs: stop.audioEndMs + silenceDurationMs, untrailedMs: input.audioEndMs - 1500 };
    });
    probes.set(key, probe);
  }
  return probe;
}
