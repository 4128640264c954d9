import assert from 'node:assert/strict';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { distributionSummary, DUPLEX_METRICS_FILENAME, mergeDuplexMetrics } from '../src/report/duplex-metrics.js';
import { ReportError } from '../src/report/recompute.js';
import { run } from '../src/run/run.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { loadDataset } from '../src/data/load.js';
import { vllmOmniDuplexDialect } from '../src/dialects/vllm-omni-duplex/client.js';
import { NO_PADDING, prepareSample } from '../src/session/prepare.js';
import { FIXTURES, tempDir, testServer } from './helpers.js';

/** A duplex_metrics.json written by hand in vLLM-Omni's shape: two keyed samples and one row from before keys existed. */
const FIXTURE = join(FIXTURES, 'duplex_metrics.vllm-omni.json');

describe('duplex_metrics.json', () => {
  it("summarizes as vLLM-Omni's distribution_summary: finite non-negative values, nearest rank, rounded", () => {
    assert.deepEqual(distributionSummary([5, 1, 3, Number.NaN, -1, Infinity, 2, 4, '7', null]), { count: 5, mean: 3, p50: 3, p99: 5 });
    assert.deepEqual(distributionSummary([0.1234567, 0.2], 6), { count: 2, mean: 0.161728, p50: 0.123457, p99: 0.2 });
    assert.equal(distributionSummary([-1, Number.NaN]), null);
  });

  it('merges into an existing file by (split, sample_id): a matching row is replaced, a keyless one kept, and every summary recomputed', async () => {
    const path = join(await tempDir(), DUPLEX_METRICS_FILENAME);
    await copyFile(FIXTURE, path);
    const identity = { split: 'RTD_counting', sample_id: 'b', session_id: 'new-b' };
    const merged = await mergeDuplexMetrics(path, {
      requests: [{ ...identity, request_index: 0, ttft_ms: 600, ttfp_ms: 700, rtf: 0.6, client_ttft_ms: 580, client_ttfp_ms: 680 }],
      sessions: [{ ...identity, audio_turn_count: 1, stream_ttft_ms: 1600, stream_ttfp_ms: 1700, stream_rtf: 0.75 }],
    });
    assert.deepEqual(
      merged.duplex_request_metrics.map((r) => r.session_id),
      ['s-a', 's-old', 'new-b'],
    );
    assert.deepEqual(
      merged.duplex_session_metrics.map((r) => r.session_id),
      ['s-a', 's-old', 'new-b'],
    );
    assert.deepEqual(merged.duplex_stream_ttft_ms, { count: 3, mean: 1333.333, p50: 1400, p99: 1600 });
    assert.deepEqual(merged.duplex_stream_ttfp_ms, { count: 3, mean: 1433.333, p50: 1500, p99: 1700 });
    assert.deepEqual(merged.duplex_stream_rtf, { count: 2, mean: 1, p50: 0.75, p99: 1.25 }, 'the null stream_rtf is left out');
    const aggregates = Object.fromEntries(Object.entries(merged).filter(([k]) => /^(num|mean|median|p99)_duplex_/.test(k)));
    assert.deepEqual(aggregates, {
      num_duplex_response_ttft_ms: 3,
      mean_duplex_response_ttft_ms: 400,
      median_duplex_response_ttft_ms: 400,
      p99_duplex_response_ttft_ms: 600,
      num_duplex_response_ttfp_ms: 3,
      mean_duplex_response_ttfp_ms: 500,
      median_duplex_response_ttfp_ms: 500,
      p99_duplex_response_ttfp_ms: 700,
      num_duplex_client_ttft_ms: 3,
      mean_duplex_client_ttft_ms: 383.333,
      median_duplex_client_ttft_ms: 380,
      p99_duplex_client_ttft_ms: 580,
      num_duplex_client_ttfp_ms: 3,
      mean_duplex_client_ttfp_ms: 483.333,
      median_duplex_client_ttfp_ms: 480,
      p99_duplex_client_ttfp_ms: 680,
    });
  });

  it('refuses a file that is not one, naming it and the field, rather than overwriting it', async () => {
    const dir = await tempDir();
    const path = join(dir, DUPLEX_METRICS_FILENAME);
    const none = { requests: [], sessions: [] };
    await writeFile(path, '{"duplex_request_metrics": {"a": 1}}');
    await assert.rejects(
      mergeDuplexMetrics(path, none),
      (err: Error) => err instanceof ReportError && err.message === `${path}: "duplex_request_metrics" must be a JSON list`,
    );
    await writeFile(path, '{"duplex_session_metrics": [1]}');
    await assert.rejects(mergeDuplexMetrics(path, none), /"duplex_session_metrics" entries must be JSON objects/);
    await writeFile(path, '[1, 2');
    await assert.rejects(mergeDuplexMetrics(path, none), /is not JSON; move it away or fix it/);
  });

  it('a speech-to-speech run writes it beside the report, keeping the rows of the file it finds there', async () => {
    const server = await testServer({ latency: { ...DEFAULT_LATENCY, generationRtf: 0.1 } });
    const dir = await tempDir();
    await copyFile(FIXTURE, join(dir, DUPLEX_METRICS_FILENAME));
    const { written: files } = await run({
      target: server.url,
      protocol: 'vllm-omni-duplex',
      model: 'openbmb/MiniCPM-o-4_5',
      maxSessions: 2,
      pace: { kind: 'realtime', speed: 8 },
      outputDir: dir,
    });
    assert.ok(files.includes(join(dir, DUPLEX_METRICS_FILENAME)));
    const written = JSON.parse(await readFile(join(dir, DUPLEX_METRICS_FILENAME), 'utf8')) as Record<string, Array<Record<string, unknown>>>;
    const requests = written.duplex_request_metrics!;
    assert.deepEqual(
      requests.map((r) => [r.split ?? null, r.sample_id ?? null]),
      [
        ['RTD_counting', 'a'],
        ['RTD_counting', 'b'],
        [null, null],
        ['default', 'harvard-01'],
        ['default', 'harvard-02'],
      ],
    );
    for (const row of requests.slice(3)) {
      assert.ok((row.ttfp_ms as number) > 0 && (row.client_ttfp_ms as number) > 0 && (row.rtf as number) > 0);
      assert.deepEqual(Object.keys(row.measurement_origin as object), ['ttft', 'ttfp', 'rtf']);
    }
    assert.equal(written.duplex_session_metrics!.length, 5);
    const count = (key: string): number => (written[key] as unknown as { count: number }).count;
    assert.equal(count('duplex_stream_ttft_ms'), 5, 'recomputed over the kept rows and the new ones');
    assert.equal(count('duplex_stream_rtf'), 4, 'the keyless row has none');
  });
});

