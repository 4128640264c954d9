import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { loadDataset } from '../src/data/load.js';
import { synthesizeConversation } from '../src/data/synth.js';
import { DEEPGRAM } from '../src/dialects/deepgram/spec.js';
import { corpusSpeakers } from '../src/metrics/diarization/session.js';
import { answerLine } from '../src/report/answer.js';
import { renderSummary } from '../src/report/console.js';
import { renderHtml } from '../src/report/html/index.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { sessionView } from '../src/views/session-view.js';
import type { HeldReport } from '../src/report/schema.js';
import type { Comparison } from '../src/report/compare-types.js';
import { run, type RunOptions } from '../src/run/run.js';
import { DEFAULT_SPEAKER_ERRORS } from '../src/server/models/speakers.js';
import { launchChromium, NO_CHROMIUM, openOffline } from './browser.js';
import { CLI, runNode, tempDir, testServer } from './helpers.js';

/** At the file's level, so the folder lasts until the file ends. */
const dir = await tempDir();
/** Set to a folder to keep the page's screenshot for a look. */
const SCREENSHOTS = process.env.VOXBENCH_SCREENSHOTS;
const INJECTED = '<img src=x onerror="window.__xss=1">';

/** The markup of a page's speakers section. */
const sectionOf = (page: string): string => /<section id="speakers">(.*?)<\/section>/s.exec(page)?.[1] ?? '';

/** A synthesized two-speaker conversation (espeak-ng, one overlap and one pause) with its RTTM. */
async function conversation(): Promise<string> {
  await writeFile(join(dir, 'talk.txt'), 'Good morning, how are you today?\nVery well, thank you for asking.\nShall we begin?\nYes, let us start.\n');
  const data = join(dir, 'set');
  await mkdir(data);
  await synthesizeConversation(join(dir, 'talk.txt'), { out: data, engine: 'espeak-ng', speakers: 2, overlapMs: 300, pauseMs: 600 });
  return data;
}
const data = await conversation();

/** A Deepgram run against the simulated server, which mislabels a share `confusion` of the words. */
async function speakerRun(confusion: number, diarization: RunOptions['diarization'], outputDir?: string): Promise<HeldReport> {
  const { samples } = await loadDataset(data);
  const server = await testServer({ references: samples, speakers: { ...DEFAULT_SPEAKER_ERRORS, confusion, boundaryMs: 0 } });
  const target = new URL(server.url).origin.replace(/^http/, 'ws');
  const { report } = await run({
    protocol: 'deepgram',
    model: DEEPGRAM.defaultModel,
    target,
    data,
    maxSessions: 2,
    pace: { kind: 'none' },
    diarization,
    ...(outputDir ? { outputDir } : {}),
  });
  return report;
}

