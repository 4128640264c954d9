import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { definitionOf, METRICS } from '../src/metrics/catalog.js';
import {
  coldWarmFigures,
  computeSessionMetrics,
  figured,
  poolMetricValues,
  summarizeBenchmark,
  summarizeFigured,
  summarizeLevel,
} from '../src/metrics/compute.js';
import { parseSlo } from '../src/metrics/slo.js';
import { mergeSorted, percentile, summarize } from '../src/metrics/stats.js';
import { sortNumbers } from '../src/util/sort-numbers.js';
import type { SessionRecord } from '../src/timeline/types.js';
import { fromV1, type V1Timeline } from '../src/timeline/v1.js';

/** One turn: three chunks (the last one short), an empty delta, two words, the final. */
function timeline(): V1Timeline {
  return {
    turnDetection: 'client',
    turns: [
      {
        turn: 0,
        sampleId: 's',
        split: 'default',
        reference: 'Hello, world!',
        audioStartMs: 0,
        speechStartMs: 20,
        speechEndMs: 180,
        eosSource: 'label',
        audioEndMs: 250,
      },
    ],
    plannedStartMs: 0,
    connectStartMs: 0,
    openMs: 5,
    firstEventMs: 7,
    readyMs: 7,
    chunks: [
      { seq: 0, turn: 0, plannedMs: 10, sentMs: 10.5, audioStartMs: 0, audioEndMs: 100, bytes: 100 },
      { seq: 1, turn: 0, plannedMs: 110, sentMs: 111, audioStartMs: 100, audioEndMs: 200, bytes: 100 },
      { seq: 2, turn: 0, plannedMs: 210, sentMs: 212, audioStartMs: 200, audioEndMs: 250, bytes: 50 },
    ],
    commits: [
      { turn: 0, kind: 'start', sentMs: 9 },
      { turn: 0, kind: 'final', sentMs: 213 },
    ],
    updates: [],
    events: [
      { t: 7, type: 'session.created', kind: 'session_created', turn: 0 },
      { t: 150, type: 'transcription.delta', kind: 'transcript_delta', turn: 0, text: '' },
      { t: 300, type: 'transcription.delta', kind: 'transcript_delta', turn: 0, text: ' hello' },
      { t: 420, type: 'transcription.delta', kind: 'transcript_delta', turn: 0, text: ' world' },
      { t: 500, type: 'transcription.done', kind: 'transcript_final', turn: 0, text: ' hello world' },
    ],
    close: { t: 510, code: 1000, reason: '', by: 'client' },
    bytesSent: 400,
    bytesReceived: 300,
    framesSent: 6,
    framesReceived: 5,
  };
}