describe('duplex datasets', () => {
  it("send a row's own instructions and reference voice in its session's session.update", async () => {
    const dir = await tempDir();
    const manifest = join(dir, 'duplex.jsonl');
    const voice = join(BUNDLED_SAMPLES_DIR, 'harvard-06.wav');
    await writeFile(
      manifest,
      `${JSON.stringify({ id: 'q1', question_audio: join(BUNDLED_SAMPLES_DIR, 'harvard-01.wav'), instructions: 'Count the birds.', ref_audio: voice })}\n`,
    );
    const { samples } = await loadDataset(manifest);
    const dialect = vllmOmniDuplexDialect({ model: 'm', turnDetection: { type: 'none' }, instructions: 'Be brief.' });
    const { first } = await prepareSample(samples[0]!, dialect, 100, NO_PADDING, 'auto');
    const { session } = JSON.parse(dialect.sessionFrames(first)[0]!) as { session: { instructions?: string; ref_audio?: string } };
    assert.equal(session.instructions, 'Count the birds.', "the row's instructions win over the run's");
    assert.equal(session.ref_audio, `data:audio/wav;base64,${(await readFile(voice)).toString('base64')}`);
    assert.equal((JSON.parse(dialect.sessionFrames()[0]!) as { session: { instructions?: string } }).session.instructions, 'Be brief.');
    await writeFile(manifest, `${JSON.stringify({ id: 'q1', question_audio: join(BUNDLED_SAMPLES_DIR, 'harvard-01.wav'), ref_audio: 'missing.wav' })}\n`);
    // A reference voice that cannot be read skips its row when the dataset loads, as missing audio does.
    await assert.rejects(loadDataset(manifest), /duplex\.jsonl line 1: the reference audio file .*missing\.wav does not exist\)$/);
  });

  it("read vLLM-Omni's eval rows (sample_id, split, question_audio, question_text), and tag the metric rows with them", async () => {
    const dir = await tempDir();
    const manifest = join(dir, 'duplex.jsonl');
    const row = (id: string, clip: string) =>
      JSON.stringify({
        sample_id: id,
        split: 'RTD_counting',
        family: 'rtd',
        question_audio: join(BUNDLED_SAMPLES_DIR, `${clip}.wav`),
        question_text: 'How many?',
      });
    await writeFile(manifest, `${row('q1', 'harvard-01')}\n${row('q2', 'harvard-02')}\n`);
    const server = await testServer({ latency: { ...DEFAULT_LATENCY, generationRtf: 0.1 } });
    const { report } = await run({
      target: server.url,
      protocol: 'vllm-omni-duplex',
      model: 'openbmb/MiniCPM-o-4_5',
      data: manifest,
      pace: { kind: 'realtime', speed: 8 },
      outputDir: dir,
    });
    assert.deepEqual(
      report.benchmarks[0]!.sessions.map((s) => [s.split, s.sampleIds[0], s.outcome.status]),
      [
        ['RTD_counting', 'q1', 'completed'],
        ['RTD_counting', 'q2', 'completed'],
      ],
    );
    const written = JSON.parse(await readFile(join(dir, DUPLEX_METRICS_FILENAME), 'utf8')) as { duplex_session_metrics: Array<Record<string, unknown>> };
    assert.deepEqual(
      written.duplex_session_metrics.map((r) => [r.split, r.sample_id]),
      [
        ['RTD_counting', 'q1'],
        ['RTD_counting', 'q2'],
      ],
    );
  });
});
