import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { METRICS } from '../src/metrics/catalog.js';
import { DIARIZATION_METRICS } from '../src/metrics/catalog/diarization.js';
import { readReport } from '../src/report/recompute.js';
import { REPORT_VERSION } from '../src/report/schema.js';

const FIXTURES = new URL('../../test/fixtures/report-v1/', import.meta.url);

/** Metrics added after version 1: none of these servers misbehaved, so each is 0, and every other figure is as version 1 computed it. */
const SINCE_V1 = ['protocol_anomalies'];
/** Quality figures added after version 1, which have values on these reports; `wer.test.ts` and `quality.test.ts` check them. */
const QUALITY_SINCE_V1 = ['cer', 'word_substitutions', 'word_deletions', 'word_insertions'];
/** Metrics added after version 1 for requests (batch transcription): a stream has none of them. */
const BATCH_ONLY = ['upload_ms', 'processing_ms', 'server_processing_ms'];
/** Metrics added after version 1 for speech generation only: a transcription report measures none of them. */
const SPEECH_ONLY = METRICS.filter((m) => m.tasks.every((t) => t === 'tts' || t === 'batch_tts')).map((m) => m.name);

/** Metrics added after version 1 that need reference speaker turns: these datasets have none. */
const SPEAKERS_ONLY = DIARIZATION_METRICS.map((m) => m.name);
/** Metrics added after version 1 that count refused session updates: these sessions sent none. */
const UPDATES_ONLY = ['updates_refused'];

/** The figures version 1 had, after checking that each added one is 0. */
function v1Figures(values: Record<string, unknown>, what: string): Record<string, unknown> {
  for (const name of SINCE_V1) {
    const value = values[name];
    assert.ok(value === 0 || (value as { max?: unknown } | undefined)?.max === 0, `${name} of ${what} is 0`);
  }
  for (const name of [...BATCH_ONLY, ...SPEECH_ONLY, ...SPEAKERS_ONLY, ...UPDATES_ONLY])
    assert.ok(values[name] === undefined || values[name] === null, `${name} of ${what} is not measured`);
  return withoutNewQuality(
    Object.fromEntries(
      Object.entries(values).filter(([name]) => ![...SINCE_V1, ...BATCH_ONLY, ...SPEECH_ONLY, ...SPEAKERS_ONLY, ...UPDATES_ONLY].includes(name)),
    ),
  );
}

function withoutNewQuality(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([name]) => !QUALITY_SINCE_V1.includes(name)));
}

/** The fields of `value` that `old` has: what version 1 summarized, without what was added since. */
function fieldsOf(value: unknown, old: unknown): unknown {
  return Object.fromEntries(Object.keys(old as object).map((key) => [key, (value as Record<string, unknown>)[key]]));
}

interface V1Report {
  version: number;
  benchmarks: Array<{
    summary: { metrics: unknown; sessions: unknown; turns: unknown; quality: unknown; throughput: unknown; errorRate: unknown };
    sessions: Array<{ index: number; metrics: { session: unknown; turns: unknown[] } }>;
  }>;
}

describe('version 1 reports', () => {
  for (const name of ['vllm-client-commits.json', 'openai-server-vad.json']) {
    it(`render to the figures the version 1 code computed: ${name}`, async () => {
      const path = new URL(name, FIXTURES);
      const v1 = JSON.parse(await readFile(path, 'utf8')) as V1Report;
      assert.equal(v1.version, 1);
      const report = await readReport(path.pathname);
      assert.equal(report.version, REPORT_VERSION);
      assert.equal(report.config.task, 'stt');
      assert.equal(report.benchmarks.length, v1.benchmarks.length);
      report.benchmarks.forEach((b, i) => {
        const old = v1.benchmarks[i]!;
        assert.deepEqual(v1Figures(b.summary.metrics, b.label), old.summary.metrics, `summary.metrics of ${b.label}`);
        for (const key of ['sessions', 'turns', 'quality', 'throughput', 'errorRate'] as const) {
          assert.deepEqual(
            key === 'quality' ? fieldsOf(b.summary.quality, old.summary.quality) : b.summary[key],
            old.summary[key],
            `summary.${key} of ${b.label}`,
          );
        }
        assert.deepEqual(b.summary.anomalies, { sessions: 0, reasons: {} }, `summary.anomalies of ${b.label}`);
        b.sessions.forEach((s, j) => {
          assert.deepEqual(v1Figures(s.metrics.session, `session ${s.index}`), old.sessions[j]!.metrics.session, `session ${s.index}`);
          assert.deepEqual(s.metrics.inputs.map(withoutNewQuality), old.sessions[j]!.metrics.turns, `turns of session ${s.index}`);
        });
      });
    });
  }
});