describe('metric catalog', () => {
  it('computes every per-turn and per-session metric exactly from a hand-built timeline', () => {
    const { session, inputs: turns } = computeSessionMetrics(fromV1(timeline()));
    assert.deepEqual(session, {
      start_lag_ms: 0,
      connect_ms: 5,
      audio_sent_ms: 250,
      session_ms: 510,
      bytes_sent: 400,
      bytes_received: 300,
      frames_sent: 6,
      frames_received: 5,
      protocol_anomalies: 0,
    });
    assert.equal(turns.length, 1);
    const t = turns[0]!;
    assert.equal(t.ttft_ms, 289.5, 'first non-empty delta (300) minus first chunk sent (10.5); the empty delta at 150 does not count');
    assert.equal(t.ttlt_ms, 288, 'final at 500 minus last chunk sent at 212');
    assert.equal(t.avg_rtt_ms, 360 - (10.5 + 111 + 212) / 3);
    assert.equal(t.commit_to_flush_ms, 287);
    assert.equal(t.turn_ms, 489.5);
    assert.equal(t.audio_ms, 250);
    assert.equal(t.rtf, 489.5 / 250);
    assert.equal(t.rtfx, 250 / 489.5);
  });

  it('pools distribution metrics sample by sample', () => {
    const pooled = poolMetricValues([fromV1(timeline()), fromV1(timeline())]);
    assert.deepEqual(pooled.itl_ms, [120, 120]);
    assert.deepEqual(pooled.send_lag_ms, [0.5, 1, 2, 0.5, 1, 2]);
    assert.deepEqual(pooled.ttft_ms, [289.5, 289.5]);
  });

  it('measures word emission for words the server got right, across split deltas', () => {
    const tl = timeline();
    // "hello" ends at 90 ms (chunk 0, sent 10.5), "world" at 180 ms (chunk 1, sent 111), "again" at 240 ms (chunk 2).
    tl.turns[0]!.words = [
      { word: 'Hello,', endMs: 90 },
      { word: 'world!', endMs: 180 },
      { word: 'again', endMs: 240 },
    ];
    tl.events = tl.events.filter((e) => e.kind !== 'transcript_delta');
    tl.events.splice(
      1,
      0,
      { t: 300, type: 'transcription.delta', kind: 'transcript_delta', turn: 0, text: ' Hel' },
      { t: 320, type: 'transcription.delta', kind: 'transcript_delta', turn: 0, text: 'lo wor' },
      { t: 420, type: 'transcription.delta', kind: 'transcript_delta', turn: 0, text: 'ld' },
    );
    // "again" was never heard: it has no latency, rather than a wrong one.
    assert.deepEqual(poolMetricValues([fromV1(tl)]).word_emission_ms, [320 - 10.5, 420 - 111]);
  });

  it('uses the final transcript as the text event when a server sends no non-empty delta', () => {
    const tl = timeline();
    tl.events = tl.events.filter((e) => e.kind !== 'transcript_delta');
    const t = computeSessionMetrics(fromV1(tl)).inputs[0]!;
    assert.equal(t.ttft_ms, 500 - 10.5);
    assert.equal(t.avg_rtt_ms, 500 - (10.5 + 111 + 212) / 3);
  });

  it('leaves out what a turn without a final transcript cannot define', () => {
    const tl = timeline();
    tl.events = tl.events.filter((e) => e.kind !== 'transcript_final');
    const t = computeSessionMetrics(fromV1(tl)).inputs[0]!;
    assert.equal(t.ttft_ms, 289.5);
    for (const name of ['ttlt_ms', 'commit_to_flush_ms', 'turn_ms', 'rtf', 'rtfx']) assert.equal(t[name], undefined, name);
  });

  it('gives unpaced chunks no send lag', () => {
    const tl = timeline();
    for (const c of tl.chunks) c.plannedMs = null;
    assert.deepEqual(poolMetricValues([fromV1(tl)]).send_lag_ms, []);
  });

  it('handles sessions with hundreds of thousands of chunks', () => {
    const tl = timeline();
    tl.chunks = Array.from({ length: 300_000 }, (_, seq) => ({ seq, turn: 0, plannedMs: seq, sentMs: seq, audioStartMs: seq, audioEndMs: seq + 1, bytes: 10 }));
    delete tl.close;
    assert.equal(computeSessionMetrics(fromV1(tl)).inputs.length, 1);
    assert.equal(poolMetricValues([fromV1(tl)]).send_lag_ms!.length, 300_000);
  });

  it('names every metric with its unit and defines its events', () => {
    const names = new Set<string>();
    for (const m of METRICS) {
      assert.ok(!names.has(m.name), `duplicate ${m.name}`);
      names.add(m.name);
      if (m.unit === 'ms') assert.match(m.name, /_ms$/);
      assert.ok(definitionOf(m).from.length > 0 && m.description.length > 0, m.name);
    }
  });
});

