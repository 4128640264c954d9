import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, NO_CHROMIUM, openOffline } from './browser.js';
import { renderHtml } from '../src/report/html/index.js';
import { mergeReports } from '../src/report/merge.js';
import type { Report } from '../src/report/schema.js';
import { run } from '../src/run/run.js';

const UNPACED = { kind: 'none' } as const;

/** The markup of one section by its id. */
function section(page: string, id: string): string {
  const match = new RegExp(`<section id="${id}">(.*?)</section>`, 's').exec(page);
  assert.ok(match, `a section ${id}`);
  return match[1]!;
}

const cardsOf = (markup: string): string[] => [...markup.matchAll(/<div class="card-label">(.*?)<\/div>/g)].map((m) => m[1]!);

describe('the HTML of a merge of different tasks (--allow-mixed)', () => {
  let merged: Report;
  let page: string;

  before(async () => {
    const [stt, tts] = await Promise.all([run({ maxSessions: 2, sweep: [1, 2], pace: UNPACED }), run({ protocol: 'vllm-omni-speech-ws', maxSessions: 2 })]);
    merged = JSON.parse(JSON.stringify(mergeReports([stt.report, tts.report], ['stt-run', 'tts-run'], { allowMixed: true }))) as Report;
    page = renderHtml(merged);
  });

  it('answers and leads with headline cards per task, each part labelled with its task and levels', () => {
    const stt = section(page, 'overview-stt');
    const tts = section(page, 'overview-tts');
    assert.match(page, /<h2>Question and answer · stt<\/h2>/);
    assert.match(page, /<h2>Question and answer · tts<\/h2>/);
    assert.ok(cardsOf(stt).includes('ttft_ms p50'), cardsOf(stt).join(', '));
    assert.ok(!cardsOf(stt).some((c) => c.startsWith('ttfa_ms')), 'no speech generation figure among the transcription cards');
    for (const name of ['ttfa_ms p50', 'tts_corpus_wer']) assert.ok(cardsOf(tts).includes(name), `${name} among ${cardsOf(tts).join(', ')}`);
    assert.ok(!cardsOf(tts).some((c) => c.startsWith('ttft_ms')), 'no transcription figure among the speech generation cards');
    assert.match(tts, /<dt>Levels<\/dt><dd>tts-run: synchronous<\/dd>/);
    assert.match(tts, /At tts-run: synchronous, ttfa_ms was/);
    assert.match(stt, /<dt>Protocol<\/dt>/, 'the first run’s configuration is its part’s');
    assert.doesNotMatch(tts, /<dt>Protocol<\/dt>/, 'the transcription run’s protocol is not the speech generation part’s');
    assert.match(page, /merged from runs of different tasks \(stt, tts\): stt-run, tts-run/);
  });

  it('draws distributions, load curves, WER and definitions per task, under chart ids of their own', () => {
    const ids = [...page.matchAll(/data-chart="([^"]+)"/g)].map((m) => m[1]!);
    assert.equal(new Set(ids).size, ids.length, `chart ids are unique: ${ids.join(', ')}`);
    assert.match(section(page, 'distributions-stt'), /data-chart="stt-cdf-ttft_ms"/);
    assert.match(section(page, 'distributions-tts'), /data-chart="tts-cdf-ttfa_ms"/);
    assert.match(section(page, 'load-stt'), /data-chart="stt-load-ttft_ms"/);
    assert.match(section(page, 'load-tts'), /One load level ran/);
    assert.match(section(page, 'wer-stt'), /<table class="quality">/);
    assert.match(page, /<h2>Intelligibility · tts<\/h2>/);
    assert.match(section(page, 'definitions-tts'), /<code>ttfa_ms<\/code>/);
    assert.doesNotMatch(section(page, 'definitions-tts'), /<code>ttft_ms<\/code>/);
    assert.match(page, /<section id="playback-tts">/);
    assert.doesNotMatch(page, /<section id="playback-stt">/);
  });

  it('a report of one task keeps its sections unlabelled', () => {
    const [level] = merged.benchmarks;
    const one = renderHtml({ ...merged, benchmarks: [level!] });
    assert.match(one, /<section id="overview">/);
    assert.doesNotMatch(one, /· stt<\/h2>/);
  });

  describe('in headless Chromium', { skip: NO_CHROMIUM }, () => {
    let browser: Browser;
    let dir: string;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'voxbench-html-mixed-'));
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('shows both tasks’ headline cards under their task labels, every chart drawn', async () => {
      const file = join(dir, 'mixed.html');
      await writeFile(file, page);
      const { page: tab, context, problems, charts } = await openOffline(browser, file);
      for (const c of charts) assert.ok(c.canvases === 1 && c.points > 0 && c.series > 0, `chart ${c.id} is drawn with data`);
      assert.ok(charts.some((c) => c.id === 'stt-cdf-ttft_ms') && charts.some((c) => c.id === 'tts-cdf-ttfa_ms'), 'both tasks’ distributions');
      const headings = await tab.locator('main h2').allTextContents();
      assert.ok(headings.includes('Question and answer · stt') && headings.includes('Question and answer · tts'), headings.join(' | '));
      assert.ok((await tab.locator('#overview-stt .card-label').allTextContents()).includes('ttft_ms p50'));
      assert.ok((await tab.locator('#overview-tts .card-label').allTextContents()).includes('ttfa_ms p50'));
      assert.deepEqual(problems, []);
      await context.close();
    });
  });
});
