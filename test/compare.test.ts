import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { compareReports, renderComparison, verdictOf, type Comparison, type MetricComparison } from '../src/report/compare.js';
import { renderComparisonHtml } from '../src/report/compare-html.js';
import { decimalsFor, fixed, metricCells, signed } from '../src/report/compare-text.js';
import type { PageData } from '../src/report/html/page/data.js';
import { contentSecurityPolicy } from '../src/report/html/index.js';
import { escapeHtml } from '../src/report/html/markup.js';
import type { Report } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { launchChromium, NO_CHROMIUM, openOffline } from './browser.js';
import { CLI, runNode, sharedTarget, tempDir, testServer } from './helpers.js';

const FAST = { kind: 'realtime', speed: 8 } as const;
// What is compared here does not depend on where the server runs (see sharedTarget).
const LOCAL = await sharedTarget();
/** Markup a hostile server or a hand-edited report could carry; each, if it ran, would set window.__xss. */
const PAYLOADS = [
  '<script>window.__xss = 1</script>',
  '<img src=x onerror="window.__xss = 2">',
  '</script><script>window.__xss = 3</script><!--',
  '"><svg onload="window.__xss = 4">',
];
/** A negative zero as printed: `-0`, `-0.0`, `-0.000`, never followed by another digit. */
const NEGATIVE_ZERO = /-0(?:\.0*)?(?![\d.])/;

const row = (text: string, metric: string): string => text.split('\n').find((line) => line.startsWith(`${metric} `))!;
const metric = (c: Comparison, name: string): MetricComparison => c.metrics.find((m) => m.metric === name)!;

