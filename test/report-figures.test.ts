import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { duplexReport, duplexRows } from '../src/report/duplex-metrics.js';
import { readReport } from '../src/report/recompute.js';
import type { Report } from '../src/report/schema.js';

/**
 * A refactoring of the metrics must not move a figure. Each fixture is a small run of
 * one task against the built-in server (see its README); `report render` of it must
 * give every figure it stored, exactly, and speech to speech the same
 * `duplex_metrics.json`. Metrics added later are not in the fixtures, so only the
 * stored ones are compared.
 */
const FIXTURES = new URL('../../test/fixtures/report-figures/', import.meta.url);
const TASKS = ['stt', 'batch_stt', 'tts', 'batch_tts', 's2s', 's2s-client'];

const read = async (name: string): Promise<unknown> => JSON.parse(await readFile(new URL(name, FIXTURES), 'utf8'));

/** `actual`'s values of the names `stored` has. */
const named = (actual: object, stored: object): Record<string, unknown> =>
  Object.fromEntries(Object.keys(stored).map((name) => [name, (actual as Record<string, unknown>)[name]]));

describe('stored figures', () => {
  for (const task of TASKS) {
    it(`recomputes every figure of the ${task} fixture as stored`, async () => {
      const stored = (await read(`${task}.json`)) as Report;
      const report = await readReport(new URL(`${task}.json`, FIXTURES).pathname);
      assert.equal(report.benchmarks.length, stored.benchmarks.length);
      report.benchmarks.forEach((benchmark, b) => {
        const { metrics, corpus, ...rest } = stored.benchmarks[b]!.summary;
        assert.deepEqual(named(benchmark.summary.metrics, metrics), metrics, `${task}: summary metrics`);
        assert.deepEqual(named(benchmark.summary.corpus, corpus), corpus, `${task}: corpus metrics`);
        assert.deepEqual(named(benchmark.summary, rest), rest, `${task}: the rest of the summary`);
        benchmark.sessions.forEach((session, s) => {
          const want = stored.benchmarks[b]!.sessions[s]!.metrics;
          assert.deepEqual(named(session.metrics.session, want.session), want.session, `${task}: session ${s}`);
          assert.deepEqual(
            session.metrics.inputs.map((values, i) => named(values, want.inputs[i]!)),
            want.inputs,
            `${task}: inputs of session ${s}`,
          );
          assert.deepEqual(
            session.metrics.responses.map((values, i) => named(values, want.responses[i]!)),
            want.responses,
            `${task}: responses of session ${s}`,
          );
        });
      });
      if (stored.config.task === 's2s') {
        const { requests, sessions } = duplexRows(report);
        assert.deepEqual(duplexReport(requests, sessions), await read(`${task}.duplex_metrics.json`));
      }
    });
  }
});
