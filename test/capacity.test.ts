import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lagExplains } from '../src/metrics/health.js';
import { parseSlo } from '../src/metrics/slo.js';
import { renderSummary } from '../src/report/console.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { run } from '../src/run/run.js';
import { sharedTarget } from './helpers.js';

const FAST = { kind: 'realtime', speed: 20 } as const;
// What the search decides does not depend on where the server runs (see sharedTarget); the client-bound test keeps the
// built-in server's own thread, which its held event loop must not hold too.
const LOCAL = await sharedTarget();

describe('capacity search', () => {
  it('runs each level until the percentile its SLO names rests on enough values, and states the answer with its interval', async () => {
    // The bundled samples alone would give 6 sessions a level: a p95 from 6 values is its largest but one.
    const { report } = await run({ ...LOCAL, capacity: { by: 'concurrency', max: 1 }, slos: ['p95(ttft_ms)<60000'], pace: FAST });
    const [level] = report.benchmarks;
    assert.equal(level!.summary.sessions.total, 20);
    assert.ok(level!.summary.metrics.ttft_ms!.count >= 20, `${level!.summary.metrics.ttft_ms!.count} values`);
    assert.match(
      renderSummary(report),
      /^capacity: 1 concurrent session, the most that met p95\(ttft_ms\)<60000 \(there p95\(ttft_ms\) \d+ ms \(95% CI \d+ ms to \d+ ms, over \d+ values\); every level up to the search limit passed; 1 level probed\)$/m,
    );
    // --max-sessions is the user saying otherwise.
    const told = await run({ ...LOCAL, capacity: { by: 'concurrency', max: 1 }, slos: ['p95(ttft_ms)<60000'], pace: FAST, maxSessions: 2 });
    assert.equal(told.report.benchmarks[0]!.summary.sessions.total, 2);
  });

  it('calls no capacity from a level where the client could not keep up, says so and suggests --workers', async () => {
    // The client is made the bottleneck: each session's end holds its event loop for 300 ms, more than the SLO's miss.
    const hold = (): void => {
      const until = Date.now() + 300;
      while (Date.now() < until);
    };
    const { report } = await run({
      capacity: { by: 'concurrency', max: 4 },
      slos: ['p95(ttft_ms)<100'],
      pace: FAST,
      maxSessions: 4,
      onSessionEnd: hold,
    });
    const [level] = report.benchmarks;
    assert.equal(level!.clientHealth.bottleneck, true, level!.clientHealth.verdict);
    assert.deepEqual([report.capacity!.answer, report.capacity!.failsAt, report.capacity!.clientBoundAt], [null, null, 1]);
    assert.equal(report.benchmarks.length, 1, 'the search stops at the client-bound level');
    for (const text of [renderSummary(report), renderMarkdown(report)]) {
      assert.match(
        text,
        /at 1 concurrent session the client could not keep up and its own lag could account for the miss, which says nothing of the server, so the search stopped there \(spread the sessions over threads with --workers/,
      );
      assert.match(text, /concurrent@1 is not a server failure: the client may be the bottleneck/);
      assert.doesNotMatch(text, /they failed/);
    }
  });

  it('blames the client only for a latency SLO its own lag could account for', () => {
    const [p95, ratio, errors] = ['p95(ttft_ms)<100', 'p95(rtf)<0.5', 'error_rate<0.01'].map(parseSlo);
    assert.equal(lagExplains(p95!, 180, 300), true, '180 ms less 300 ms of lag meets 100 ms');
    assert.equal(lagExplains(p95!, 180, 40), false, 'a miss of 80 ms is more than 40 ms of lag: the server missed');
    assert.equal(lagExplains(ratio!, 0.9, 300), false, 'a ratio is no latency');
    assert.equal(lagExplains(errors!, 0.5, 300), false, 'failed sessions are no lateness');
  });

  it('names a curve that gets better under more load', async () => {
    const { report } = await run({ ...LOCAL, sweep: [1, 2], slos: ['p95(ttft_ms)<60000'], pace: FAST, maxSessions: 20 });
    report.capacity = {
      by: 'concurrency',
      slos: report.config.slos,
      answer: 2,
      failsAt: null,
      probes: [
        { level: 1, pass: true },
        { level: 2, pass: true },
      ],
    };
    // The same latencies at both levels, whatever the machine's load made them: noise only.
    const [one, two] = report.benchmarks.map((level) => level.sessions.flatMap((s) => s.metrics.inputs));
    one!.forEach((input, i) => {
      const ttft = two![i % two!.length]!.ttft_ms;
      if (ttft !== undefined) input.ttft_ms = ttft;
    });
    assert.doesNotMatch(renderSummary(report), /not monotonic/, 'two levels below the knee differ by noise only');
    // Level 1 made a second slower than level 2: no interval of the two can overlap.
    for (const s of report.benchmarks[0]!.sessions) for (const input of s.metrics.inputs) if (input.ttft_ms !== undefined) input.ttft_ms += 1000;
    // Markdown escapes the underscore.
    const warning =
      /not monotonic: p95\(ttft\\?_ms\) \d+ ms \(95% CI .*\) at concurrent@1 is worse than p95\(ttft\\?_ms\) \d+ ms \(95% CI .*\) at concurrent@2/;
    assert.match(renderSummary(report), warning);
    assert.match(renderMarkdown(report), warning);
  });
});
