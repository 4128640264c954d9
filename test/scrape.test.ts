import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { compareReports, mergeReports, recompute, renderHtml, run } from '../src/index.js';
import { renderComparisonHtml } from '../src/report/compare-html.js';
import { ExpositionError, parseExposition } from '../src/scrape/exposition.js';
import { selector } from '../src/scrape/select.js';
import { bucketQuantile, SeriesStore } from '../src/scrape/series.js';
import { seriesOverLevel, timeWeightedMean } from '../src/report/telemetry.js';
import { sessionEndMs } from '../src/timeline/types.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { CLI, runNode, sharedTarget, tempDir, testServer } from './helpers.js';
import { flagMessage } from '../src/cli/option-flags.js';
import { OptionsError } from '../src/config/errors.js';
import { renderSummary } from '../src/report/console.js';
import { renderCsv } from '../src/report/csv.js';
import { jsonSummary } from '../src/report/json-summary.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { mergeTelemetry } from '../src/report/merge-telemetry.js';
import type { Telemetry } from '../src/report/schema.js';

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An endpoint that answers `answer(n)` to its nth request, from 1; closed when the test file ends. */
async function endpoint(answer: (n: number) => { status?: number; body: string }): Promise<string> {
  let n = 0;
  const server = createServer((_req, res) => {
    const { status = 200, body } = answer(++n);
    res.writeHead(status).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const VLLM_TEXT = `# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{engine="0",le="0.5",model_name="a"} 1.0
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="a"} 2.0
vllm:e2e_request_latency_seconds_sum{engine="0",model_name="a"} 3.0
vllm:e2e_request_latency_seconds_count{engine="0",model_name="a"} 2.0
vllm:e2e_request_latency_seconds_bucket{engine="0",le="0.5",model_name="b"} 5.0
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="b"} 7.0
# HELP vllm:prompt_tokens_total Number of prefill tokens processed.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="a \\"q\\""} 1.5e3
vllm:prompt_tokens_created{engine="0",model_name="a"} 1.7e9
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1"} 87 1700000000000`;

describe('the Prometheus text format', () => {
  it('keeps each labelled series of a histogram apart, reads escapes, and the last line without a newline', () => {
    const families = parseExposition(VLLM_TEXT);
    const histogram = families.find((f) => f.name === 'vllm:e2e_request_latency_seconds')!;
    assert.equal(histogram.type, 'histogram');
    assert.equal(histogram.samples.length, 6);
    assert.deepEqual(histogram.samples[4], { name: 'vllm:e2e_request_latency_seconds_bucket', labels: { engine: '0', le: '0.5', model_name: 'b' }, value: 5 });
    const counter = families.find((f) => f.name === 'vllm:prompt_tokens_total')!;
    assert.equal(counter.type, 'counter');
    assert.deepEqual(counter.samples[0]!.labels, { engine: '0', model_name: 'a "q"' });
    assert.equal(counter.samples[0]!.value, 1500);
    assert.equal(families.find((f) => f.name === 'vllm:prompt_tokens_created')?.type, 'untyped');
    assert.deepEqual(families.find((f) => f.name === 'DCGM_FI_DEV_GPU_UTIL')?.samples, [
      { name: 'DCGM_FI_DEV_GPU_UTIL', labels: { gpu: '0', UUID: 'GPU-1' }, value: 87 },
    ]);
  });

  it('joins OpenMetrics counters (TYPE without _total) to their samples, and refuses what is not the format', () => {
    const [family] = parseExposition('# TYPE x counter\nx_total 3\nx_created 1\n# EOF\n');
    assert.deepEqual(family, {
      name: 'x',
      type: 'counter',
      samples: [
        { name: 'x_total', labels: {}, value: 3 },
        { name: 'x_created', labels: {}, value: 1 },
      ],
    });
    assert.throws(() => parseExposition('<html><body>502 Bad Gateway</body></html>'), ExpositionError);
    assert.throws(() => parseExposition('ok 1\nbad{le="1" 2\n'), /line 2: malformed label|line 2: unterminated/);
    assert.throws(() => parseExposition('up one'), /line 1: up: not a number/);
  });
});

describe('series kept from scrapes', () => {
  const keepAll = (): boolean => true;

  it("turns counters into rates per second, a restart's count into the increase", () => {
    const store = new SeriesStore(keepAll);
    const scrape = (tMs: number, value: number): void => store.add(0, tMs, parseExposition(`# TYPE c counter\nc_total{k="v"} ${value}\n`));
    scrape(0, 10);
    scrape(1000, 30);
    scrape(1500, 40);
    scrape(2000, 5);
    assert.deepEqual(store.all(), [
      {
        target: 0,
        name: 'c_total',
        labels: { k: 'v' },
        kind: 'rate',
        points: [
          [1000, 20],
          [1500, 20],
          [2000, 10],
        ],
      },
    ]);
  });

  it('turns histograms into quantiles of what each interval observed', () => {
    const store = new SeriesStore(keepAll);
    const scrape = (tMs: number, a: number, b: number, inf: number): void =>
      store.add(1, tMs, parseExposition(`# TYPE h histogram\nh_bucket{le="1"} ${a}\nh_bucket{le="2"} ${b}\nh_bucket{le="+Inf"} ${inf}\n`));
    scrape(0, 100, 100, 100);
    scrape(1000, 100, 100, 100); // nothing observed: no point
    scrape(2000, 100, 110, 110); // ten observations, all in (1, 2]
    const series = store.all();
    assert.deepEqual(
      series.map((s) => [s.name, s.labels, s.kind, s.points]),
      [
        ['h', { quantile: '0.5' }, 'quantile', [[2000, 1.5]]],
        ['h', { quantile: '0.95' }, 'quantile', [[2000, 1.95]]],
      ],
    );
    assert.equal(bucketQuantile(0.5, [[Infinity, 4]]), 0, 'a quantile in +Inf alone is the highest finite bound, 0');
    assert.equal(
      bucketQuantile(0.99, [
        [1, 1],
        [Infinity, 10],
      ]),
      1,
    );
  });

  it('keeps only the selected families, within the bounds on series and points', () => {
    const store = new SeriesStore(selector([/^node_load/]), { maxSeries: 2, maxPoints: 4 });
    for (let t = 0; t < 6; t++)
      store.add(0, t * 1000, parseExposition(`vllm:num_requests_running ${t}\nnode_load1 ${t}\nnode_load5 1\nother 1\nvllm:num_requests_waiting{x="1"} 0\n`));
    const series = store.all();
    assert.deepEqual(
      series.map((s) => s.name),
      ['vllm:num_requests_running', 'node_load1'],
    );
    assert.deepEqual(series[0]!.points, [
      [0, 0],
      [2000, 2],
      [4000, 4],
      [5000, 5],
    ]);
    assert.equal(store.droppedSeries().get(0), 12);
  });

  it("gives each level a series' mean and max, and a replica gauge's time-weighted mean", () => {
    const series = [
      {
        target: 0,
        name: 'replicas',
        labels: {},
        kind: 'gauge' as const,
        points: [
          [0, 1],
          [1000, 3],
          [3000, 2],
        ] as Array<[number, number]>,
      },
    ];
    assert.deepEqual(
      seriesOverLevel({ intervalMs: 1000, targets: [], series }, 500, 3000).map(({ mean, max }) => [mean, max]),
      [[2.5, 3]],
    );
    // 1 for 1 s, 3 for 2 s, 2 for 1 s over 4 s: 9/4.
    assert.equal(timeWeightedMean(series, 'replicas', 0, 4000), 2.25);
    assert.equal(timeWeightedMean(series, 'absent', 0, 4000), undefined);
  });

  it('counts a gauge only while it is scraped: a rollout that swaps the label is charged once', () => {
    const store = new SeriesStore(keepAll);
    const gauge = 'kube_deployment_status_replicas_available';
    // Pod a serves up to 4 s; from the scrape at 5 s pod b does (a relabelled replica: still 2 replicas all along).
    for (let t = 0; t <= 10; t++) store.add(0, t * 1000, parseExposition(`# TYPE ${gauge} gauge\n${gauge}{pod="${t < 5 ? 'a' : 'b'}"} 2\n`));
    const [a, b] = store.all();
    assert.deepEqual([a!.labels, a!.absent], [{ pod: 'a' }, [5000]], 'pod a found gone at the scrape that did not read it');
    assert.deepEqual([b!.labels, b!.absent], [{ pod: 'b' }, [4000]], 'pod b absent at the scrape before it came');
    // Before, a held 2 to the end and b was backfilled to the start: 4 replicas.
    assert.equal(timeWeightedMean(store.all(), gauge, 0, 10_000), 2 * (5000 / 10_000) + 2 * (5000 / 10_000));
    assert.equal(timeWeightedMean(store.all(), gauge, 6000, 10_000), 2);
    // A gauge there from its target's first scrape stands for the time before it; a failed scrape (no add) marks nothing.
    const steady = new SeriesStore(keepAll);
    steady.add(0, 1000, parseExposition('g 3\n'));
    steady.add(0, 3000, parseExposition('g 3\n'));
    assert.equal(steady.all()[0]!.absent, undefined);
    assert.equal(timeWeightedMean(steady.all(), 'g', 0, 4000), 3);
  });

  it('report merge moves where a gauge was absent onto the merged clock with its points', () => {
    const part = (absent: number[]): Telemetry => ({
      intervalMs: 1000,
      targets: [{ url: 'http://h/metrics', scrapes: 3, failures: 0 }],
      series: [{ target: 0, name: 'g', labels: {}, kind: 'gauge', points: [[2000, 1]], absent }],
    });
    const merged = mergeTelemetry([
      { telemetry: part([1000]), deltaMs: 0 },
      { telemetry: part([3000]), deltaMs: 10_000 },
    ])!;
    assert.deepEqual(merged.series[0]!.absent, [1000, 13_000]);
    assert.deepEqual(merged.series[0]!.points, [
      [2000, 1],
      [12_000, 1],
    ]);
  });

  it('keeps the replica gauge whole, so a report rendered later charges what the run did', () => {
    const store = new SeriesStore(keepAll, { maxSeries: 10, maxPoints: 4, whole: 'replicas' });
    for (let t = 0; t < 6; t++) store.add(0, t * 1000, parseExposition(`replicas ${t}\nother ${t}\n`));
    const [replicas, other] = store.all();
    assert.equal(replicas!.points.length, 6, 'never thinned');
    assert.equal(other!.points.length, 4, 'other series are');
  });
});

/**
 * The file's server, for runs whose checks do not depend on where the server runs (a path such as /metrics is scraped on the
 * target's host): a run with no target starts a built-in server thread of its own. The last test's CLI run keeps the built-in one.
 */
const shared = await sharedTarget();

describe('scraping during a run', () => {
  it("puts the built-in server's /metrics on the run's clock, within an interval of the sessions that caused them", async () => {
    // A knee at 2 sessions: the third of 3 is waiting.
    const server = await testServer({ latency: { ...DEFAULT_LATENCY, capacity: 2 } });
    try {
      const intervalMs = 200;
      const { report } = await run({
        target: server.url,
        model: 'mistralai/Voxtral-Mini-4B-Realtime-2602',
        profile: { kind: 'concurrent', concurrency: 3 },
        maxSessions: 6,
        pace: { kind: 'realtime', speed: 8 },
        idleMs: 500,
        scrape: { urls: ['/metrics'], intervalMs },
      });
      const telemetry = report.telemetry!;
      assert.equal(telemetry.intervalMs, intervalMs);
      assert.equal(telemetry.targets.length, 1);
      assert.match(telemetry.targets[0]!.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      assert.equal(telemetry.targets[0]!.failures, 0);
      const names = new Set(telemetry.series.map((s) => s.name));
      for (const name of ['vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:kv_cache_usage_perc', 'vllm:websocket_connections_active'])
        assert.ok(names.has(name), `${name} among ${[...names].join(', ')}`);
      const sessions = report.benchmarks[0]!.sessions.map((s) => [s.timeline.startMs, sessionEndMs(s.timeline)] as const);
      const active = telemetry.series.find((s) => s.name === 'vllm:websocket_connections_active')!;
      assert.ok(
        active.points.some(([, v]) => v > 0),
        'the gauge saw the sessions',
      );
      assert.ok(active.points.length >= 5, `${active.points.length} readings`);
      // Each reading lies between the sessions surely open around it and those possibly open, within one interval.
      for (const [t, v] of active.points) {
        const surely = sessions.filter(([start, end]) => start + intervalMs <= t && t <= end - intervalMs).length;
        const possibly = sessions.filter(([start, end]) => start - intervalMs <= t && t <= end + intervalMs).length;
        assert.ok(surely <= v && v <= possibly, `${v} connections at ${t} ms; the client had ${surely} to ${possibly} open within ${intervalMs} ms`);
      }
      const at = (name: string): Map<number, number> => new Map(telemetry.series.find((s) => s.name === name)!.points);
      const [running, waiting] = [at('vllm:num_requests_running'), at('vllm:num_requests_waiting')];
      for (const [t, v] of active.points) assert.equal(running.get(t)! + waiting.get(t)!, v, `running and waiting at ${t} ms`);
      assert.equal(Math.max(...running.values()), 2);
      // A lane's next session may connect before the server has seen its last one close.
      assert.ok(Math.max(...waiting.values()) >= 1);
      const accepted = telemetry.series.find((s) => s.name === 'vllm:websocket_connections_total')!;
      assert.equal(accepted.kind, 'rate');
      // The rate's integral is the connections made (the first scrape's count is the base: at most the sessions open then are missed).
      const made = accepted.points.reduce((sum, [t, v], i) => sum + v * (t - (i > 0 ? accepted.points[i - 1]![0] : t)), 0) / 1000;
      assert.ok(Math.round(made) >= 3 && Math.round(made) <= 6, `${made} connections counted of 6`);
    } finally {
      await server.close();
    }
  });

  it('counts a target that fails mid-run, one that is down and one that answers garbage, and the run completes', async () => {
    const flaky = await endpoint((n) =>
      n <= 2
        ? { body: '# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu="0"} 50\n' }
        : n === 3
          ? { status: 503, body: '' }
          : { body: '<html>\u001b[31mnot metrics</html>' },
    );
    const downPort = await closedPort();
    const failures: string[] = [];
    const { report } = await run({
      ...shared,
      maxSessions: 2,
      pace: { kind: 'realtime', speed: 8 },
      idleMs: 600,
      scrape: { urls: [`http://user:secret@${flaky}/metrics`, `http://127.0.0.1:${downPort}/metrics`], intervalMs: 100 },
      onScrapeFailure: (url, error) => failures.push(`${url} ${error}`),
    });
    assert.equal(report.benchmarks[0]!.summary.sessions.completed, 2);
    const [flakyTarget, downTarget] = report.telemetry!.targets;
    assert.match(flakyTarget!.url, /^http:\/\/REDACTED:REDACTED@127\.0\.0\.1:\d+\/metrics$/);
    assert.ok(flakyTarget!.scrapes > flakyTarget!.failures && flakyTarget!.failures >= 2, JSON.stringify(flakyTarget));
    assert.match(flakyTarget!.lastError!, /^not Prometheus text: line 1: not a metric name: "<html>\\u001b/);
    assert.equal(downTarget!.failures, downTarget!.scrapes);
    assert.equal(downTarget!.lastError, 'ECONNREFUSED');
    assert.ok(failures.some((f) => f.includes('HTTP 503')));
    assert.ok(!failures.some((f) => f.includes('secret')));
    const gpu = report.telemetry!.series.find((s) => s.name === 'DCGM_FI_DEV_GPU_UTIL')!;
    assert.deepEqual(
      gpu.points.map(([, v]) => v),
      [50, 50],
    );
  });

  it("records the families kept, and report merge keeps every part's series on the merged clock", async () => {
    const gauge = await endpoint(() => ({ body: '# TYPE node_load1 gauge\nnode_load1 2\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL 40\n' }));
    const once = () =>
      run({
        ...shared,
        maxSessions: 1,
        pace: { kind: 'realtime', speed: 8 },
        idleMs: 300,
        scrape: { urls: [`http://${gauge}/metrics`], intervalMs: 100, match: ['^node_'] },
      });
    const [{ report: a }, { report: b }] = [await once(), await once()];
    assert.deepEqual(a.telemetry!.kept!.match, ['^node_']);
    assert.ok(a.telemetry!.kept!.defaults.includes('vllm:num_requests_running'));
    const merged = mergeReports([a, b], ['a', 'b']).telemetry!;
    assert.equal(merged.targets.length, 1, 'one URL, one target');
    assert.equal(merged.targets[0]!.scrapes, a.telemetry!.targets[0]!.scrapes + b.telemetry!.targets[0]!.scrapes);
    assert.deepEqual(merged.kept, a.telemetry!.kept);
    const delta = Date.parse(b.startedAt) - Date.parse(a.startedAt);
    assert.ok(delta > 0);
    for (const name of ['node_load1', 'DCGM_FI_DEV_GPU_UTIL']) {
      const of = (t: typeof merged) => t.series.filter((s) => s.name === name);
      assert.equal(of(merged).length, 1, `${name}: one series`);
      const expected = [...of(a.telemetry!)[0]!.points, ...of(b.telemetry!)[0]!.points.map(([t, v]): [number, number] => [t + delta, v])];
      assert.deepEqual(of(merged)[0]!.points, expected, `${name}: b's points after a's, moved by the runs' start difference`);
    }
    // On the merged clock b's session and b's points meet again.
    const bSession = mergeReports([a, b], ['a', 'b']).benchmarks[0]!.sessions.at(-1)!.timeline.startMs;
    assert.ok(bSession > delta - 1000);
    assert.ok(
      merged.series[0]!.points.some(([t]) => Math.abs(t - bSession) < 1000),
      "a point within a second of b's session",
    );
  });

  it("a sweep's page gives each series' mean and max per level under the load curves", async () => {
    const { report } = await run({
      ...shared,
      sweep: [1, 3],
      maxSessions: 3,
      pace: { kind: 'realtime', speed: 8 },
      idleMs: 300,
      scrape: { urls: ['/metrics'], intervalMs: 100 },
    });
    const page = renderHtml(report);
    const load = page.slice(page.indexOf('id="load"'));
    const table =
      /<table class="server-by-level"><thead><tr><th[^>]*>series<\/th><th[^>]*>([^<]+)<\/th><th[^>]*>([^<]+)<\/th><\/tr><\/thead><tbody>(.*?)<\/tbody>/s.exec(
        load,
      );
    assert.ok(table, 'a table of server series in the load section');
    assert.deepEqual(
      [table[1], table[2]],
      report.benchmarks.map((b) => b.label),
    );
    const row = /<tr><td>vllm:num_<wbr>requests_<wbr>running<\/td><td>([\d.]+) · ([\d.]+)<\/td><td>([\d.]+) · ([\d.]+)<\/td><\/tr>/.exec(table[3]!);
    assert.ok(row, table[3]);
    const running = report.telemetry!.series.find((s) => s.name === 'vllm:num_requests_running')!;
    report.benchmarks.forEach((b, i) => {
      const o = seriesOverLevel(report.telemetry!, b.startMs, b.endMs).find((x) => x.series === running)!;
      assert.equal(Number(row[2 * i + 2]), Number(o.max.toPrecision(4)), `${b.label}: max`);
      assert.equal(Number(row[2 * i + 1]), Number(o.mean.toPrecision(4)), `${b.label}: mean`);
    });
    // Maxima alone can tie: one level's session may open before the server has counted the last one closed.
    assert.ok(Number(row[3]) > Number(row[1]) && Number(row[4]) >= 2, `more running at the higher level: ${row[0]}`);
  });

  it("compare.html sets the servers' series side by side, and cold and warm starts apart", async () => {
    const once = () => run({ ...shared, maxSessions: 2, pace: { kind: 'realtime', speed: 8 }, idleMs: 300, scrape: { urls: ['/metrics'], intervalMs: 100 } });
    const [{ report: a }, { report: b }] = [await once(), await once()];
    const comparison = compareReports(a, b);
    const page = renderComparisonHtml(comparison);
    const server = page.slice(page.indexOf('<section id="server">'), page.indexOf('</section>', page.indexOf('<section id="server">')));
    const row = /<tr><td><code>vllm:websocket_connections_active<\/code><\/td><td>([\d.]+) → ([\d.]+)<\/td><td>([\d.]+) → ([\d.]+)<\/td><\/tr>/.exec(server);
    assert.ok(row, server);
    assert.equal(Number(row[3]), comparison.a.server!.find((f) => f.series === 'vllm:websocket_connections_active')!.max);
    assert.equal(Number(row[4]), comparison.b.server!.find((f) => f.series === 'vllm:websocket_connections_active')!.max);
    const cold = page.slice(page.indexOf('<section id="cold-warm">'));
    assert.match(cold, /cold sessions A → B: 1 → 1, warm: 1 → 1/);
    const ttft = /<tr><td><code[^>]*>ttft_ms<\/code><\/td><td>ms<\/td><td>([\d.]+) → ([\d.]+)<\/td><td>([\d.]+) → ([\d.]+)<\/td><\/tr>/.exec(cold);
    assert.ok(ttft, cold.slice(0, 2000));
    // Each cell as written: the value to the decimals shown.
    const shows = (text: string, value: number): boolean => Math.abs(Number(text) - value) <= 0.5 * 10 ** -(text.split('.')[1]?.length ?? 0);
    assert.ok(shows(ttft[1]!, a.benchmarks[0]!.summary.coldWarm!.cold.metrics.ttft_ms!.p50), `cold A ${ttft[1]}`);
    assert.ok(shows(ttft[4]!, b.benchmarks[0]!.summary.coldWarm!.warm.metrics.ttft_ms!.p50), `warm B ${ttft[4]}`);
    // Without scrapes or cold sessions on a side, the sections are left out.
    const plain = renderComparisonHtml(compareReports({ ...a, telemetry: undefined }, { ...b, telemetry: undefined }));
    assert.ok(!plain.includes('<section id="server">'));
  });

  it('charges a level for the replicas a scraped gauge says ran', async () => {
    const replicas = await endpoint(() => ({ body: '# TYPE kube_deployment_status_replicas_available gauge\nkube_deployment_status_replicas_available 3\n' }));
    const { report } = await run({
      ...shared,
      maxSessions: 1,
      pace: { kind: 'realtime', speed: 8 },
      idleMs: 300,
      pricing: { perReplicaHour: 3.6, replicas: 1 },
      scrape: {
        urls: [`http://${replicas}/metrics`],
        intervalMs: 100,
        match: ['^kube_deployment'],
        replicasSeries: 'kube_deployment_status_replicas_available',
      },
    });
    const cost = report.benchmarks[0]!.summary.cost!;
    assert.equal(cost.replicas, 3);
    assert.equal(cost.total, (3.6 * 3 * cost.intervalS) / 3600);
    assert.equal(report.telemetry!.replicasSeries, 'kube_deployment_status_replicas_available');
    // Figures recomputed from the report (report render) charge the same replicas.
    assert.deepEqual(recompute(report).benchmarks[0]!.summary.cost, cost);
    assert.deepEqual(cost.replicasFrom, { series: 'kube_deployment_status_replicas_available', fallback: false });
    assert.match(renderSummary(report), /× 3 replicas, the time-weighted mean of kube_deployment_status_replicas_available over/);
  });

  it("charges a rollout that swaps the gauge's labels once, and report render charges the same", async () => {
    const gauge = 'kube_deployment_status_replicas_available';
    const rolling = await endpoint((n) => ({ body: `# TYPE ${gauge} gauge\n${gauge}{pod="${n < 3 ? 'a' : 'b'}"} 2\n` }));
    const { report } = await run({
      ...shared,
      maxSessions: 2,
      pace: { kind: 'realtime', speed: 8 },
      idleMs: 300,
      pricing: { perReplicaHour: 3.6, replicas: 1 },
      scrape: { urls: [`http://${rolling}/metrics`], intervalMs: 100, match: ['^kube_deployment'], replicasSeries: gauge },
    });
    assert.equal(report.telemetry!.series.length, 2, 'the old pod and the new');
    const cost = report.benchmarks[0]!.summary.cost!;
    assert.equal(cost.replicas, 2, 'two replicas all along, not the old pod held and the new one backfilled');
    assert.deepEqual(recompute(JSON.parse(JSON.stringify(report)) as typeof report).benchmarks[0]!.summary.cost, cost);
  });

  it('says on every output when the replica gauge was never scraped and the cost fell back to the replicas given', async () => {
    // The target answers, but never with the gauge: the level is charged --replicas.
    const bare = await endpoint(() => ({ body: '# TYPE other gauge\nother 1\n' }));
    const { report } = await run({
      ...shared,
      maxSessions: 1,
      pace: { kind: 'realtime', speed: 8 },
      idleMs: 300,
      pricing: { perReplicaHour: 3.6, replicas: 2 },
      scrape: { urls: [`http://${bare}/metrics`], intervalMs: 100, match: ['^kube_'], replicasSeries: 'kube_deployment_status_replicas_available' },
    });
    const cost = report.benchmarks[0]!.summary.cost!;
    assert.equal(cost.replicas, 2);
    assert.deepEqual(cost.replicasFrom, { series: 'kube_deployment_status_replicas_available', fallback: true });
    const said = 'given (kube_deployment_status_replicas_available not scraped in the level)';
    assert.match(renderSummary(report), new RegExp(`^cost: .*× 2 replicas ${escape(said)} over`, 'm'));
    assert.deepEqual(jsonSummary(report).levels[0]!.cost!.replicasFrom, cost.replicasFrom);
    assert.match(renderMarkdown(report), new RegExp(`^synchronous cost: .*× 2 replicas ${escape(said.replaceAll('_', '\\_'))} over`, 'm'));
    const levels = renderCsv(report)['levels.csv']!.split('\r\n');
    assert.match(levels[0]!, /,cost_per_audio_hour,replicas,replicas_from$/);
    assert.match(levels[1]!, new RegExp(`,2,${escape(said)}$`));
    assert.match(renderHtml(report), new RegExp(`<th[^>]*>replicas from</th>.*<td>${escape(said)}</td>`, 's'));
    assert.deepEqual(recompute(report).benchmarks[0]!.summary.cost, cost);
  });

  it('names a counter\'s rate "per s" alike on every output, --json included, with each series\' kind', async () => {
    const { report } = await run({
      ...shared,
      maxSessions: 2,
      pace: { kind: 'realtime', speed: 8 },
      idleMs: 300,
      scrape: { urls: ['/metrics'], intervalMs: 100 },
    });
    const server = jsonSummary(report).levels[0]!.server!;
    const rate = server.find((s) => s.kind === 'rate');
    const gauge = server.find((s) => s.kind === 'gauge');
    assert.ok(rate && gauge, JSON.stringify(server));
    assert.equal(rate.title, `${rate.series} per s`);
    assert.equal(gauge.title, gauge.series);
    const shown = renderSummary(report);
    for (const s of server.slice(0, 6)) assert.ok(shown.includes(`  ${s.title}: mean`), `${s.title} on the console`);
    const markdown = renderMarkdown(report);
    for (const s of server.slice(0, 6)) assert.ok(markdown.includes(`| \`${s.series}\`${s.kind === 'rate' ? ' per s' : ''} |`), `${s.title} in summary.md`);
    assert.match(renderHtml(report), new RegExp(`"label":"${escape(rate.series)}","unit":"per s"`));
  });

  it('refuses a replica gauge the scrape would never keep, with one line and exit code 2', async () => {
    const options = {
      pricing: { perReplicaHour: 1, replicas: 1 },
      scrape: { urls: ['/metrics'], replicasSeries: 'kube_deployment_status_replicas_available' },
    };
    await assert.rejects(
      run(options),
      /^OptionsError: scrape\.replicasSeries kube_deployment_status_replicas_available is not a family the scrape keeps; keep it with scrape\.match/,
    );
    const result = await runNode([CLI, 'run', '--max-sessions', '1', '--cost-per-hour', '1', '--scrape', '/metrics', '--replicas-series', 'kube_x']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr, 'voxbench: error: --replicas-series kube_x is not a family the scrape keeps; keep it with --scrape-match, e.g. ^kube_x$\n');
  });

  it('voxbench run --scrape /metrics: the built-in server scraped, a dead target warned of, the series per level on the console and in CSV', async () => {
    const out = await tempDir();
    const downPort = await closedPort();
    const result = await runNode([
      CLI,
      'run',
      '--pace',
      '8x',
      '--max-sessions',
      '2',
      '--idle-ms',
      '300',
      '--scrape',
      '/metrics',
      '--scrape',
      `http://127.0.0.1:${downPort}/metrics`,
      '--scrape-interval',
      '0.1',
      '--outputs',
      'csv,md',
      '--output-dir',
      out,
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, new RegExp(`warning: scrape http://127\\.0\\.0\\.1:${downPort}/metrics failed: ECONNREFUSED \\(the run goes on`));
    assert.match(result.stdout, /server \(scraped, mean and max over the level.*\):\n {2}vllm:num_requests_running: mean [\d.]+ · max [1-9]/);
    assert.match(
      result.stdout,
      new RegExp(`warning: scrape http://127\\.0\\.0\\.1:${downPort}/metrics: (\\d+) of \\1 scrapes failed \\(last: ECONNREFUSED\\)`),
    );
    const csv = await readFile(join(out, 'server-metrics.csv'), 'utf8');
    assert.match(csv, /^level,target,series,labels,kind,mean,max\r\n/);
    assert.match(csv, /\r\nsynchronous,http:\/\/127\.0\.0\.1:\d+\/metrics,vllm:websocket_connections_active,\{\},gauge,/);
    const markdown = await readFile(join(out, 'summary.md'), 'utf8');
    assert.match(
      markdown,
      /\| level \| server series \(scraped\) \| mean \| max \|\n\|---\|---\|---:\|---:\|\n\| synchronous \| `vllm:num_requests_running` \| /,
    );
    assert.match(markdown, /\nWarning: scrape http:\/\/127\.0\.0\.1:\d+\/metrics: \d+ of \d+ scrapes failed/);
    const compared = await runNode([CLI, 'report', 'compare', out, out]);
    assert.equal(compared.code, 0, compared.stderr);
    assert.match(compared.stdout, /\nserver series \(scraped\) +mean A → B +max A → B\nvllm:num_requests_running +([\d.]+) → \1 +([\d.]+) → \2\n/);
    // A refusal run() words, checked in-process in the words the CLI prints (the one line and exit code 2 of such a refusal: above).
    await assert.rejects(run({ ...shared, maxSessions: 1, scrape: { urls: ['ftp://host/metrics'] } }), (err: Error) => {
      assert.ok(err instanceof OptionsError, err.message);
      assert.match(flagMessage(err), /--scrape ftp:\/\/host\/metrics is not an http:\/\/ or https:\/\/ URL/);
      return true;
    });
  });
});
