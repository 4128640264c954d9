import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Progress } from '../src/cli/progress.js';
import type { RunConfig } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import { sharedTarget } from './helpers.js';

// What these tests check of a run's report does not depend on where the server runs (see sharedTarget).
const LOCAL = await sharedTarget();

/** A stream that records what is written, as a terminal or not. */
function stream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const s = { isTTY, text: '', write: (chunk: string) => ((s.text += chunk), true) };
  return s as unknown as NodeJS.WriteStream & { text: string };
}

const CONFIG = { target: 'ws://h/v1/realtime', builtInServer: false, task: 'stt', model: 'm', data: 'd' } as RunConfig;

it('on a terminal: one line redrawn in place with the sweep level, in-flight count and ETA, cleared at the end', (t) => {
  t.mock.timers.enable({ apis: ['setInterval', 'Date'] });
  const out = stream(true);
  const progress = new Progress(out);
  progress.start(CONFIG, 'runs/x');
  progress.levelStart({ label: 'concurrent@2', number: 2, of: 3, expected: 10, kept: 0, durationMs: 60_000 });
  progress.sessionStart();
  progress.sessionStart();
  t.mock.timers.tick(250);
  progress.stop();
  assert.equal(
    out.text,
    'target ws://h/v1/realtime · model m · data d · output runs/x\n' +
      '\r\x1b[Kconcurrent@2 (level 2 of 3) · 0:00 elapsed · ETA 2:00 · sessions 0/10 done · 2 in flight · 0 failed · ttft_ms p50 n/a' +
      '\r\x1b[K',
  );
});

it("an ended session's headline figure reaches the line after the session-end callback, and every one by the level's last line", async () => {
  const { report } = await run({ ...LOCAL, pace: { kind: 'realtime', speed: 8 }, maxSessions: 2, profile: { kind: 'concurrent', concurrency: 2 } });
  const sessions = report.benchmarks[0]!.sessions;
  const ttft = sessions.flatMap((s) => s.metrics.inputs.map((i) => i.ttft_ms!));
  const out = stream(false);
  const progress = new Progress(out);
  progress.start(CONFIG, 'runs/x');
  progress.levelStart({ label: 'concurrent@2', number: 1, of: 1, expected: 2, kept: 0 });
  progress.sessionEnd(sessions[0]!);
  progress.sessionEnd(sessions[1]!);
  progress.stop();
  const median = [...ttft].sort((a, b) => a - b)[1]!; // the log histogram's p50 of two is the upper one, to its bucket
  const shown = Number(/ttft_ms p50 (\d+) ms/.exec(out.text)?.[1]);
  assert.ok(Math.abs(shown - median) <= Math.max(2, median * 0.05), `line says ${shown} ms, sessions ${ttft.join(', ')}`);
});

it("counts only completed sessions' figures: failed ones' partial timings are no result", async () => {
  const { report } = await run({ ...LOCAL, pace: { kind: 'realtime', speed: 8 }, maxSessions: 2, profile: { kind: 'concurrent', concurrency: 2 } });
  // Sessions that measured a first token, then failed.
  const failed = report.benchmarks[0]!.sessions.map((s) => ({
    ...s,
    outcome: { status: 'failed' as const, failure: { class: 'server_error' as const, stage: 'streaming' as const, message: 'boom' } },
  }));
  assert.ok(failed.every((s) => s.metrics.inputs.some((i) => i.ttft_ms !== undefined)));
  const out = stream(false);
  const progress = new Progress(out);
  progress.start(CONFIG, 'runs/x');
  progress.levelStart({ label: 'concurrent@2', number: 1, of: 1, expected: 2, kept: 0 });
  for (const s of failed) progress.sessionEnd(s);
  progress.stop();
  assert.match(out.text, /2 failed · ttft_ms p50 n\/a$/m);
});
