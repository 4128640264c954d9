import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { loadDataset } from '../src/data/load.js';
import { synthesizeConversation } from '../src/data/synth.js';
import { DEEPGRAM } from '../src/dialects/deepgram/spec.js';
import { renderHtml } from '../src/report/html/index.js';
import type { Report } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import { launchChromium, NO_CHROMIUM, openOffline } from './browser.js';
import { tempDir, testServer } from './helpers.js';

/** At the file's level, so the folder lasts until the file ends. */
const dir = await tempDir();
/** Set to a folder to keep the page's screenshot for a look. */
const SCREENSHOTS = process.env.VOXBENCH_SCREENSHOTS;
const INJECTED = '<img src=x onerror="window.__xss=1">';

/** The text of a page's speakers section, tags stripped. */
const sectionOf = (page: string): string => /<section id="speakers">(.*?)<\/section>/s.exec(page)?.[1] ?? '';

describe('the HTML report shows who spoke when', () => {
  let report: Report;
  before(async () => {
    await writeFile(join(dir, 'talk.txt'), 'Good morning, how are you today?\nVery well, thank you for asking.\nShall we begin?\nYes, let us start.\n');
    const data = join(dir, 'set');
    await mkdir(data);
    await synthesizeConversation(join(dir, 'talk.txt'), { out: data, engine: 'espeak-ng', speakers: 2, overlapMs: 300, pauseMs: 600 });
    const { samples } = await loadDataset(data);
    const server = await testServer({ references: samples, speakers: { confusion: 0.3, boundaryMs: 0 } });
    const target = new URL(server.url).origin.replace(/^http/, 'ws');
    ({ report } = await run({
      protocol: 'deepgram',
      model: DEEPGRAM.defaultModel,
      target,
      data,
      maxSessions: 2,
      pace: { kind: 'none' },
      diarization: { collarMs: 250, collarPer: 'side' },
    }));
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
      const tainted: Report = {
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