describe('report compare', () => {
  // Same dataset, level, protocol and pacing; only the simulated server's delay differs,
  // so B (the default server) must win every headline latency, and rtfx.
  let slow: Report;
  let fast: Report;
  before(async () => {
    const slowServer = await testServer({ latency: { ...DEFAULT_LATENCY, baseDelayMs: 600 } });
    [{ report: slow }, { report: fast }] = await Promise.all([
      run({ ...LOCAL, target: slowServer.url, maxSessions: 6, pace: FAST }),
      run({ ...LOCAL, maxSessions: 6, pace: FAST }),
    ]);
  });

  it('gives the verdict by the catalog’s direction of goodness, not by the sign', () => {
    const c = compareReports(slow, fast);
    assert.deepEqual(c.warnings, []);
    for (const name of ['ttft_ms', 'finalization_ms', 'avg_rtt_ms']) {
      const m = metric(c, name);
      assert.ok(m.deltaP50 < -300 && m.ci95[1] < 0, `${name}: Δ ${m.deltaP50} ${m.ci95.join(',')}`);
      assert.equal(m.verdict, 'better', name);
    }
    assert.deepEqual(
      ['ttft_ms', 'finalization_ms', 'avg_rtt_ms'].map((name) => metric(c, name).headline),
      [true, true, false],
      "streaming transcription's headline figures, by the catalog",
    );
    const rtfx = metric(c, 'rtfx');
    assert.ok(rtfx.deltaP50 > 0 && rtfx.ci95[0] > 0, `rtfx: Δ ${rtfx.deltaP50} ${rtfx.ci95.join(',')}`);
    assert.equal(rtfx.verdict, 'better', 'higher rtfx is better');
    assert.equal(metric(c, 'session_ms').verdict, 'different', 'a quantity that is neither better nor worse');
    // What the client sent describes the workload, not the server: no verdict.
    for (const name of ['bytes_sent', 'frames_sent', 'audio_ms', 'audio_sent_ms']) assert.equal(metric(c, name).verdict, 'workload', name);
    const reverse = compareReports(fast, slow);
    assert.equal(metric(reverse, 'ttft_ms').verdict, 'worse');
    assert.equal(metric(reverse, 'rtfx').verdict, 'worse');

    // In a terminal: green for better whatever the sign, red for worse; quantities stay plain.
    const green = '\x1b[32m';
    const red = '\x1b[31m';
    const coloured = renderComparison(c, { color: true });
    assert.ok(row(coloured, 'ttft_ms').includes(`${green}-`), row(coloured, 'ttft_ms'));
    assert.ok(row(coloured, 'rtfx').includes(`${green}+`), row(coloured, 'rtfx'));
    assert.ok(!row(coloured, 'session_ms').includes('\x1b['), 'a difference that is neither better nor worse is not coloured');
    const reversed = renderComparison(reverse, { color: true });
    assert.ok(row(reversed, 'ttft_ms').includes(`${red}+`) && row(reversed, 'rtfx').includes(`${red}-`));
    assert.ok(!renderComparison(c).includes('\x1b'), 'plain text without colour');
  });

  it('shows each side’s sessions, failures, error rate, throughput and corpus WER with its interval', () => {
    const c = compareReports(slow, fast);
    for (const [side, report] of [
      [c.a, slow],
      [c.b, fast],
    ] as const) {
      const { summary } = report.benchmarks[0]!;
      assert.deepEqual(side.sessions, { total: 6, completed: 6, failed: 0, incomplete: 0 });
      assert.equal(side.errorRate, 0);
      assert.equal(side.throughput.audioSPerWallS, summary.throughput.audioSPerWallS);
    }
    assert.ok(c.b.throughput.audioSPerWallS > c.a.throughput.audioSPerWallS, 'the faster server turns sessions around sooner');
    const wer = c.corpus.find((k) => k.metric === 'corpus_wer')!;
    assert.equal(wer.a!.value, slow.benchmarks[0]!.summary.corpus.corpus_wer);
    assert.ok(wer.a!.ci95[0] <= wer.a!.value && wer.a!.value <= wer.a!.ci95[1]);
    // 0 -> 0 is no change, not a doubt.
    assert.deepEqual(wer.delta, { value: 0, ci95: [0, 0], verdict: 'same' }, 'the simulated server transcribes known audio exactly');

    const text = renderComparison(c);
    assert.match(text, /^\s+level\s+sessions\s+completed\s+failed\s+error rate\s+audio s\/s\s+sessions\/s\s+corpus_wer \[95% CI\]\s+corpus_cer \[95% CI\]$/m);
    assert.match(text, /^A\s+synchronous\s+6\s+6\s+0\s+0%\s+[\d.]+\s+[\d.]+\s+0 \[0, 0\]\s+0 \[0, 0\]$/m);
    assert.match(text, /^Verdict, B against A \(headline figures\):\n {2}better\s+ttft_ms p50 \d+ → \d+ ms, Δ -\d+ ms \[-\d+, -\d+\]$/m);
    assert.match(text, /^ {2}same\s+corpus_wer 0 → 0, Δ 0 \[0, 0\]$/m);
  });

  it('prints the digits a difference needs and never a negative zero', () => {
    assert.equal(decimalsFor([0.995, 1.048], [0.053]), 3);
    assert.equal(decimalsFor([412.3, 130.1], [-282.2]), 0);
    assert.equal(decimalsFor([120.34, 120.31], [0.03]), 3, 'a small difference between large values');
    assert.equal(decimalsFor([0, 0], [0]), 0);
    assert.equal(fixed(-0.0004, 3), '0.000');
    assert.equal(fixed(-0.4, 0), '0');
    assert.equal(signed(-0.0004, 3), '0.000');
    assert.equal(signed(0.0004, 3), '0.000');
    assert.equal(signed(0.053, 3), '+0.053');
    assert.equal(signed(-1.5, 1), '-1.5');
    const rtf: MetricComparison = {
      metric: 'rtf',
      unit: 'ratio',
      better: 'lower',
      headline: false,
      description: '',
      countA: 9,
      countB: 9,
      p50A: 0.995,
      p50B: 1.048,
      p95A: 1.0004,
      p95B: 1.1,
      deltaP50: 0.053,
      ci95: [-0.00004, 0.09],
      verdict: 'unclear',
    };
    assert.deepEqual(metricCells(rtf), { p50: '0.995 → 1.048', p95: '1.000 → 1.100', delta: '+0.053', ci: '[0.000, 0.090]' });

    const same = compareReports(fast, fast);
    assert.ok(
      same.metrics.every((m) => m.deltaP50 === 0 && ['unclear', 'same', 'workload'].includes(m.verdict)),
      'a run against itself',
    );
    for (const c of [same, compareReports(slow, fast), compareReports(fast, slow)]) {
      const page = renderComparisonHtml(c);
      // What the page shows: its markup, not the inlined chart library.
      const shown = page.slice(page.indexOf('<body>'), page.indexOf('<script'));
      for (const text of [renderComparison(c), shown]) assert.doesNotMatch(text, NEGATIVE_ZERO);
    }
  });

  it('decides each verdict from the interval and the direction', () => {
    const [lower, higher, neither] = (['lower', 'higher', 'neither'] as const).map((better) => ({ better, tags: [] }));
    assert.equal(verdictOf(lower!, [-2, -1]), 'better');
    assert.equal(verdictOf(lower!, [1, 2]), 'worse');
    assert.equal(verdictOf(higher!, [-2, -1]), 'worse');
    assert.equal(verdictOf(higher!, [1, 2]), 'better');
    assert.equal(verdictOf(neither!, [1, 2]), 'different');
    assert.equal(verdictOf(lower!, [-1, 1]), 'unclear');
    assert.equal(verdictOf(higher!, [0, 1]), 'unclear', 'an interval that reaches 0 holds it');
    assert.equal(verdictOf(lower!, [NaN, NaN]), 'unclear', 'no interval');
    assert.equal(verdictOf(lower!, [0, 0]), 'same', 'every resample equal: no change');
    assert.equal(verdictOf({ better: 'neither', tags: ['throughput', 'workload'] }, [1, 2]), 'workload', 'a figure of the workload judges no server');
  });

  it('of two multi-level runs, compares the lightest level both ran, says so, and how to choose another', async () => {
    // Run in order 2, 1 (as a capacity search may): the first benchmark is not the lightest.
    const { report: sweep } = await run({ ...LOCAL, sweep: [2, 1], maxSessions: 2, pace: FAST });
    const c = compareReports(sweep, sweep);
    assert.deepEqual([c.a.label, c.b.label], ['concurrent@1', 'concurrent@1']);
    assert.deepEqual(c.warnings, [
      'A and B share 2 levels (concurrent@1, concurrent@2); this compares concurrent@1, the lightest: compare another with --level, e.g. --level concurrent@2',
    ]);
    assert.match(renderComparison(c), /^warning: A and B share 2 levels/m);
    assert.deepEqual(compareReports(sweep, sweep, 'concurrent@2').warnings, [], 'a level named is the one compared');
  });

  it('warns when the datasets, levels, protocols or pacing differ, in the console and the page', async () => {
    const dir = await tempDir();
    const [a, b] = [join(dir, 'a'), join(dir, 'b')];
    await Promise.all([
      run({ ...LOCAL, maxSessions: 2, pace: FAST, outputDir: a }),
      run({
        protocol: 'openai',
        dataset: { maxSamples: 1 },
        profile: { kind: 'concurrent', concurrency: 2 },
        maxSessions: 2,
        pace: { kind: 'realtime', speed: 4 },
        outputDir: b,
      }),
    ]);
    const out = join(dir, 'cmp');
    const result = await runNode([CLI, 'report', 'compare', a, b, '--output-dir', out]);
    assert.equal(result.code, 0, result.stderr);
    const expected = [
      /^warning: different datasets: A ran bundled samples \(6 samples, sha256:[0-9a-f]{12}…\), B ran bundled samples \(1 sample, sha256:[0-9a-f]{12}…\); differences may come from the inputs$/m,
      /^warning: different levels: A ran synchronous, B ran concurrent@2$/m,
      /^warning: different protocols: A spoke vllm \(stt, turn detection none\), B openai \(stt, turn detection none\)$/m,
      /^warning: different pacing: A sent audio at pace 8x in 100 ms chunks, B at pace 4x in 100 ms chunks$/m,
    ];
    for (const warning of expected) assert.match(result.stdout, warning);
    assert.ok(!result.stdout.includes('\x1b'), 'a pipe gets no colour');
    const comparison = JSON.parse(await readFile(join(out, 'compare.json'), 'utf8')) as Comparison;
    assert.equal(comparison.warnings.length, 4);
    const page = await readFile(join(out, 'compare.html'), 'utf8');
    for (const warning of comparison.warnings) assert.ok(page.includes(`Warning: ${escapeHtml(warning)}`), warning);
  });

  describe('compare.html', () => {
    /** The comparison with markup in every string a report gives it, and a control sequence for terminals. */
    const hostile = (): Comparison => {
      const [a, b] = [structuredClone(slow), structuredClone(fast)];
      a.config.model = PAYLOADS[0]!;
      a.config.target = PAYLOADS[1]!;
      b.config.data = PAYLOADS[2]!;
      b.dataset.fingerprint = `sha256:${PAYLOADS[3]!}`;
      b.config.model = '\x1b[2J\x1b]0;owned\x07';
      return compareReports(a, b);
    };

    it('is self-contained, under the report’s content security policy, with every report string escaped', () => {
      const c = hostile();
      const page = renderComparisonHtml(c);
      assert.ok(page.includes(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy())}">`));
      assert.doesNotMatch(page, /\b(?:src|href)="(?!#|data:)/, 'no external source or link');
      assert.equal(page.match(/<script/g)?.length, 3, 'data, chart library, page script');
      for (const tag of ['<img', '<svg', '<!--']) assert.ok(!page.includes(tag), `no ${tag}`);
      assert.ok(page.includes(escapeHtml(PAYLOADS[0]!)), 'the model shows as text');
      assert.equal(c.warnings.length, 1, 'the datasets differ');
      assert.ok(!renderComparison(c).includes('\x1b'), 'no control sequence from a report reaches the terminal');
    });

    it('charts both sides of every headline metric', () => {
      const c = compareReports(slow, fast);
      const match = /<script type="application\/json" id="voxbench-data">(.*?)<\/script>/s.exec(renderComparisonHtml(c));
      const { charts } = JSON.parse(match![1]!) as PageData;
      const headline = c.metrics.filter((m) => m.headline).map((m) => `cdf-${m.metric}`);
      assert.deepEqual(Object.keys(charts), headline);
      assert.ok(headline.includes('cdf-ttft_ms') && headline.includes('cdf-finalization_ms'));
      for (const chart of Object.values(charts)) {
        assert.deepEqual(
          chart.series.map((s) => s.label),
          ['A', 'B'],
        );
        for (const s of chart.series) assert.ok(s.x.length > 0 && s.x.length === s.y.length && s.y.at(-1) === 100, `${chart.id} ${s.label}`);
      }
    });

    describe('in headless Chromium', { skip: NO_CHROMIUM }, () => {
      let browser: Browser;
      before(async () => {
        browser = await launchChromium();
      });
      after(() => browser?.close());

      it('opens offline, draws every chart, asks for nothing, and keeps markup inert', async () => {
        const file = join(await tempDir(), 'compare.html');
        await writeFile(file, renderComparisonHtml(hostile()));
        const { page, context, url, problems, requests, charts } = await openOffline(browser, file);
        assert.ok(charts.some((c) => c.id === 'cdf-ttft_ms'));
        for (const c of charts) assert.ok(c.canvases === 1 && c.points > 0 && c.series === 2, `chart ${c.id} is drawn with both sides: ${JSON.stringify(c)}`);
        assert.equal(await page.locator('img, svg, iframe').count(), 0, 'no element injected');
        assert.ok((await page.getByText(PAYLOADS[0]!).count()) > 0, 'the model shows as text');
        assert.match((await page.locator('.answer-text').textContent())!, /^B against A: better on ttft_ms, finalization_ms/);
        assert.deepEqual(problems, []);
        assert.deepEqual([...new Set(requests)], [url], 'the page requests nothing but itself');
        await context.close();
      });
    });
  });
});
