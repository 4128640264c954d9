import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { answerLine } from '../src/report/answer.js';
import { compareReports, renderComparison } from '../src/report/compare.js';
import { renderSummary } from '../src/report/console.js';
import { renderCsv } from '../src/report/csv.js';
import { cellText, figureText } from '../src/report/figure-text.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { mergeReports } from '../src/report/merge.js';
import { headlineLatencies } from '../src/report/picks.js';
import type { Report } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import { CLI, runNode, tempDir } from './helpers.js';

const UNPACED = { kind: 'none' } as const;
const head = (file: string): string[] => file.split('\r\n')[0]!.split(',');

/** Reports of one small unpaced run of each task on the built-in server, made once. */
const reports: Record<'stt' | 'tts' | 'batch' | 's2s', Report> = {} as Record<'stt' | 'tts' | 'batch' | 's2s', Report>;
const sttDir = await tempDir();

before(async () => {
  const [stt, tts, batch, s2s] = await Promise.all([
    run({ maxSessions: 2, sweep: [1, 2], pace: UNPACED, outputDir: sttDir }),
    run({ protocol: 'vllm-omni-speech-ws', maxSessions: 2 }),
    run({ protocol: 'vllm-transcriptions', maxSessions: 2 }),
    run({ protocol: 'vllm-omni-duplex', maxSessions: 2, pace: UNPACED }),
  ]);
  // As every output gets a report: read back from its JSON.
  const fresh = (r: Report): Report => JSON.parse(JSON.stringify(r)) as Report;
  Object.assign(reports, { stt: fresh(stt.report), tts: fresh(tts.report), batch: fresh(batch.report), s2s: fresh(s2s.report) });
});

