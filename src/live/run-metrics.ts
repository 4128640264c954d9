import type { RunConfig } from '../report/schema.js';
import type { SessionRecord } from '../timeline/types.js';
import { SlicedWork } from '../runtime/sliced-work.js';
import { LiveMetrics, type SessionLabels } from './metrics.js';
import { serveMetrics, type Listen, type MetricsEndpoint } from './serve.js';

/** `voxbench run --metrics-port`: the run's own sessions, live, in the proxy's metrics. */
export interface RunMetrics {
  endpoint: MetricsEndpoint;
  runStart(config: RunConfig): void;
  sessionStart(): void;
  sessionEnd(record: SessionRecord): void;
  close(): Promise<void>;
}

export async function serveRunMetrics(listen: Listen): Promise<RunMetrics> {
  const live = new LiveMetrics();
  const endpoint = await serveMetrics(live.registry, listen);
  let labels: SessionLabels = { protocol: '', model: '' };
  // A session's latencies are observed off the deadlines of the sessions still streaming.
  const ended = new SlicedWork<SessionRecord>((record) => live.sessionEnded(record, labels, true));
  return {
    endpoint,
    runStart: (config) => (labels = { protocol: config.protocol, model: config.model }),
    sessionStart: () => live.sessionOpened(labels.protocol),
    sessionEnd: (record) => ended.push(record),
    close: () => {
      ended.flush();
      return endpoint.close();
    },
  };
}