describe('summarizeBenchmark', () => {
  const record = (index: number, outcome: SessionRecord['outcome']): SessionRecord => ({
    index,
    sampleIds: ['s'],
    split: 'default',
    timeline: fromV1(timeline()),
    outcome,
  });

  it('keeps failed and incomplete sessions in the counts and out of the latency figures', () => {
    const summary = summarizeBenchmark(
      [
        record(0, { status: 'completed' }),
        record(1, { status: 'completed' }),
        record(2, { status: 'failed', failure: { class: 'timeout', stage: 'final', message: 'timed out' } }),
        record(3, { status: 'incomplete', reason: 'max_seconds', stage: 'streaming' }),
      ],
      ['measured', 'measured', 'measured', 'measured'],
      [parseSlo('p50(ttft_ms)<300'), parseSlo('error_rate<0.1')],
    );
    assert.deepEqual(summary.sessions, { total: 4, completed: 2, failed: 1, incomplete: 1 });
    assert.equal(summary.errorRate, 1 / 3);
    assert.equal(summary.metrics.ttft_ms!.count, 2);
    assert.deepEqual(summary.failures, [{ class: 'timeout', stage: 'final', count: 1, message: 'timed out' }]);
    assert.deepEqual(summary.incomplete, [{ reason: 'max_seconds', stage: 'streaming', count: 1 }]);
    // Every hand-built session runs from 0 to 510 ms.
    assert.equal(summary.throughput.wallS, 0.51);
    assert.equal(summary.throughput.audioS, 0.5);
    assert.equal(summary.throughput.audioSPerWallS, 0.5 / 0.51);
    assert.equal(summary.throughput.sessionsPerS, 2 / 0.51);
    assert.deepEqual(summary.slos, [
      { slo: 'p50(ttft_ms)<300', value: 289.5, pass: true },
      { slo: 'error_rate<0.1', value: 1 / 3, pass: false },
    ]);
  });

  it('counts warm-up and cool-down sessions but leaves them out of the figures', () => {
    const records = [0, 1, 2, 3].map((i) =>
      record(i, i === 0 ? { status: 'failed', failure: { class: 'timeout', stage: 'final', message: 'x' } } : { status: 'completed' }),
    );
    const summary = summarizeBenchmark(records, ['warmup', 'measured', 'measured', 'cooldown'], []);
    assert.deepEqual(summary.sessions, { total: 4, completed: 3, failed: 1, incomplete: 0 });
    assert.deepEqual(summary.excluded, { warmup: 1, cooldown: 1 });
    assert.equal(summary.errorRate, 0, 'the failed warm-up session is not in the error rate');
    assert.equal(summary.metrics.ttft_ms!.count, 2);
  });

  it('summarizes a level with its cold and warm figures as summarizing it and them apart does, pooling each value once', () => {
    const records = [0, 1, 2, 3, 4].map((i) =>
      record(i, i === 2 ? { status: 'failed', failure: { class: 'timeout', stage: 'final', message: 'x' } } : { status: 'completed' }),
    );
    const sessions = records.map(figured);
    const phases = ['warmup', 'measured', 'measured', 'measured', 'measured'] as const;
    const starts = ['cold', 'cold', 'warm', 'warm', 'cold'] as const;
    const slos = [parseSlo('p50(ttft_ms)<300'), parseSlo('max(audio_ms)<100')];
    const level = summarizeLevel(sessions, phases, starts, 1000, slos);
    assert.deepEqual(level, { ...summarizeFigured(sessions, phases, slos), coldWarm: coldWarmFigures(sessions, phases, starts, 1000) });
    assert.equal(level.metrics.ttft_ms!.count, 3);
    assert.equal(level.coldWarm.cold.metrics.ttft_ms!.count, 2);
  });

  it('has no error rate when nothing finished', () => {
    assert.equal(summarizeBenchmark([record(0, { status: 'incomplete', reason: 'interrupted', stage: 'connect' })], ['measured'], []).errorRate, null);
  });
});

