import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseReportFile } from '../src/report/report-file.js';
import { reportJsonChunks } from '../src/report/report-json.js';
import type { Report } from '../src/report/schema.js';

/** A stored session as report.json keeps one: its record's fields, where it ran, and its metrics. */
function session(index: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    index,
    sampleIds: [`sample-${index}`],
    outcome: { status: 'completed' },
    ...extra,
    phase: 'measured',
    start: 'warm',
    metrics: { session: { connect_ms: 1.5 + index }, inputs: [{ ttft_ms: 100 + index }], responses: [] },
  };
}

function report(benchmarks: Array<{ label: string; sessions: object[] }>, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schema: 'voxbench.report',
    version: 3,
    startedAt: '2026-12-07T00:00:00.000Z',
    config: { task: 'stt', note: 'a − sign makes the text two-byte' },
    ...more,
    benchmarks: benchmarks.map((b) => ({ label: b.label, startMs: 0, endMs: 1, summary: { sessions: { total: b.sessions.length } }, sessions: b.sessions })),
  };
}

/** As voxbench writes report.json, and as JSON.parse reads it. */
const written = (value: object): string => [...reportJsonChunks(value as Report)].join('');

/** What reading the sessions keeps: the index, or the whole session where it holds a timeline or findings. */
const indexed = (value: object): unknown => {
  const parsed = JSON.parse(written(value)) as { benchmarks: Array<{ sessions: Array<Record<string, unknown>> }> };
  for (const b of parsed.benchmarks) b.sessions = b.sessions.map((s) => ('timeline' in s || 'analysis' in s ? s : { index: s.index }));
  return parsed;
};

describe('reading report.json to render it again', () => {
  it("keeps a stored session's index only, the whole of one that holds a timeline or findings, and the rest as JSON.parse reads it", () => {
    // Server text that looks like the layout, as it would be written: escaped, so on the line it sits on.
    const hostile = { outcome: { status: 'failed', failure: { class: 'server', message: '\n    },\n     "timeline": {}\n   ]' } } };
    // Keys of those names deeper in a session are not its own.
    const nested = { outcome: { status: 'failed', failure: { class: 'server', analysis: 'deeper', timeline: 'deeper' } } };
    const value = report([
      { label: 'one', sessions: [session(0), session(1, hostile), session(7, { analysis: [{ level: -20 }] }), session(3, { timeline: { task: 'stt' } })] },
      { label: 'empty', sessions: [] },
      { label: 'two', sessions: [session(12), session(13, nested)] },
    ]);
    const parsed = parseReportFile(Buffer.from(written(value)));
    assert.deepEqual(parsed, indexed(value));
    const [one, , two] = (parsed as { benchmarks: Array<{ sessions: unknown[] }> }).benchmarks;
    assert.deepEqual(one!.sessions.slice(0, 2), [{ index: 0 }, { index: 1 }]);
    assert.deepEqual(two!.sessions, [{ index: 12 }, { index: 13 }]);
  });

  it('reads whole a file laid out otherwise, or one where a level cannot be matched to its sessions', () => {
    const value = report([{ label: 'one', sessions: [session(0), session(1)] }]);
    // Not indented as voxbench writes it.
    assert.deepEqual(parseReportFile(Buffer.from(JSON.stringify(value))), JSON.parse(JSON.stringify(value)));
    // A list named sessions at a level's depth that is not a level's: nothing is left out of it.
    const notes = [{ sessions: [session(5)] }];
    for (const elsewhere of [report([{ label: 'one', sessions: [session(0)] }], { notes }), { ...report([{ label: 'one', sessions: [session(0)] }]), notes }]) {
      assert.deepEqual(parseReportFile(Buffer.from(written(elsewhere))), JSON.parse(written(elsewhere)));
    }
  });

  it('throws on a file that is not JSON, or is cut short, rather than reading part of it', () => {
    const text = written(report([{ label: 'one', sessions: [session(0), session(1)] }]));
    for (const cut of [text.length - 10, text.indexOf('"index": 1') + 5, text.indexOf('"sessions"') + 30, 20]) {
      assert.throws(() => parseReportFile(Buffer.from(text.slice(0, cut))), SyntaxError, `cut at ${cut}`);
    }
  });
});
