import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compareReports } from '../src/report/compare.js';
import { renderComparison } from '../src/report/compare-console.js';
import { DUPLEX_METRICS_FILENAME, type DuplexMetrics } from '../src/report/duplex-metrics.js';
import { mergeReports } from '../src/report/merge.js';
import { writeOutputs } from '../src/report/outputs.js';
import { readHeldReport } from '../src/report/recompute.js';
import type { Report } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import { DEFAULT_LATENCY, type LatencyModelOptions } from '../src/server/models/latency-model.js';
import { tempDir, testServer } from './helpers.js';

/** Speech to speech against the built-in server at 8 times real time, answers generated at 10 times real time. */
const DUPLEX = { protocol: 'vllm-omni-duplex', model: 'openbmb/MiniCPM-o-4_5', pace: { kind: 'realtime', speed: 8 } } as const;
const latency = (change: Partial<LatencyModelOptions> = {}): { latency: LatencyModelOptions } => ({
  latency: { ...DEFAULT_LATENCY, generationRtf: 0.1, ...change },
});
const readDuplex = async (dir: string): Promise<DuplexMetrics> => JSON.parse(await readFile(join(dir, DUPLEX_METRICS_FILENAME), 'utf8')) as DuplexMetrics;
const keys = (rows: Array<Record<string, unknown>>): string[] => rows.map((r) => `${String(r.split)}/${String(r.sample_id)}`);
const completed = (report: Report): number => report.benchmarks[0]!.summary.sessions.completed;
/** For the runs whose checks read what the reports keep and recompute, not how fast the answers came: unpaced. */
const UNPACED = { pace: { kind: 'none' } } as const;

