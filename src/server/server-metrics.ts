import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** vLLM's WebSocket connection lifetimes, seconds (vllm-project/vllm `vllm/entrypoints/openai/realtime/metrics.py`). */
const CONNECTION_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/**
 * The simulated server's `GET /metrics`: a few of vLLM's own series under vLLM's names
 * (vllm-project/vllm `vllm/v1/metrics/loggers.py`; the realtime WebSocket series from
 * `vllm/entrypoints/openai/realtime/metrics.py`), fed by its real sessions, so a run can
 * scrape it (`--scrape`) with no GPU. The engine is simulated: sessions up to the
 * latency model's capacity are running and those beyond it waiting (the model slows them
 * all past that knee), and the KV cache is the share of that capacity in use.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly active: Gauge;
  private readonly connections: Counter;
  private readonly duration: Histogram;

  constructor(model: string, capacity: number, openSessions: () => number) {
    const labels = { model_name: model, engine: '0' };
    const engineGauge = (name: string, help: string, value: (open: number) => number): void => {
      new Gauge({
        name,
        help,
        labelNames: ['model_name', 'engine'],
        registers: [this.registry],
        collect() {
          this.set(labels, value(openSessions()));
        },
      });
    };
    engineGauge('vllm:num_requests_running', 'Number of requests in model execution batches.', (open) => Math.min(open, capacity));
    engineGauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', (open) => Math.max(0, open - capacity));
    engineGauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', (open) => Math.min(1, open / capacity));
    this.active = new Gauge({ name: 'vllm:websocket_connections_active', help: 'Active WebSocket connections.', registers: [this.registry] });
    this.connections = new Counter({ name: 'vllm:websocket_connections_total', help: 'Total WebSocket connections accepted.', registers: [this.registry] });
    this.duration = new Histogram({
      name: 'vllm:websocket_connection_duration_seconds',
      help: 'WebSocket connection duration in seconds.',
      buckets: CONNECTION_BUCKETS,
      registers: [this.registry],
    });
  }

  /** A WebSocket connection accepted; call what it returns when it closes. */
  connected(): () => void {
    this.active.inc();
    this.connections.inc();
    const end = this.duration.startTimer();
    return () => {
      this.active.dec();
      end();
    };
  }
}
