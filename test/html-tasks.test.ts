import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, NO_CHROMIUM, openOffline } from './browser.js';
import type { PageData } from '../src/report/html/page/data.js';
import { renderHtml } from '../src/report/html/index.js';
import type { Report } from '../src/report/schema.js';
import { run } from '../src/run/run.js';

/** Set to a folder to keep the pages' screenshots for a look. */
const SCREENSHOTS = process.env.VOXBENCH_SCREENSHOTS;
const PACE = { kind: 'realtime', speed: 8 } as const;
const DUPLEX = { protocol: 'vllm-omni-duplex', pace: PACE } as const;

/** What each task's page must lead with: its headline cards, by the catalog's names. */
const HEADLINE: Record<string, string[]> = {
  stt: ['ttft_ms p50', 'finalization_ms p50', 'commit_to_flush_ms p50', 'corpus_wer'],
  batch_stt: ['processing_ms p50', 'corpus_wer', 'corpus_rtfx'],
  tts: ['ttfa_ms p50', 'playback_start_ms p50', 'stall_count p50', 'gen_rtf p50', 'tts_corpus_wer'],
  s2s: ['voice_to_voice_ms p50', 'response_ttft_ms p50', 'response_ttfp_ms p50', 'stream_rtf p50'],
};

function pageData(page: string): PageData {
  const match = /<script type="application\/json" id="voxbench-data">(.*?)<\/script>/s.exec(page);
  assert.ok(match, 'the page embeds its data');
  return JSON.parse(match[1]!) as PageData;
}

/** The text of one fact of the overview (Workload, Protocol). */
function fact(page: string, term: string): string {
  const match = new RegExp(`<dt>${term}</dt><dd>(.*?)</dd>`).exec(page);
  assert.ok(match, `a ${term} fact`);
  return match[1]!;
}

/** The metric names of the definitions table. */
function defined(page: string): string[] {
  const table = /<table class="definitions">(.*?)<\/table>/s.exec(page)?.[1] ?? '';
  return [...table.matchAll(/<td><code>(\w+)<\/code><\/td>/g)].map((m) => m[1]!);
}

