import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumSkipReason, launchChromium, NO_CHROMIUM, openOffline, type PageFlags } from './browser.js';
import type { PageData } from '../src/report/html/page/data.js';
import type { WebSocketTransport } from '../src/timeline/types.js';
import { contentSecurityPolicy, renderHtml } from '../src/report/html/index.js';
import { escapeHtml } from '../src/report/html/markup.js';
import type { HeldReport, HeldSession } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import { DEFAULT_MODELS } from '../src/config/settings.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { sharedTarget } from './helpers.js';

/** Set to a folder to keep the pages' screenshots for a look. */
const SCREENSHOTS = process.env.VOXBENCH_SCREENSHOTS;

/** Markup a hostile or broken server could send; each, if it ran, would set window.__xss. */
const PAYLOADS = [
  '<script>window.__xss = 1</script>',
  '<img src=x onerror="window.__xss = 2">',
  '</script><script>window.__xss = 3</script><!--',
  '"><svg onload="window.__xss = 4">',
];

const clone = (report: HeldReport): HeldReport => structuredClone(report);

describe('the browser tests', () => {
  it('skip without Chromium only outside CI, so CI cannot pass without them', () => {
    assert.match(String(chromiumSkipReason(undefined, false, '/x/chromium')), /no Chromium at \/x\/chromium/);
    assert.match(String(chromiumSkipReason('false', false)), /no Chromium/);
    assert.equal(chromiumSkipReason('true', false), false);
    assert.equal(chromiumSkipReason('1', false), false);
    assert.equal(chromiumSkipReason(undefined, true), false);
  });
});

/** The JSON block the page script reads, as the page holds it. */
function pageData(page: string): PageData {
  const match = /<script type="application\/json" id="voxbench-data">(.*?)<\/script>/s.exec(page);
  assert.ok(match, 'the page embeds its data');
  return JSON.parse(match[1]!) as PageData;
}

/** A synthetic per-turn WER (a ratio), as reports with reference transcripts will carry. */
function withWer(report: HeldReport): HeldReport {
  const copy = clone(report);
  for (const b of copy.benchmarks) for (const s of b.sessions) s.metrics.inputs.forEach((t, i) => (t.wer = ((s.index * 7 + i * 3) % 10) / 40));
  return copy;
}

/** The report as a dataset without reference transcripts would leave it. */
function withoutWer(report: HeldReport): HeldReport {
  const copy = clone(report);
  for (const b of copy.benchmarks) {
    for (const s of b.sessions) for (const t of s.metrics.inputs) delete t.wer;
    // Nothing scored, so nothing pooled either.
    Object.assign(b.summary.quality, { turns: 0, wer: null, werCi95: null });
    b.summary.corpus.corpus_wer = null;
  }
  return copy;
}

/** Every server-sent string replaced by markup: transcripts, a failure with its close reason, a skipped file. */
function withMarkup(report: HeldReport): HeldReport {
  const copy = clone(report);
  let n = 0;
  for (const b of copy.benchmarks) {
    for (const s of b.sessions) for (const e of s.timeline.received) if (e.text !== undefined) e.text = PAYLOADS[n++ % PAYLOADS.length]!;
    const victim = b.sessions[0]!;
    victim.outcome = { status: 'failed', failure: { class: 'server_error', stage: 'streaming', message: PAYLOADS[1]!, code: PAYLOADS[3]!, closeCode: 1011 } };
    const transport = victim.timeline.transport as WebSocketTransport;
    transport.close = { t: transport.close?.t ?? 0, code: 1011, reason: PAYLOADS[2]!, by: 'server' };
    b.summary.failures.push({ class: 'server_error', stage: 'streaming', code: PAYLOADS[3]!, closeCode: 1011, count: 1, message: PAYLOADS[0]! });
  }
  copy.config.model = PAYLOADS[2]!;
  copy.dataset.problems.push({ file: PAYLOADS[3]!, reason: PAYLOADS[1]! });
  return copy;
}

/** The same run with `count` sessions per level, made by repeating the measured ones. */
function withSessions(report: HeldReport, count: number): HeldReport {
  const copy = clone(report);
  for (const b of copy.benchmarks) {
    const source = b.sessions;
    // Each copy its own rows and timeline, which tests change; its figures shared, since a
    // clone of them would copy each whole chunk of the store they lie in (512 KiB a session).
    b.sessions = Array.from({ length: count }, (_, i): HeldSession => {
      const { figures, ...rest } = source[i % source.length]!;
      return { ...structuredClone(rest), figures, index: i };
    });
  }
  return copy;
}

