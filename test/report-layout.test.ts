import assert from 'node:assert/strict';
import { copyFile, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { SessionMetrics } from '../src/metrics/compute.js';
import { writeOutputs } from '../src/report/outputs.js';
import { readReport, ReportError } from '../src/report/recompute.js';
import type { Report } from '../src/report/schema.js';
import { SESSION_LOG } from '../src/report/session-log.js';
import { run } from '../src/run/run.js';
import { tempDir } from './helpers.js';

/**
 * Report version 3 (issue 38): report.json keeps each session's figures, the session log
 * its timeline, and a report renders from the log one session at a time.
 */
const FIXTURE = new URL('../../test/fixtures/report-figures/stt.json', import.meta.url).pathname;
const OUTPUTS = ['json', 'html', 'csv', 'md'] as const;
const FILES = ['report.html', 'turns.csv', 'sessions.csv', 'levels.csv', 'starts.csv', 'summary.md'];

describe('timelines in the session log (report version 3)', () => {
  it('renders from the log holding no timeline but those the page draws, to the same outputs the run wrote', async () => {
    const [dir, out] = await Promise.all([tempDir(), tempDir()]);
    await run({ maxSessions: 3, pace: { kind: 'none' }, turnsPerSession: 2, outputDir: dir, outputs: [...OUTPUTS] });
    const stored = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    assert.equal(stored.version, 3);
    assert.equal(stored.sessionLog, SESSION_LOG);
    assert.ok(
      stored.benchmarks[0]!.sessions.every((s) => s.timeline === undefined && s.metrics.inputs.length === 2),
      'figures, no timelines',
    );

    const report = await readReport(dir);
    const sessions = report.benchmarks[0]!.sessions;
    assert.equal(sessions.length, 3);
    assert.ok(
      sessions.every((s) => s.timeline === undefined && s.logAt?.file === join(dir, SESSION_LOG)),
      'each timeline dropped once read, its place in the log kept',
    );
    await writeOutputs(report, out, OUTPUTS);
    assert.ok(
      sessions.every((s) => s.timeline !== undefined),
      'the waterfall draws all three: read back from the log',
    );
    for (const file of FILES) assert.equal(await readFile(join(out, file), 'utf8'), await readFile(join(dir, file), 'utf8'), file);
    assert.equal(await readFile(join(out, SESSION_LOG), 'utf8'), await readFile(join(dir, SESSION_LOG), 'utf8'), 'the log goes with the report');
  });

  it("keeps what speech generation's after-run check found, which the timeline gets after the session was logged", async () => {
    const dir = await tempDir();
    const { report } = await run({ protocol: 'vllm-omni-speech', maxSessions: 2, outputDir: dir, outputs: ['json'] });
    const analysed = report.benchmarks[0]!.sessions.filter((s) => s.timeline.analysis !== undefined);
    assert.ok(analysed.length > 0, 'the run checked the speech');
    // On two threads, the second session is digested on a worker thread, which must get its findings too.
    for (const threads of [1, 2]) {
      const back = await readReport(dir, { threads });
      assert.deepEqual(back.benchmarks[0]!.summary, report.benchmarks[0]!.summary, 'the same figures, speech quality included');
      assert.deepEqual(
        back.benchmarks[0]!.sessions.map((s) => s.analysis),
        report.benchmarks[0]!.sessions.map((s) => s.timeline.analysis),
      );
    }
  });

  it('a version 3 report copied without its log is refused in one line that says what is missing', async () => {
    const dir = await tempDir();
    await run({ maxSessions: 1, pace: { kind: 'none' }, outputDir: dir, outputs: ['json'] });
    await rm(join(dir, SESSION_LOG));
    await assert.rejects(readReport(dir), (err: Error) => {
      assert.ok(err instanceof ReportError);
      assert.match(
        err.message,
        /sessions\.jsonl is missing: .*report\.json keeps its 1 sessions' timelines there \(report version 3\); copy the run folder with its session log$/,
      );
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
  });

  it('an older report that holds its timelines is rendered into a session log and version 3, to the same figures', async () => {
    const dir = await tempDir();
    await copyFile(FIXTURE, join(dir, 'report.json'));
    const old = await readReport(dir);
    await writeOutputs(old, dir, ['json']);
    assert.ok((await stat(join(dir, SESSION_LOG))).size > 0, 'the timelines moved to the log');
    const again = await readReport(dir);
    assert.equal((JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report).version, 3);
    assert.deepEqual(
      again.benchmarks.map((b) => [b.summary, b.sessions.map((s) => rows(s.metrics))]),
      old.benchmarks.map((b) => [b.summary, b.sessions.map((s) => rows(s.metrics))]),
    );
  });
});

/** A session's metric rows as plain objects: a report rendered from the log keeps them in the shared store (`StoredMetrics`). */
function rows(metrics: SessionMetrics): SessionMetrics {
  return { session: metrics.session, inputs: metrics.inputs, responses: metrics.responses };
}