describe('summarize', () => {
  it('computes type-7 percentiles, mean and sample std', () => {
    const d = summarize([4, 1, 3, 2])!;
    assert.equal(d.count, 4);
    assert.equal(d.mean, 2.5);
    assert.equal(d.std, Math.sqrt(5 / 3));
    assert.equal(d.min, 1);
    assert.equal(d.max, 4);
    assert.equal(d.p50, 2.5);
    assert.ok(Math.abs(d.p90 - 3.7) < 1e-12);
    assert.ok(Math.abs(d.p99 - 3.97) < 1e-12);
  });

  it('ignores non-finite values and returns null for none', () => {
    assert.equal(summarize([]), null);
    assert.equal(summarize([NaN, Infinity]), null);
    assert.equal(summarize([7, NaN])!.p99, 7);
  });

  it('merges two ascending arrays as sorting them together does, -0 before 0', () => {
    const a = Float64Array.from([-3, -0, 0, 2, 2, 9]);
    const b = Float64Array.from([-5, -0, 0, 0, 2, 10, 11]);
    const merged = mergeSorted(a, b);
    const sorted = Float64Array.from([...a, ...b]).sort();
    assert.equal(merged.length, sorted.length);
    sorted.forEach((v, i) => assert.ok(Object.is(merged[i], v), `at ${i}: ${merged[i]} against ${v}`));
    assert.deepEqual([...mergeSorted(new Float64Array(), b)], [...b]);
  });

  it('interpolates between ranks', () => {
    assert.equal(percentile([10, 20], 25), 12.5);
  });

  it('sorts a large column by its bits as the built-in sort orders it: -0 before 0, subnormals, infinities, digits all alike', () => {
    const n = 200_000; // above the size where the radix sort takes over
    let state = 7;
    const random = (): number => (state = (state * 48271) % 2147483647) / 2147483647;
    const columns: Record<string, Float64Array> = {
      mixed: Float64Array.from(
        { length: n },
        (_, i) =>
          [-0, 0, Infinity, -Infinity, 5e-324, -5e-324, Number.MAX_VALUE, -Number.MIN_VALUE][i % 97] ?? (random() - 0.3) * 10 ** Math.floor(random() * 12 - 6),
      ),
      // Latencies in one range share their top digits: the passes over those are skipped.
      latencies: Float64Array.from({ length: n }, () => 100 + random() * 50),
      constant: new Float64Array(n).fill(-2.5),
      descending: Float64Array.from({ length: n }, (_, i) => n - i),
    };
    for (const [name, column] of Object.entries(columns)) {
      const expected = column.slice().sort();
      const sorted = sortNumbers(column);
      assert.equal(sorted, column, `${name}: sorted in place`);
      const wrong = expected.findIndex((v, i) => !Object.is(sorted[i], v));
      assert.equal(wrong, -1, `${name}: at ${wrong}, ${sorted[wrong]} against ${expected[wrong]}`);
    }
    // A column that is a view into a larger buffer is sorted where it lies, the rest left alone.
    const buffer = Float64Array.from({ length: n + 2 }, (_, i) => (i === 0 || i === n + 1 ? 99 : n - i));
    sortNumbers(buffer.subarray(1, n + 1));
    assert.deepEqual([buffer[0], buffer[1], buffer[n], buffer[n + 1]], [99, 0, n - 1, 99]);
  });
});

describe('console summary', () => {
  it('prints server text with its control characters shown as escapes, never raw', async () => {
    const { renderSummary } = await import('../src/report/console.js');
    const { run } = await import('../src/run/run.js');
    const { report } = await run({ target: 'ws://127.0.0.1:9/v1/realtime', model: 'm', maxSessions: 1 });
    report.benchmarks[0]!.summary.failures[0]!.message = 'bad\u001b[31mred\nline';
    assert.match(renderSummary(report), /^failed ×1: connect_refused at connect: bad\\x1b\[31mred line$/m);
    // eslint-disable-next-line no-control-regex -- the escape character is what the summary must not hold
    assert.doesNotMatch(renderSummary(report), /\u001b/);
  });
});