describe('the console leads with the answer, in the task’s headline metric', () => {
  it('speech generation: the answer names its first headline latency and its intelligibility WER; texts, not turns or chunks', () => {
    const report = reports.tts;
    const first = headlineLatencies(report)[0]!.name;
    const text = renderSummary(report);
    const [answer] = text.split('\n');
    assert.match(
      answer!,
      new RegExp(`^At one session at a time: ${first} p50 \\d+(\\.\\d)? ms, p95 \\d+(\\.\\d)? ms; tts_corpus_wer \\d+\\.\\d\\d%; 0 of 2 sessions failed\\.$`),
    );
    assert.match(text, /data bundled samples \(6 texts\) · voice the server's default · text sent whole$/m);
    assert.match(text, /^texts 2 · \d+ characters · \d+\.\d s of audio produced$/m);
    assert.match(text, /^quality: intelligibility tts_corpus_wer \d+\.\d\d%/m);
    assert.doesNotMatch(text, /chunk \d+ ms|^turns |with a final transcript/m);
  });

  it('batch transcription: uploads, with no chunk size or pace', () => {
    const text = renderSummary(reports.batch);
    assert.match(text.split('\n')[0]!, /^At one session at a time: \w+_ms p50 .*; corpus WER 0\.00%; 0 of 2 sessions failed\.$/);
    assert.match(text, /^uploads 2 · 2 with a final transcript$/m);
    assert.doesNotMatch(text, /chunk|pace|boundaries from/);
  });

  it('speech to speech: turns and the responses that answered them, and the turns’ corpus WER in the answer and in Markdown', () => {
    const report = reports.s2s;
    const text = renderSummary(report);
    assert.match(
      text.split('\n')[0]!,
      new RegExp(`^At one session at a time: ${headlineLatencies(report)[0]!.name} p50 .*; corpus WER 0\\.00%; 0 of 2 sessions failed\\.$`),
    );
    assert.match(text, /^turns 2 · 2 with a final transcript · 2 responses · boundaries from client commits/m);
    assert.match(renderMarkdown(report), /^\| synchronous \| 2 \| 2 \| 0 \| 0\.0% \|.* \| 0\.0% \[0\.0%, 0\.0%\] \| {2}\|$/m);
  });

  it('an SLO’s metric is the answer’s figure, with the verdict', () => {
    const report: Report = { ...reports.stt, config: { ...reports.stt.config, slos: ['p95(word_emission_ms)<1'] } };
    report.benchmarks = report.benchmarks.map((b) => ({
      ...b,
      summary: { ...b.summary, slos: [{ slo: 'p95(word_emission_ms)<1', value: 150, pass: false }] },
    }));
    assert.match(answerLine(report), /^At 2 concurrent sessions: word_emission_ms p50 .*; SLO FAIL: p95\(word_emission_ms\)<1\.$/);
  });

  it('no session completed: the answer says so, with the commonest failure', () => {
    const [level] = reports.stt.benchmarks;
    const failure = { class: 'connect_refused', stage: 'connect', message: 'refused', count: 2 } as Report['benchmarks'][number]['summary']['failures'][number];
    const summary = { ...level!.summary, sessions: { total: 2, completed: 0, failed: 2, incomplete: 0 }, failures: [failure] };
    assert.equal(
      answerLine({ ...reports.stt, benchmarks: [{ ...level!, summary }] }),
      'No session completed: 2 failed, 0 cut short; most often connect_refused at connect: refused.',
    );
  });
});

describe('Markdown and CSV per task', () => {
  it('speech generation: its WER, no seconds of input audio, no transcription columns, no column without a value', () => {
    const report = reports.tts;
    const markdown = renderMarkdown(report);
    assert.doesNotMatch(markdown, /0\.0 s|chunk \d+ ms|turn\(s\)/);
    assert.match(markdown, /\| WER \(tts_corpus_wer\) \| SLOs \|\n/);
    assert.match(markdown, /^\| synchronous \| 2 \| 2 \| 0 \| 0\.0% \|.* \| \d+\.\d% \| {2}\|$/m, 'the WER cell holds a figure');
    assert.match(markdown, /^\*\*Answer:\*\* At one session at a time: /m);
    const csv = renderCsv(report);
    const turns = head(csv['turns.csv']!);
    for (const column of ['eos_source', 'finalized', 'transcript', 'reference', 'ftts_ms [ms]'])
      assert.ok(!turns.includes(column), `turns.csv has no ${column}`);
    assert.deepEqual(turns.slice(8, 10), ['text', 'round_trip_transcript']);
    assert.ok(turns.includes('tts_wer [ratio]'));
    assert.ok(!head(csv['levels.csv']!).some((c) => c.startsWith('ftts_ms')), 'levels.csv has no ftts_ms: no text was streamed');
    assert.match(csv['turns.csv']!.split('\r\n')[1]!, /,The birch canoe slid on the smooth planks\., ?the birch canoe slid on the smooth planks,/);
  });

  it('streaming transcription keeps its transcript columns', () => {
    const turns = head(renderCsv(reports.stt)['turns.csv']!);
    assert.deepEqual(turns.slice(8, 12), ['eos_source', 'finalized', 'transcript', 'reference']);
    assert.ok(!turns.includes('text'));
  });

  it('a mixed merge shows each part by its own task, labelled, in the console, Markdown and CSV', () => {
    const merged = JSON.parse(JSON.stringify(mergeReports([reports.stt, reports.tts], ['a', 'b'], { allowMixed: true }))) as Report;
    const text = renderSummary(merged);
    assert.match(text.split('\n')[0]!, /^stt: at 2 concurrent sessions: ttft_ms .* tts: at one session at a time: \w+_ms p50 .*tts_corpus_wer/);
    assert.match(text, /merged from runs of different tasks \(stt, tts\): a, b/);
    assert.match(text, /^b: synchronous \[tts\]: 2 sessions/m);
    assert.match(text, /^texts 2 · /m, 'the speech generation part in its own words');
    assert.match(text, /^stt levels:$/m);
    assert.match(text, /^tts levels:$/m);
    const markdown = renderMarkdown(merged);
    const tts = markdown.slice(markdown.indexOf('### tts'));
    assert.match(tts, /ttfa_ms p50 \/ p95 \(ms\)/);
    assert.doesNotMatch(tts, /ttft_ms/);
    assert.match(markdown.slice(markdown.indexOf('### stt'), markdown.indexOf('### tts')), /ttft_ms p50 \/ p95/);
    const turns = head(renderCsv(merged)['turns.csv']!);
    assert.ok(turns.includes('finalized') && turns.includes('text') && turns.includes('ttfa_ms [ms]') && turns.includes('ttft_ms [ms]'));
  });
});

describe('--percentiles in the tables', () => {
  it('the levels table of a sweep shows the statistics chosen', () => {
    const text = renderSummary(reports.stt, { statistics: ['p50', 'p99'] });
    const levels = text.split('\n').find((line) => line.startsWith('level '))!;
    assert.match(levels, /p50 ttft_ms +p99 ttft_ms/);
    assert.doesNotMatch(levels, /p95/);
  });

  it('report render takes --percentiles, and says how to get the page it was told not to write', async () => {
    const out = await tempDir();
    const result = await runNode([CLI, 'report', 'render', sttDir, '--output-dir', out, '--outputs', 'json', '--percentiles', 'p50,p99.9']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^metric +unit +count +p50 +p99\.9$/m);
    assert.match(
      result.stdout,
      new RegExp(`^No page written \\(--outputs left html out\\); to write it: npx voxbench report render ${out} --outputs html$`, 'm'),
    );
    const bad = await runNode([CLI, 'report', 'merge', sttDir, '--output-dir', out, '--percentiles', 'p0']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--percentiles takes a comma-separated list/);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  });

  it('report compare shows the statistics chosen instead of p50 and p95, the difference still of the medians', () => {
    const text = renderComparison(compareReports(reports.stt, reports.stt, undefined, ['p90', 'max']));
    assert.match(text, /^metric +unit +p90 A → B +max A → B +Δ p50 +95% CI +B is$/m);
    assert.match(renderComparison(compareReports(reports.stt, reports.stt)), /^metric +unit +p50 A → B +p95 A → B +Δ p50 /m);
  });

  it('a run writes report.html by default', async () => {
    await readFile(join(sttDir, 'report.html'), 'utf8');
  });
});

describe('figures by the catalog’s unit', () => {
  it('formats a unit it has no case for as a rate, with the unit written', () => {
    assert.equal(figureText(41.5855, 'chars/s'), '41.59 chars/s');
    assert.equal(cellText(41.5855, 'chars/s'), '41.59');
    assert.equal(figureText(166.4, 'ms'), '166 ms');
    assert.equal(figureText(16.44, 'ms'), '16.4 ms');
    assert.equal(figureText(0.2912, 'ratio'), '0.291');
    assert.equal(cellText(2.6, 'count'), '3');
  });
});
