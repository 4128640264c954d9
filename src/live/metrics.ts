import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { measure, metricsFor, type MetricDefinition } from '../metrics/catalog.js';
import { sessionEndMs, type SessionRecord, type Task } from '../timeline/types.js';
import { sessionView } from '../views/session-view.js';

/**
 * Bucket bounds (seconds) that fit speech latencies: tens of milliseconds for a first
 * partial, hundreds for a finalization, seconds for a struggling server.
 */
export const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10];
/** Connection lifetimes (seconds): a short utterance to an hour-long call. */
export const DURATION_BUCKETS = [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** What a session is labelled with besides its outcome. */
export interface SessionLabels {
  protocol: string;
  model: string;
}

/**
 * The Prometheus metrics of live speech sessions, in one registry, shared by
 * `voxbench proxy` (observed traffic) and `voxbench run --metrics-port` (its own):
 * sessions open and ended by outcome and failure class, closes by code and by who
 * closed, upgrade failures by status, duration, bytes and frames each way, and every
 * catalog latency of the session's task, as histograms. Figures come from the catalog
 * applied to each session's timeline as it ends, so they are the report's own.
 */
export class LiveMetrics {
  readonly registry = new Registry();
  private readonly open = new Gauge({
    name: 'voxbench_sessions_open',
    help: 'Sessions (WebSocket connections) open now.',
    labelNames: ['protocol'],
    registers: [this.registry],
  });
  private readonly ended = new Counter({
    name: 'voxbench_sessions_total',
    help: 'Sessions ended, by outcome (completed, failed, incomplete) and failure class.',
    labelNames: ['protocol', 'model', 'outcome', 'failure_class'],
    registers: [this.registry],
  });
  private readonly closes = new Counter({
    name: 'voxbench_connections_closed_total',
    help: 'WebSocket connections closed, by close code and by who closed first (client or server).',
    labelNames: ['protocol', 'model', 'close_code', 'closed_by'],
    registers: [this.registry],
  });
  private readonly upgradeFailures = new Counter({
    name: 'voxbench_upgrade_failures_total',
    help: 'WebSocket upgrades the server refused, by HTTP status (0: no answer).',
    labelNames: ['protocol', 'status'],
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'voxbench_session_duration_seconds',
    help: 'Connection lifetime, connect to close.',
    labelNames: ['protocol', 'model'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly bytes = new Counter({
    name: 'voxbench_bytes_total',
    help: 'Payload bytes of ended sessions, by direction (sent: client to server).',
    labelNames: ['protocol', 'direction'],
    registers: [this.registry],
  });
  private readonly frames = new Counter({
    name: 'voxbench_frames_total',
    help: 'Frames of ended sessions, by direction (sent: client to server).',
    labelNames: ['protocol', 'direction'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'voxbench_latency_seconds',
    help: "The catalog's latencies (voxbench metrics), one value per turn or session, by metric name without its _ms.",
    labelNames: ['protocol', 'model', 'metric'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly samples = new Histogram({
    name: 'voxbench_latency_samples_seconds',
    help: "The catalog's pooled latencies (many values per turn: inter-text gaps, word emission, the client's send lag), by metric.",
    labelNames: ['protocol', 'model', 'metric'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  sessionOpened(protocol: string): void {
    this.open.inc({ protocol });
  }

  /** A session ended: `opened` when `sessionOpened` counted it (it reached the server). */
  sessionEnded(record: SessionRecord, labels: SessionLabels, opened: boolean): void {
    const { protocol, model } = labels;
    if (opened) this.open.dec({ protocol });
    const { timeline, outcome } = record;
    const failure = outcome.status === 'failed' ? outcome.failure : undefined;
    this.ended.inc({ protocol, model, outcome: outcome.status, failure_class: failure?.class ?? '' });
    if (failure?.class === 'upgrade_status') this.upgradeFailures.inc({ protocol, status: String(failure.httpStatus ?? 0) });
    const { transport, counters } = timeline;
    if (transport.kind === 'websocket' && transport.close) {
      this.closes.inc({ protocol, model, close_code: String(transport.close.code), closed_by: transport.close.by });
    }
    this.duration.observe({ protocol, model }, Math.max(0, sessionEndMs(timeline) - timeline.startMs) / 1000);
    this.bytes.inc({ protocol, direction: 'sent' }, counters.bytesSent);
    this.bytes.inc({ protocol, direction: 'received' }, counters.bytesReceived);
    this.frames.inc({ protocol, direction: 'sent' }, counters.framesSent);
    this.frames.inc({ protocol, direction: 'received' }, counters.framesReceived);
    this.observeLatencies(record, labels);
  }

  private observeLatencies(record: SessionRecord, { protocol, model }: SessionLabels): void {
    const view = sessionView(record.timeline);
    for (const metric of latencyMetrics(record.timeline.task)) {
      const labels = { protocol, model, metric: metric.name.replace(/_ms$/, '') };
      if (metric.scope === 'input_samples') {
        for (const input of view.inputs) for (const value of metric.samples(input)) this.samples.observe(labels, value / 1000);
        continue;
      }
      if (metric.scope === 'corpus') continue;
      const views = metric.scope === 'input' ? view.inputs : metric.scope === 'response' ? view.responses : [view];
      for (const v of views) {
        const value = measure(metric, v);
        if (value !== undefined) this.latency.observe(labels, value / 1000);
      }
    }
  }
}

/** The task's metrics in milliseconds that a dashboard watches: latencies, and the client's own lag. */
export function latencyMetrics(task: Task): MetricDefinition[] {
  return metricsFor(task, 'latency', 'client').filter((m) => m.unit === 'ms');
}
