import { performance } from 'node:perf_hooks';
import type { Registry } from 'prom-client';

/** vLLM's WebSocket connection lifetimes, seconds (vllm-project/vllm `vllm/entrypoints/openai/realtime/metrics.py`). */
const CONNECTION_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

/**
 * The simulated server's `GET /metrics`: a few of vLLM's own series under vLLM's names
 * (vllm-project/vllm `vllm/v1/metrics/loggers.py`; the realtime WebSocket series from
 * `vllm/entrypoints/openai/realtime/metrics.py`), fed by its real sessions, so a run can
 * scrape it (`--scrape`) with no GPU. The engine is simulated: sessions up to the
 * latency model's capacity are running and those beyond it waiting (the model slows them
 * all past that knee), and the KV cache is the share of that capacity in use.
 *
 * prom-client is loaded at the first scrape, not when the server starts (where it was a
 * third of the start's CPU, paid by every run on the built-in server): until then the
 * connections are counted here, and their lifetimes kept for the histogram.
 */
export class ServerMetrics {
  private readonly connections = { active: 0, total: 0 };
  /** Lifetimes (s) of the connections closed before the histogram existed. */
  private readonly closed: number[] = [];
  private observe = (seconds: number): void => void this.closed.push(seconds);
  private registry: Promise<Registry> | undefined;

  constructor(
    private readonly model: string,
    private readonly capacity: number,
    private readonly openSessions: () => number,
  ) {}

  /** A WebSocket connection accepted; call what it returns when it closes. */
  connected(): () => void {
    this.connections.active++;
    this.connections.total++;
    const start = performance.now();
    return () => {
      this.connections.active--;
      this.observe((performance.now() - start) / 1000);
    };
  }

  /** The exposition of every series, and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    const registry = await (this.registry ??= this.build());
    return { contentType: registry.contentType, text: await registry.metrics() };
  }

  private async build(): Promise<Registry> {
    const { Counter, Gauge, Histogram, Registry } = await import('prom-client');
    const registry = new Registry();
    const labels = { model_name: this.model, engine: '0' };
    const { capacity, openSessions, connections } = this;
    const engineGauge = (name: string, help: string, value: (open: number) => number): void => {
      new Gauge({
        name,
        help,
        labelNames: ['model_name', 'engine'],
        registers: [registry],
        collect() {
          this.set(labels, value(openSessions()));
        },
      });
    };
    engineGauge('vllm:num_requests_running', 'Number of requests in model execution batches.', (open) => Math.min(open, capacity));
    engineGauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', (open) => Math.max(0, open - capacity));
    engineGauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', (open) => Math.min(1, open / capacity));
    new Gauge({
      name: 'vllm:websocket_connections_active',
      help: 'Active WebSocket connections.',
      registers: [registry],
      collect() {
        this.set(connections.active);
      },
    });
    new Counter({
      name: 'vllm:websocket_connections_total',
      help: 'Total WebSocket connections accepted.',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(connections.total);
      },
    });
    const duration = new Histogram({
      name: 'vllm:websocket_connection_duration_seconds',
      help: 'WebSocket connection duration in seconds.',
      buckets: CONNECTION_BUCKETS,
      registers: [registry],
    });
    this.observe = (seconds) => duration.observe(seconds);
    for (const seconds of this.closed.splice(0)) duration.observe(seconds);
    return registry;
  }
}