describe('the HTML report shows who spoke when', () => {
  let report: HeldReport;
  before(async () => {
    report = await speakerRun(0.3, { collarMs: 250, collarPer: 'side' });
  });

  it('a table of DER parts, JER, word speaker error and stability with intervals, the rules in words, and a timeline per session, worst DER first', () => {
    const page = renderHtml(report);
    const section = sectionOf(page);
    const pooled = report.benchmarks[0]!.summary.diarization!;
    assert.ok(pooled.der !== null && pooled.der > 0, `confusion makes DER: ${pooled.der}`);
    for (const header of ['DER [95% CI]', 'missed', 'false alarm', 'confusion', 'JER [95% CI]', 'word speaker error [95% CI]', 'relabelled [95% CI]']) {
      assert.match(section, new RegExp(`<th title="[^"]+">${header.replace(/[[\]]/g, '\\$&')}</th>`), header);
    }
    assert.match(section, new RegExp(`<td>${(pooled.der * 100).toFixed(2)} % \\[[\\d.]+ %, [\\d.]+ %\\]</td>`), 'the corpus DER with its interval');
    assert.match(
      section,
      /Scored by the rules: collar ±250 ms around each reference boundary \(500 ms in all\); overlapped speech scored;.*; matches pyannote\.metrics DiarizationErrorRate\(collar=0\.5/,
    );
    const ders = report.benchmarks[0]!.sessions.map((s) => s.metrics.session['der']!);
    const options = [...section.matchAll(/<option value="(speakers-\d+)"( selected)?>[^<]* · #\d+ · DER ([\d.]+) %<\/option>/g)];
    assert.equal(options.length, 2, 'one timeline per scored session');
    assert.equal(options[0]![2], ' selected', 'the first is shown');
    assert.equal(options[0]![3], (Math.max(...ders) * 100).toFixed(2), 'the first is the worst DER');
  });

  it('counts the inputs the server did not label, as missed speech, in the table of the page and of summary.md', () => {
    const [first, ...rest] = report.benchmarks[0]!.sessions;
    // The first session's every word unknown (Speechmatics' UU), as a server that could not tell.
    const received = first!.timeline.received.map((e) => ({ ...e, words: e.words?.map((w) => ({ ...w, speaker: 'UU' })) }));
    const sessions = [{ ...first!, timeline: { ...first!.timeline, received } }, ...rest];
    const diarization = corpusSpeakers(sessions.map((s) => sessionView(s.timeline)));
    assert.equal(diarization?.unlabelled, 1);
    assert.ok(diarization.missed! > 0.4, `the unlabelled input is missed speech: ${diarization.missed}`);
    const unlabelled: HeldReport = {
      ...report,
      benchmarks: [{ ...report.benchmarks[0]!, sessions, summary: { ...report.benchmarks[0]!.summary, diarization } }],
    };
    assert.match(sectionOf(renderHtml(unlabelled)), /<th title="[^"]+">without labels<\/th>.*<td>2<\/td><td>1<\/td>/s);
    assert.match(renderMarkdown(unlabelled), /\| level \| inputs \| without labels \| DER \|.*\n.*\n\| synchronous \| 2 \| 1 \| /);
    assert.match(renderSummary(unlabelled), /over 2 inputs, 1 without labels \(missed speech\)/);
  });

  it('no section without speaker figures', () => {
    const plain = { ...report, benchmarks: report.benchmarks.map((b) => ({ ...b, summary: { ...b.summary, diarization: undefined } })) };
    assert.doesNotMatch(renderHtml(plain), /id="speakers"/);
  });

  describe('in headless Chromium', { skip: NO_CHROMIUM }, () => {
    let browser: Browser;
    before(async () => {
      browser = await launchChromium();
    });
    after(async () => browser?.close());

    it('draws reference and server turns as bars, with server text escaped, and switches sessions', async () => {
      // A speaker label is server text: it must not run as markup wherever the page shows it.
      const session = report.benchmarks[0]!.sessions[0]!;
      const received = session.timeline.received.map((e) => ({ ...e, words: e.words?.map((w) => ({ ...w, speaker: `${w.speaker}${INJECTED}` })) }));
      const tainted: HeldReport = {
        ...report,
        benchmarks: [
          { ...report.benchmarks[0]!, sessions: [{ ...session, timeline: { ...session.timeline, received } }, ...report.benchmarks[0]!.sessions.slice(1)] },
        ],
      };
      const file = join(dir, 'speakers.html');
      await writeFile(file, renderHtml(tainted));
      const { page, context, problems, charts } = await openOffline(browser, file);
      const shown = charts.find((c) => c.id?.startsWith('speakers-'));
      assert.ok(shown, 'the timeline is on the page');
      assert.deepEqual([shown.canvases, shown.series], [1, 4], 'two reference and two server speakers, one row each');
      assert.ok(shown.points >= 2 * 4, `a bar is two points: ${shown.points}`);
      // The bars are stroked by the page, not by uPlot: count the reference's blue and the server's amber pixels.
      const painted = await page.$eval('#speakers .chart canvas', (canvas) => {
        const c = canvas as unknown as {
          width: number;
          height: number;
          getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
        };
        const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
        let [blue, amber] = [0, 0];
        for (let i = 0; i < data.length; i += 4) {
          if (data[i] === 0x25 && data[i + 1] === 0x63 && data[i + 2] === 0xeb) blue++;
          if (data[i] === 0xd9 && data[i + 1] === 0x77 && data[i + 2] === 0x06) amber++;
        }
        return { blue, amber };
      });
      assert.ok(painted.blue > 200 && painted.amber > 200, `bars painted: ${JSON.stringify(painted)}`);
      const [first, second] = await page.locator('#speakers select option').evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value));
      await page.locator('#speakers select').selectOption(second!);
      assert.equal(await page.locator('#speakers .chart').getAttribute('data-chart'), second);
      assert.notEqual(first, second);
      await page.locator('#speakers').screenshot({ path: join(SCREENSHOTS ?? dir, 'speakers.png') });
      assert.deepEqual(problems, []);
      await context.close();
    });
  });
});

describe('report compare of two diarization runs', () => {
  it('shows the DER figures of both sides with their difference, and warns when the scoring rules differ', async () => {
    const [a, b, out] = [join(dir, 'right'), join(dir, 'confused'), join(dir, 'cmp')];
    await speakerRun(0, {}, a);
    await speakerRun(0.3, { overlap: 'skipped' }, b);
    const { code, stdout, stderr } = await runNode([CLI, 'report', 'compare', a, b, '--output-dir', out]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /corpus_der \[95% CI\]/);
    assert.match(
      stdout,
      /^warning: different speaker scoring rules: A no collar; overlapped speech scored;.*, B no collar; overlapped speech skipped;.*; their DER does not compare/m,
    );
    const comparison = JSON.parse(await readFile(join(out, 'compare.json'), 'utf8')) as Comparison;
    const der = comparison.corpus.find((c) => c.metric === 'corpus_der');
    assert.ok(der?.a && der.b && der.delta, 'corpus DER on both sides, with the difference');
    assert.ok(der.a.value < 0.001 && der.b.value > 0.05, `A right, B confused: ${der.a.value} → ${der.b.value}`);
    for (const name of [
      'corpus_der_missed',
      'corpus_der_false_alarm',
      'corpus_der_confusion',
      'corpus_jer',
      'corpus_word_speaker_error',
      'corpus_speaker_relabelled',
    ]) {
      assert.ok(
        comparison.corpus.some((c) => c.metric === name && c.a !== null && c.b !== null),
        name,
      );
    }
    assert.ok(
      comparison.metrics.some((m) => m.metric === 'der'),
      'the per-session DER side by side',
    );
    assert.match(await readFile(join(out, 'compare.html'), 'utf8'), /corpus_der_confusion/);
  });
});

describe('a run that scores speakers leads with it', () => {
  it('the answer line, the cards and summary.md give DER and word speaker error before any latency', async () => {
    const report = await speakerRun(0.3, undefined);
    const { diarization } = report.benchmarks[0]!.summary;
    const der = `${(diarization!.der! * 100).toFixed(2)}%`;
    assert.match(
      answerLine(report),
      new RegExp(`^At one session at a time: DER ${der} \\(95% CI [\\d.]+% to [\\d.]+%\\), word speaker error [\\d.]+%.*; ttft_ms p50`),
    );
    assert.match(renderSummary(report), /^At one session at a time: DER /);
    const cards = [...renderHtml(report).matchAll(/<div class="card-label">([^<]+)<\/div>/g)].map((m) => m[1]);
    assert.deepEqual(cards.slice(0, 3), ['DER', 'word speaker error', 'ttft_ms p50']);
    const markdown = renderMarkdown(report);
    const [speakers, levels] = [markdown.indexOf('| level | inputs | without labels | DER |'), markdown.indexOf('| level | sessions |')];
    assert.ok(speakers > 0 && speakers < levels, 'the speaker table comes before the latencies');
  });
});