describe('speech-to-speech reports: resume, compare, merge, capacity', () => {
  it('--resume of an interrupted run keeps its sessions, runs the rest, and merges duplex_metrics.json by (split, sample_id) without duplicates', async () => {
    const server = await testServer(latency());
    const dir = await tempDir();
    const stop = new AbortController();
    const first = await run({
      ...DUPLEX,
      ...UNPACED,
      target: server.url,
      maxSessions: 4,
      outputDir: dir,
      signal: stop.signal,
      onSessionEnd: (_record, done) => {
        if (done === 2) stop.abort('interrupted');
      },
    });
    assert.equal(first.report.stoppedBy, 'interrupted');
    const kept = first.report.benchmarks[0]!.sessions.filter((s) => s.outcome.status === 'completed');
    assert.ok(kept.length >= 2 && kept.length < 4, `${kept.length} sessions finished before the interruption`);
    const partial = await readDuplex(dir);
    assert.deepEqual(
      keys(partial.duplex_session_metrics),
      kept.map((s) => `default/${s.sampleIds[0]}`),
    );

    const { report } = await run({ ...DUPLEX, ...UNPACED, target: server.url, maxSessions: 4, resume: dir });
    const sessions = report.benchmarks[0]!.sessions;
    assert.deepEqual(
      sessions.map((s) => [s.index, s.outcome.status]),
      [0, 1, 2, 3].map((i) => [i, 'completed']),
    );
    for (const s of kept) assert.equal(sessions[s.index]!.resumedFrom, first.report.startedAt, `session ${s.index} kept, not run again`);
    const merged = await readDuplex(dir);
    const samples = ['harvard-01', 'harvard-02', 'harvard-03', 'harvard-04'].map((id) => `default/${id}`);
    assert.deepEqual(keys(merged.duplex_session_metrics), samples, 'each sample once: the rows of the kept sessions replaced, not repeated');
    assert.deepEqual(keys(merged.duplex_request_metrics), samples);
    for (const s of kept) {
      const before = partial.duplex_request_metrics.find((r) => r.sample_id === s.sampleIds[0])!;
      const after = merged.duplex_request_metrics.find((r) => r.sample_id === s.sampleIds[0])!;
      assert.ok(Math.abs((after.ttfp_ms as number) - (before.ttfp_ms as number)) < 0.01, 'a kept session measures the same on the new clock');
    }
    assert.equal((merged.duplex_stream_ttfp_ms as { count: number }).count, 4, 'summaries recomputed over the merged rows');
    assert.equal(report.benchmarks[0]!.summary.metrics.voice_to_voice_ms!.count, 4);
  });

  it('report compare: a slower server is worse on voice_to_voice_ms and response_ttfp_ms, with the verdict printed', async () => {
    const options = { ...DUPLEX, maxSessions: 6, profile: { kind: 'concurrent', concurrency: 3 } } as const;
    const [fast, slow] = await Promise.all([testServer(latency({ baseDelayMs: 40, jitterMs: 5 })), testServer(latency({ baseDelayMs: 500, jitterMs: 5 }))]);
    const [a, b] = await Promise.all([run({ ...options, target: fast.url }), run({ ...options, target: slow.url })]);
    const failures = (r: Report) => r.benchmarks[0]!.sessions.filter((x) => x.outcome.status !== 'completed').map((x) => x.outcome);
    assert.deepEqual([completed(a.report), completed(b.report)], [6, 6], JSON.stringify([failures(a.report), failures(b.report)]));
    const comparison = compareReports(a.report, b.report);
    const row = (metric: string) => comparison.metrics.find((m) => m.metric === metric)!;
    for (const metric of ['voice_to_voice_ms', 'response_ttfp_ms', 'response_ttft_ms']) {
      assert.equal(row(metric).verdict, 'worse', `${metric}: ${JSON.stringify(row(metric))}`);
      // 460 ms slower by the servers' settings; the fast run's timers run late on a busy machine (both runs share this
      // process), which only narrows the gap, so the claim is the direction and the verdict, not the size.
      assert.ok(row(metric).deltaP50 > 0, `${metric} slower: ${row(metric).deltaP50}`);
      assert.equal(row(metric).countA, 6);
    }
    assert.equal(row('voice_to_voice_ms').headline, true);
    const text = renderComparison(comparison);
    assert.match(text, /voice_to_voice_ms.*worse/);
  });

  it('report merge of two runs writes duplex_metrics.json with every row and the figures recomputed from both', async () => {
    const server = await testServer(latency());
    const root = await tempDir();
    const [a, b] = [join(root, 'a'), join(root, 'b')];
    await Promise.all([
      run({ ...DUPLEX, ...UNPACED, target: server.url, maxSessions: 2, outputDir: a }),
      run({ ...DUPLEX, ...UNPACED, target: server.url, maxSessions: 3, turnsPerSession: 2, outputDir: b }),
    ]);
    const out = join(root, 'merged');
    // What `report merge a/report.json b/report.json --outputs json,csv,md` does, in this process (a spawn adds only its
    // exit code, which test/shards.test checks).
    const paths = [join(a, 'report.json'), join(b, 'report.json')];
    await writeOutputs(mergeReports(await Promise.all(paths.map((path) => readHeldReport(path))), paths), out, ['json', 'csv', 'md']);
    const merged = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
    assert.equal(merged.benchmarks[0]!.summary.sessions.total, 5);
    assert.equal(merged.benchmarks[0]!.summary.metrics.voice_to_voice_ms!.count, 2 + 3 * 2, 'one per utterance of both runs');
    const duplex = await readDuplex(out);
    assert.equal(duplex.duplex_session_metrics.length, 5);
    assert.equal(duplex.duplex_request_metrics.length, 2 + 3 * 2);
    assert.equal(new Set(duplex.duplex_session_metrics.map((r) => r.session_id)).size, 5, 'sessions of the two runs kept apart');
    const [fromA, fromB] = await Promise.all([readDuplex(a), readDuplex(b)]);
    const streamTtfp = [...fromA.duplex_session_metrics, ...fromB.duplex_session_metrics].map((r) => r.stream_ttfp_ms as number).sort((x, y) => x - y);
    assert.equal((duplex.duplex_stream_ttfp_ms as { count: number; p99: number }).count, 5);
    assert.equal((duplex.duplex_stream_ttfp_ms as { p99: number }).p99, streamTtfp[4], 'the p99 of both runs, by nearest rank');
    const turns = (await readFile(join(out, 'turns.csv'), 'utf8')).trim().split('\r\n');
    assert.equal(turns.length, 1 + 2 + 3 * 2);
    assert.match(turns[0]!, /,voice_to_voice_ms \[ms\]$/, 'no barge-in column: neither run barged in');
    assert.match(await readFile(join(out, 'summary.md'), 'utf8'), /\| voice_to_voice_ms p50 \/ p95 \(ms\) \|[^]*\n\| synchronous \| 5 \| 5 \| 0 \|/);
  });

  it('capacity search against p95(voice_to_voice_ms)<800: passes below the knee, fails above it, each probe judged by its own p95', async () => {
    // One session at full speed; beyond it every delay grows with (open/1)^2.
    const server = await testServer(latency({ baseDelayMs: 200, jitterMs: 0, capacity: 1, generationRtf: 0.01 }));
    const { report } = await run({
      ...DUPLEX,
      target: server.url,
      capacity: { by: 'concurrency', start: 1, max: 4 },
      maxSessions: 4,
      slos: ['p95(voice_to_voice_ms)<800'],
    });
    const capacity = report.capacity!;
    assert.equal(capacity.answer, 1, JSON.stringify(capacity.probes));
    assert.ok(capacity.failsAt !== null && capacity.failsAt <= 4, JSON.stringify(capacity.probes));
    for (const probe of capacity.probes) {
      const level = report.benchmarks.find((b) => b.label === `concurrent@${probe.level}`)!;
      const v2v = level.summary.slos[0]!;
      assert.equal(probe.pass, v2v.value! < 800, `concurrency ${probe.level}: p95 ${v2v.value} ms`);
    }
  });
});
