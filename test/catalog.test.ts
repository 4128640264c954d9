import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ANCHORS } from '../src/metrics/anchors.js';
import { addMetric, metricByName, metricsFor } from '../src/metrics/catalog.js';
import { parseSlo } from '../src/metrics/slo.js';
import { renderSummary } from '../src/report/console.js';
import { renderCsv } from '../src/report/csv.js';
import { renderHtml } from '../src/report/html/index.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { run } from '../src/run/run.js';
import { sharedTarget } from './helpers.js';

// What these tests check of a run's report does not depend on where the server runs (see sharedTarget).
const LOCAL = await sharedTarget();

describe('the metric catalog drives every output', () => {
  it('a metric added as one entry appears in the console, CSV, Markdown, HTML and SLOs', async () => {
    const remove = addMetric({
      name: 'eos_to_first_text_ms',
      unit: 'ms',
      scope: 'input',
      tasks: ['stt'],
      tags: ['headline', 'latency'],
      better: 'lower',
      from: ANCHORS.input.eos_sent,
      to: ANCHORS.input.transcript_first_text,
      description: 'A metric only this test defines.',
    });
    after(remove);
    const { report } = await run({ ...LOCAL, maxSessions: 2, pace: { kind: 'realtime', speed: 8 }, slos: ['p95(eos_to_first_text_ms)<100000'] });
    const summary = report.benchmarks[0]!.summary;
    assert.ok(summary.metrics.eos_to_first_text_ms, 'summarized');
    assert.deepEqual(
      summary.slos.map((s) => [s.slo, s.pass]),
      [['p95(eos_to_first_text_ms)<100000', true]],
    );
    assert.match(renderSummary(report), /^eos_to_first_text_ms\s+ms\s+2\s/m);
    const csv = renderCsv(report);
    assert.ok(csv['turns.csv']!.split('\r\n')[0]!.includes('eos_to_first_text_ms [ms]'));
    assert.ok(csv['levels.csv']!.split('\r\n')[0]!.includes('eos_to_first_text_ms p50 [ms]'));
    assert.match(renderMarkdown(report), /eos_to_first_text_ms p50 \/ p95 \(ms\)/);
    const page = renderHtml(report);
    assert.match(page, /title="eos_to_first_text_ms \[ms\]: from end of speech/, 'charted with its definition as the tooltip');
    assert.match(page, /A metric only this test defines\./);
    remove();
    assert.equal(metricByName('eos_to_first_text_ms'), undefined);
    assert.throws(() => parseSlo('p95(eos_to_first_text_ms)<1'), /eos_to_first_text_ms/);
  });

  it('gives each task its own headline figures, in the order people read them, and each rate its unit', () => {
    const headline = (task: Parameters<typeof metricsFor>[0]) => metricsFor(task, 'headline').map((m) => m.name);
    // Streaming STT: first partial, finalization, commit-to-flush, word emission, WER.
    assert.deepEqual(headline('stt'), ['ttft_ms', 'finalization_ms', 'commit_to_flush_ms', 'word_emission_ms', 'wer', 'corpus_wer']);
    // Batch: processing time, WER, RTFx; ttft_ms is a batch metric, but not its headline.
    assert.deepEqual(headline('batch_stt'), ['processing_ms', 'wer', 'corpus_wer', 'corpus_rtfx']);
    assert.ok(metricsFor('batch_stt').some((m) => m.name === 'ttft_ms'));
    // Speech generation: TTFA, playback start, stalls, generation RTF, intelligibility WER.
    assert.deepEqual(headline('tts'), ['ttfa_ms', 'playback_start_ms', 'stall_count', 'gen_rtf', 'tts_wer', 'tts_corpus_wer']);
    // One body (--stream-format none): its first audio is its last, so it leads with its total time.
    assert.deepEqual(headline('batch_tts'), ['total_ms', 'gen_rtf', 'tts_wer', 'tts_corpus_wer']);
    // Speech to speech: voice-to-voice, response TTFT and TTFP, stream RTF, barge-in reaction; its turns' corpus WER is a figure, not a headline.
    assert.deepEqual(headline('s2s'), ['voice_to_voice_ms', 'response_ttft_ms', 'response_ttfp_ms', 'stream_rtf', 'barge_in_stop_ms']);
    assert.ok(metricsFor('s2s', 'quality').some((m) => m.name === 'corpus_wer'));
    assert.equal(metricByName('chars_per_s')!.unit, 'chars/s');
    assert.ok(!metricsFor('tts').some((m) => m.name === 'audio_sent_ms'), 'speech generation streams no audio');
  });
});