/** The sweep with five SLOs, as a wide by-level table shows them: one column each. */
function withManySlos(report: HeldReport): HeldReport {
  const copy = clone(report);
  copy.config.slos = ['p95(ttft_ms)<5000', 'error_rate<0.1', 'p99(finalization_ms)<1500', 'p50(ttlt_ms)<800', 'p90(ttft_ms)<2500'];
  for (const b of copy.benchmarks) b.summary.slos = copy.config.slos.map((slo, i) => ({ slo, value: 1234.5 * (i + 1), pass: i % 2 === 0 }));
  return copy;
}

function assertChartsHaveData(data: PageData): void {
  const charts = Object.values(data.charts);
  assert.ok(charts.length > 0);
  for (const chart of charts) {
    assert.ok(chart.series.length > 0, `${chart.id} has series`);
    for (const s of chart.series) {
      assert.ok(s.x.length > 0, `${chart.id}: ${s.label} has points`);
      assert.equal(s.x.length, s.y.length, `${chart.id}: ${s.label} has as many x as y`);
      assert.ok([...s.x, ...s.y].every(Number.isFinite), `${chart.id}: ${s.label} has finite values`);
    }
  }
}

describe('HTML report', () => {
  let sweep: HeldReport;
  let serverVad: HeldReport;

  before(async () => {
    // Both at once, against one simulated server in this process: the pages show what the reports hold, whoever served
    // the runs, and a run against the built-in server starts server threads of its own.
    const { target } = await sharedTarget();
    [{ report: sweep }, { report: serverVad }] = await Promise.all([
      run({ target, model: DEFAULT_MODEL, sweep: [1, 2, 4], slos: ['p95(ttft_ms)<5000', 'error_rate<0.1'], pace: { kind: 'realtime', speed: 8 } }),
      run({
        target,
        model: DEFAULT_MODELS.openai,
        protocol: 'openai',
        turnDetection: { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 },
        turnsPerSession: 3,
        // Three sessions of three turns: what its page shows of one level holds with fewer than the six samples.
        maxSessions: 3,
        padding: { gapMs: 800 },
        pace: { kind: 'realtime', speed: 8 },
      }),
    ]);
  });

  describe('rendered in Node', () => {
    it('is one self-contained document with a CSP that forbids every fetch', () => {
      const page = renderHtml(sweep);
      assert.match(page, /^<!doctype html>/);
      // Only the chart library and the page script may run, by their hashes: no 'unsafe-inline'.
      const policy = contentSecurityPolicy();
      assert.match(policy, /^default-src 'none'; script-src 'sha256-[\w+/]+=*' 'sha256-[\w+/]+=*'; style-src 'unsafe-inline'; img-src data: blob:$/);
      assert.ok(page.includes(`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(policy)}">`));
      assert.doesNotMatch(page, /\b(?:src|href)="(?!#|data:)/, 'no external source or link');
      assert.equal(page.match(/<script/g)?.length, 3, 'data, chart library, page script');
    });

    it('charts every latency per level, the load curves, and a waterfall per level', () => {
      const data = pageData(renderHtml(sweep));
      assertChartsHaveData(data);
      const ids = Object.keys(data.charts);
      for (const id of ['cdf-ttft_ms', 'cdf-finalization_ms', 'load-ttft_ms', 'load-throughput', 'load-error-rate', 'waterfall-0', 'waterfall-2'])
        assert.ok(ids.includes(id), id);
      assert.equal(data.charts['cdf-ttft_ms']!.series.length, 3, 'one CDF curve per level');
      const thresholds = data.charts['load-ttft_ms']!.rules.map((r) => r.value);
      assert.deepEqual(thresholds, [5000], 'the SLO threshold line');
      assert.deepEqual(
        data.charts['load-error-rate']!.rules.map((r) => r.value),
        [10],
        'error-rate SLO in %',
      );
    });

    it('draws the capacity found on every load curve', () => {
      const report = clone(sweep);
      // A capacity search traces the same levels; its answer is what the page adds.
      report.capacity = {
        by: 'concurrency',
        slos: report.config.slos,
        answer: 2,
        failsAt: 4,
        probes: [
          { level: 1, pass: true },
          { level: 2, pass: true },
          { level: 4, pass: false },
        ],
      };
      const page = renderHtml(report);
      assert.match(
        page,
        /Capacity: 2 concurrent sessions, the most that met p95\(ttft_ms\)&lt;5000 and error_rate&lt;0.1 \(there p95\(ttft_ms\) \d+ ms \(95% CI [^)]*\), error_rate 0\.000 \([^)]*\); at 4 concurrent sessions they failed; 3 levels probed\)/,
      );
      for (const chart of Object.values(pageData(page).charts).filter((c) => c.id.startsWith('load-'))) {
        assert.deepEqual(
          chart.rules.filter((r) => r.axis === 'x').map((r) => r.value),
          [2, 4],
          chart.id,
        );
      }
    });

    it('plots WER against latency when turns carry it, and says so when they do not', () => {
      assert.match(renderHtml(withoutWer(sweep)), /No word error rate in this report/);
      const data = pageData(renderHtml(withWer(sweep)));
      assert.deepEqual(
        Object.keys(data.charts).filter((id) => id.startsWith('wer-')),
        ['wer-ttft_ms', 'wer-finalization_ms'],
      );
      assertChartsHaveData(data);
    });

    it('renders a reproducibility record and cost it does not know in advance', () => {
      const report = clone(serverVad);
      report.record = { ...report.record, deployment: { gpu: 'H100 80GB', replicas: 2, warm: true, region: null } };
      Object.assign(report.benchmarks[0]!.summary, { cost: { usdPerAudioHour: 0.125, usdPerHour: 4 } });
      const page = renderHtml(report);
      for (const text of ['<h3>deployment</h3>', '<dt>gpu</dt><dd>H100 80GB</dd>', '<dt>replicas</dt><dd>2</dd>', '<th>usdPerAudioHour</th>', '<td>0.125</td>'])
        assert.ok(page.includes(text), text);
    });

    it('escapes everything the server sent', () => {
      const page = renderHtml(withMarkup(sweep));
      assert.equal(page.match(/<script/g)?.length, 3, 'no script element injected');
      for (const tag of ['<img', '<svg', '<!--']) assert.ok(!page.includes(tag), `no ${tag}`);
      assert.ok(page.includes('&lt;script&gt;window.__xss = 1&lt;/script&gt;'), 'transcripts are shown as text');
      const notes = Object.values(pageData(page).charts).flatMap((c) => c.series.flatMap((s) => s.notes ?? []));
      assert.ok(
        PAYLOADS.every((p) => notes.includes(p)),
        'the JSON block carries the text unchanged',
      );
    });

    it('stays small for 1000 sessions: what it embeds is bounded per level, not per session', () => {
      // The JSON report of this run holds every timeline (about 12 kB a session); the page
      // keeps at most ~160 steps per CDF, 20 sessions per waterfall and 1,500 WER points per level.
      const small = renderHtml(withWer(withSessions(sweep, 100))).length;
      const large = renderHtml(withWer(withSessions(sweep, 1000))).length;
      assert.ok(large < 600_000, `1000 sessions × 3 levels: ${large} bytes`);
      assert.ok(large < small * 1.5, `100 sessions: ${small} bytes; 1000 sessions: ${large} bytes`);
    });
  });

  describe('in headless Chromium', { skip: NO_CHROMIUM }, () => {
    let browser: Browser;
    let dir: string;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'voxbench-html-'));
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await rm(dir, { recursive: true, force: true });
    });

    /** Opens a rendered report from file:// offline and checks what every page must satisfy. */
    async function open(report: HeldReport, name: string) {
      const file = join(dir, `${name}.html`);
      await writeFile(file, renderHtml(report));
      const { page, context, url, problems, requests, charts } = await openOffline(browser, file);
      assert.ok(charts.length > 0);
      for (const c of charts) assert.ok(c.canvases === 1 && c.points > 0 && c.series > 0, `chart ${c.id} is drawn with data: ${JSON.stringify(c)}`);
      assert.deepEqual(problems, []);
      assert.deepEqual([...new Set(requests)], [url], 'the page requests nothing but itself');
      // Only for a look: no test reads a screenshot, and each is a full render and PNG encoding in Chromium.
      if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
      return { page, context, charts, problems };
    }

    it('opens a sweep offline, draws every chart, and switches the waterfall level', async () => {
      const { page, context, charts, problems } = await open(withWer(sweep), 'sweep');
      const ids = charts.map((c) => c.id);
      for (const id of ['cdf-ttft_ms', 'load-ttft_ms', 'load-throughput', 'load-error-rate', 'wer-ttft_ms', 'waterfall-2']) assert.ok(ids.includes(id), id);

      await page.selectOption('select[data-switch="waterfall"]', 'waterfall-0');
      const waterfall = page.locator('[data-switch-target="waterfall"]');
      assert.equal(await waterfall.getAttribute('data-chart'), 'waterfall-0');
      assert.ok(Number(await waterfall.getAttribute('data-points')) > 0);
      assert.equal(await page.locator('[data-switch-item="waterfall"]:not([hidden])').getAttribute('data-key'), 'waterfall-0');

      await waterfall.scrollIntoViewIfNeeded();
      const box = (await waterfall.locator('.u-over').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 });
      // uPlot updates its cursor on the next animation frame.
      await page.locator('#waterfall .readout').filter({ hasText: /\S/ }).waitFor({ timeout: 5000 });
      assert.deepEqual(problems, []);
      await context.close();
    });

    it('fits the by-level table, every SLO column on screen, at 1024 and 1400 px', async () => {
      const { page, context } = await open(withManySlos(sweep), 'many-slos');
      for (const width of [1024, 1400]) {
        await page.setViewportSize({ width, height: 900 });
        // The page resizes its charts on the resize event, which comes with a frame: two frames later it has been handled.
        await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))');
        // A string, as the project's type library has no DOM.
        const layout = await page.evaluate<{ scrollWidth: number; clientWidth: number; pageOverflow: number; hidden: string[]; headers: string[] }>(`(() => {
          const table = document.querySelector('table.levels');
          const wrap = table.parentElement;
          const right = wrap.getBoundingClientRect().right;
          const headers = Array.from(table.querySelectorAll('th'));
          return {
            scrollWidth: wrap.scrollWidth,
            clientWidth: wrap.clientWidth,
            pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
            hidden: headers.filter((th) => th.getBoundingClientRect().right > right + 0.5).map((th) => th.textContent),
            headers: headers.map((th) => th.textContent),
          };
        })()`);
        assert.ok(layout.scrollWidth <= layout.clientWidth, `${width} px: the table scrolls (${layout.scrollWidth} > ${layout.clientWidth})`);
        assert.equal(layout.pageOverflow, 0, `${width} px: the page scrolls sideways`);
        assert.deepEqual(layout.hidden, [], `${width} px: columns past the edge`);
        for (const slo of withManySlos(sweep).config.slos) assert.ok(layout.headers.includes(slo), `${width} px: ${slo} has a column`);
        if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `many-slos-${width}.png`), fullPage: true });
      }
      await context.close();
    });

    it('opens a multi-turn server-VAD run with one level', async () => {
      const { context, charts } = await open(serverVad, 'server-vad');
      assert.ok(charts.some((c) => c.id === 'waterfall-0'));
      assert.ok(!charts.some((c) => c.id?.startsWith('load-')), 'no load curves for one level');
      await context.close();
    });

    it('keeps markup from the server inert', async () => {
      const { page, context, problems } = await open(withMarkup(sweep), 'markup');
      assert.equal(await page.locator('img, svg, iframe').count(), 0, 'no element injected');
      assert.equal(await page.locator('script').count(), 3);
      assert.ok((await page.getByText(PAYLOADS[0]!).count()) > 0, 'the transcript shows as text');

      // Sweep the waterfall on a grid finer than the readout's 24 px reach, so every marker's
      // note (the transcript text) is read out, through textContent, at least once.
      await page.evaluate(`(() => {
        const readout = document.querySelector('#waterfall .readout');
        const seen = (globalThis.__readouts = []);
        new MutationObserver(() => seen.push(readout.textContent)).observe(readout, { childList: true, characterData: true, subtree: true });
      })()`);
      const plot = page.locator('[data-switch-target="waterfall"] .u-over');
      await plot.scrollIntoViewIfNeeded();
      const box = (await plot.boundingBox())!;
      for (let y = box.y + 2; y < box.y + box.height; y += 30) for (let x = box.x + 2; x < box.x + box.width; x += 30) await page.mouse.move(x, y);
      const seen = await page.evaluate<string[]>('globalThis.__readouts');
      assert.ok(
        seen.some((text) => PAYLOADS.some((p) => text.includes(`“${p}”`))),
        'hovering a transcript marker reads out its markup as text',
      );
      assert.deepEqual(problems, []);
      assert.equal(await page.evaluate(() => (globalThis as PageFlags).__xss), undefined);
      await context.close();
    });
  });
});
