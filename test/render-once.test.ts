import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { metricsOfScope } from '../src/metrics/catalog.js';
import { computeSessionMetrics, poolMetricValues, poolValues, sessionValues } from '../src/metrics/compute.js';
import { eachSamples } from '../src/metrics/sample-store.js';
import { normalizerById } from '../src/metrics/normalizers/index.js';
import { transcriptErrorsOf } from '../src/metrics/quality.js';
import { transcriptErrors } from '../src/metrics/wer.js';
import { digest } from '../src/report/build.js';
import { csvFiles, renderCsv } from '../src/report/csv.js';
import { storedValues } from '../src/report/html/metrics.js';
import { readHeldReport } from '../src/report/recompute.js';
import type { SessionTimeline } from '../src/timeline/types.js';
import { sessionView } from '../src/views/session-view.js';
import { FIXTURES } from './helpers.js';

/**
 * Work `report render` does once per session, or once per distinct text, rather than once
 * per figure or output (issue 38), on the stored transcription run: every way of getting
 * a value must give what measuring it afresh gives.
 */
const STT = join(FIXTURES, 'report-figures', 'stt.json');

describe('rendering measures once', () => {
  it("pools each session's values, measured once, as poolMetricValues pools the timelines, and stores the same metrics", async () => {
    const report = await readHeldReport(STT);
    const timelines = report.benchmarks.flatMap((b) => b.sessions.map((s) => s.timeline));
    assert.ok(timelines.length >= 2);
    const values = timelines.map((t) => sessionValues(t));
    assert.deepEqual(poolValues(values, timelines[0]!.task), poolMetricValues(timelines));
    assert.deepEqual(
      values.map((v) => v.metrics.toJSON()),
      timelines.map(computeSessionMetrics),
    );
    assert.ok((poolValues(values, timelines[0]!.task).ttft_ms ?? []).length > 0, 'the fixture has values to pool');
  });

  it("keeps sessions' metric values in the shared store, rows alike sharing one layout, and reads back the rows measured", async () => {
    const timelines = (await readHeldReport(STT)).benchmarks.flatMap((b) => b.sessions.map((s) => s.timeline));
    const values = timelines.map((t) => sessionValues(t));
    const [first, second] = values.map((v) => v.metrics);
    assert.ok(first!.chunk instanceof Float64Array, 'the values lie in a Float64Array');
    assert.equal(second!.chunk, first!.chunk, 'one chunk for both sessions, not an object per row each');
    assert.equal(second!.layout, first!.layout, 'the fixture has two sessions with values of the same metrics, one layout');
    timelines.forEach((timeline, i) => {
      const stored = values[i]!.metrics;
      const measured = computeSessionMetrics(timeline);
      // Key order too: report.json and the CSV columns list them as stored.
      assert.deepEqual(Object.keys(stored.session), Object.keys(measured.session));
      assert.deepEqual(stored.session, measured.session);
      assert.deepEqual(stored.inputs, measured.inputs);
      assert.deepEqual(stored.responses, measured.responses);
      assert.equal(stored.inputs, stored.inputs, "a session's rows read twice are one object");
    });
  });

  it("lets go of a session's view once it is digested without its timeline, and keeps it where the timeline is kept", async () => {
    const report = await readHeldReport(STT);
    const [first, second] = report.benchmarks[0]!.sessions.map((s) => s.timeline);
    const [dropped, kept] = [sessionView(first!), sessionView(second!)];
    // Scored as recorded, so digest measures these very timelines rather than copies with another normalizer.
    const asRecorded = { normalizer: undefined, diarization: undefined };
    digest({ ...report.benchmarks[0]!.sessions[0]!, timeline: first! }, asRecorded, false);
    digest({ ...report.benchmarks[0]!.sessions[1]!, timeline: second! }, asRecorded, true);
    assert.notEqual(
      sessionView(first!),
      dropped,
      'the memo let go of it: a young collection would copy it, and its timeline, until the timeline is found dead',
    );
    assert.equal(sessionView(second!), kept);
  });

  it("keeps sessions' samples in one shared store, each session's values as its inputs' samples joined", async () => {
    const timelines = (await readHeldReport(STT)).benchmarks.flatMap((b) => b.sessions.map((s) => s.timeline));
    const values = timelines.map((t) => sessionValues(t));
    assert.equal(values[1]!.samples.chunk, values[0]!.samples.chunk, 'one chunk for both sessions, not a list per metric each');
    timelines.forEach((timeline, i) => {
      const inputs = sessionView(timeline).inputs;
      const expected = metricsOfScope('input_samples', timeline.task).map((m) => [m.name, inputs.flatMap((input) => m.samples(input))]);
      const stored: Array<[string, number[]]> = [];
      eachSamples(values[i]!.samples, (name, chunk, from, to) => stored.push([name, [...chunk.subarray(from, to)]]));
      assert.deepEqual(stored, expected);
      assert.ok(
        stored.some(([, list]) => list.length > 0),
        'the fixture has samples',
      );
    });
  });

  it('scores a transcript and reference pair once, sharing its frozen errors between inputs', async () => {
    const report = await readHeldReport(STT);
    const timeline = report.benchmarks[0]!.sessions[0]!.timeline;
    const copy = JSON.parse(JSON.stringify(timeline)) as SessionTimeline;
    const [a, b] = [sessionView(timeline).inputs[0]!, sessionView(copy).inputs[0]!];
    assert.notEqual(a, b, 'two views of two timelines');
    const errors = transcriptErrorsOf(a);
    assert.ok(errors, 'the fixture input has a reference and a transcript');
    assert.equal(transcriptErrorsOf(b), errors);
    assert.ok(Object.isFrozen(errors) && Object.isFrozen(errors.words) && Object.isFrozen(errors.chars));
    const plan = a.plan?.kind === 'audio' ? a.plan : undefined;
    assert.deepEqual(errors, transcriptErrors(plan!.reference!, a.transcript.text!, normalizerById(plan!.normalizer)));
  });

  it("reads the stored values of the named metrics in one pass, a session's own value standing for its inputs'", async () => {
    const sessions = (await readHeldReport(STT)).benchmarks[0]!.sessions;
    const names = ['ttft_ms', 'wer', 'connect_ms'];
    const stored = storedValues(sessions, new Set(names));
    assert.deepEqual([...stored.keys()], names, 'only the named metrics');
    for (const name of names) {
      const one = sessions.flatMap(({ metrics }) =>
        metrics.session[name] !== undefined
          ? [metrics.session[name]]
          : [...metrics.inputs, ...metrics.responses].flatMap((m) => (m[name] !== undefined ? [m[name]] : [])),
      );
      assert.ok(one.length > 0, `${name} has values`);
      assert.deepEqual(stored.get(name), one, name);
    }
  });

  it('makes each CSV file a line at a time, as renderCsv makes it whole, so a writer holds one line and not every row', async () => {
    const report = await readHeldReport(STT);
    const whole = renderCsv(report);
    const files = csvFiles(report);
    assert.deepEqual(Object.keys(files), Object.keys(whole));
    for (const [name, lines] of Object.entries(files)) {
      const pieces = [...lines()];
      assert.equal(pieces.length, whole[name]!.split('\r\n').length - 1, `${name}: a piece per line`);
      assert.equal(pieces.join(''), whole[name], name);
    }
  });

  it("gives every session's facts one shape, each key set even where its value is absent (a report holds them for every session)", async () => {
    const sessions = (await readHeldReport(STT)).benchmarks.flatMap((b) => b.sessions);
    for (const { facts } of sessions) {
      assert.deepEqual(Object.keys(facts), ['close', 'inputSampleIds', 'inputs', 'responseStatuses', 'textChars', 'audioReceived', 'duplex']);
      for (const input of facts.inputs) assert.deepEqual(Object.keys(input), ['index', 'sampleId', 'split', 'lastSentMs', 'columns']);
    }
  });
});