describe('the HTML report speaks the run task', () => {
  const reports: Record<string, Report> = {};
  let capacity: Report;
  let ttsSweep: Report;

  before(async () => {
    const [stt, batch, tts, s2s, sweep] = await Promise.all([
      run({ maxSessions: 2, pace: PACE }),
      run({ protocol: 'vllm-transcriptions', maxSessions: 2 }),
      run({ protocol: 'vllm-omni-speech-ws', maxSessions: 2 }),
      // A capacity search whose SLO names voice-to-voice: two levels, both within it.
      run({ ...DUPLEX, capacity: { by: 'concurrency', start: 1, max: 2 }, maxSessions: 2, slos: ['p95(voice_to_voice_ms)<5000'] }),
      run({ protocol: 'vllm-omni-speech-ws', sweep: [1, 2], maxSessions: 2 }),
    ]);
    ttsSweep = sweep.report;
    Object.assign(reports, { stt: stt.report, batch_stt: batch.report, tts: tts.report, s2s: s2s.report });
    capacity = s2s.report;
  });

  it('leads each page with the task headline figures, never "0.0 s of audio", and its WER where it has one', () => {
    for (const [task, report] of Object.entries(reports)) {
      assert.equal(report.config.task, task);
      const page = renderHtml(report);
      const cards = [...page.matchAll(/<div class="card-label">(.*?)<\/div>/g)].map((m) => m[1]!);
      for (const name of HEADLINE[task]!) assert.ok(cards.includes(name), `${task}: a ${name} card among ${cards.join(', ')}`);
      assert.doesNotMatch(page, /0\.0 s of audio/, task);
      // The WER section holds its table of corpus WER, not a note that there is none.
      const wer = /<section id="wer">(.*?)<\/section>/s.exec(page)?.[1] ?? '';
      assert.match(wer, /<table class="quality">/, `${task}: a WER table`);
      assert.doesNotMatch(wer, /No word error rate/, task);
    }
  });

  it('draws each speech generation figure against load once: stall_count with the headline curves, stall_ms with the playback', () => {
    const charts = Object.keys(pageData(renderHtml(ttsSweep)).charts);
    assert.ok(charts.includes('load-stall_count'), charts.join(', '));
    assert.ok(!charts.includes('load-stall_count-stalls'), charts.join(', '));
    assert.ok(charts.includes('load-stall_ms-stalls'), charts.join(', '));
  });

  it('words the workload per task: texts, characters, voice and audio produced; turns answered; uploads', () => {
    const tts = renderHtml(reports.tts!);
    assert.match(
      fact(tts, 'Workload'),
      /^bundled samples: \d+ texts, \d+ characters sent · voice the server&#39;s default · each text sent whole · 1 turn per session · [\d.]+ s of audio produced$/,
    );
    assert.doesNotMatch(fact(tts, 'Protocol'), /turn detection/);
    assert.match(tts, /<td>chars_per_s<\/td>|<code title="chars_per_s \[chars\/s\]/);
    assert.match(tts, /\d chars\/s<\/td>/, 'chars_per_s in its own unit');
    assert.doesNotMatch(tts, /final transcripts/, 'no transcript column: speech generation gets none');
    assert.match(tts, /texts checked/);

    const batch = renderHtml(reports.batch_stt!);
    assert.match(fact(batch, 'Workload'), /^bundled samples: 6 recordings, 17\.2 s of audio · each file uploaded as the dataset holds it$/);
    assert.equal(fact(batch, 'Protocol'), 'vllm-transcriptions · one request per recording');

    const s2s = renderHtml(reports.s2s!);
    assert.match(fact(s2s, 'Workload'), /1 turn per session, each answered by a response · 100 ms chunks · pace 8x$/);
    assert.match(s2s, /The server&#39;s transcripts of the user&#39;s turns/);
  });

  it("defines only the run's own metrics", () => {
    const tts = defined(renderHtml(reports.tts!));
    const stt = defined(renderHtml(reports.stt!));
    assert.ok(tts.includes('ttfa_ms') && tts.includes('tts_wer'));
    assert.ok(!tts.includes('ttft_ms') && !tts.includes('voice_to_voice_ms') && !tts.includes('audio_sent_ms'), tts.join(', '));
    assert.ok(stt.includes('ttft_ms') && !stt.includes('ttfa_ms') && !stt.includes('processing_ms'), stt.join(', '));
    assert.ok(!stt.includes('der') && !stt.includes('corpus_der'), 'no speaker figures without reference turns');
    assert.ok(stt.length < 40, `${stt.length} definitions`);
  });

  it('plots voice-to-voice, the metric the capacity search names, against load and as a distribution', () => {
    const data = pageData(renderHtml(capacity));
    const curve = data.charts['load-voice_to_voice_ms'];
    assert.ok(curve, Object.keys(data.charts).join(', '));
    assert.deepEqual(
      curve.series.map((s) => [s.label, s.x]),
      [
        ['p50', [1, 2]],
        ['p95', [1, 2]],
        ['p99', [1, 2]],
      ],
    );
    assert.ok(
      curve.rules.some((r) => r.axis === 'y' && r.value === 5000),
      'the SLO threshold',
    );
    assert.ok(
      curve.rules.some((r) => r.axis === 'x' && r.value === capacity.capacity!.answer),
      'the capacity found',
    );
    const ids = Object.keys(data.charts);
    assert.equal(
      ids.find((id) => id.startsWith('cdf-')),
      'cdf-voice_to_voice_ms',
      'the distributions lead with it',
    );
    for (const id of ids)
      assert.doesNotMatch(
        id,
        /^load-(connect_ms|start_lag_ms|session_ms)$|^cdf-(start_lag_ms|session_ms)$/,
        'no client or transport timing plotted as a headline',
      );
  });

  it('plots every metric an SLO names, in its own unit, however many there are', () => {
    const report = structuredClone(capacity);
    // Five SLOs on figures that are not headline latencies: a rate, a ratio, a count.
    report.config.slos = [
      'p95(response_rtf)<5',
      'p50(agent_stall_ms)<900',
      'p95(server_ttft_ms)<900',
      'p95(stream_ttft_ms)<9000',
      'p95(unprompted_responses)<1',
    ];
    for (const b of report.benchmarks) b.summary.slos = report.config.slos.map((slo) => ({ slo, value: 1, pass: true }));
    const data = pageData(renderHtml(report));
    for (const name of ['response_rtf', 'server_ttft_ms', 'stream_ttft_ms', 'unprompted_responses']) {
      assert.ok(data.charts[`load-${name}`], `load-${name}`);
      assert.ok(data.charts[`cdf-${name}`], `cdf-${name}`);
    }
    assert.equal(data.charts['load-response_rtf']!.y.unit, 'ratio');
    assert.deepEqual(
      data.charts['load-response_rtf']!.rules.filter((r) => r.axis === 'y').map((r) => r.value),
      [5],
    );
  });

  describe('in headless Chromium', { skip: NO_CHROMIUM }, () => {
    let browser: Browser;
    let dir: string;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'voxbench-html-tasks-'));
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('draws one page of each task: its headline cards, its WER and no empty audio', async () => {
      for (const [task, report] of Object.entries(reports)) {
        const file = join(dir, `${task}.html`);
        await writeFile(file, renderHtml(report));
        const { page, context, problems, charts } = await openOffline(browser, file);
        for (const c of charts) assert.ok(c.canvases === 1 && c.points > 0 && c.series > 0, `${task}: chart ${c.id} is drawn with data`);
        const cards = await page.locator('.card-label').allTextContents();
        for (const name of HEADLINE[task]!) assert.ok(cards.includes(name), `${task}: ${name} among ${cards.join(', ')}`);
        const text = await page.locator('main').innerText();
        assert.doesNotMatch(text, /0\.0 s of audio/, task);
        assert.ok((await page.locator('#wer table.quality tbody tr').count()) > 0, `${task}: WER rows`);
        if (task === 's2s') {
          const curve = charts.find((c) => c.id === 'load-voice_to_voice_ms');
          assert.ok(curve && curve.points > 0, 'voice-to-voice drawn against load');
        }
        if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `task-${task}.png`), fullPage: true });
        assert.deepEqual(problems, []);
        await context.close();
      }
    });
  });
});
