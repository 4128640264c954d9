import { TASKS, type Task } from '../../timeline/types.js';
import type { SessionView } from '../../views/session-view.js';
import { ANCHORS as A } from '../anchors.js';
import { maxOf } from '../stats.js';
import type { MetricDefinition, Unit } from './definition.js';

/** Figures of every task: the connection, the client's own timing, and transport counts. */

const ALL = TASKS;
/** Tasks whose client streams audio in chunks (a batch request's recording is one body; speech generation sends text). */
const STREAMED: readonly Task[] = ['stt', 's2s'];

/** A per-session transport count: a quantity, not an interval. */
function transportCounter(
  name: string,
  unit: Unit,
  quantity: string,
  description: string,
  value: (s: SessionView) => number,
  tags: MetricDefinition['tags'] = ['transport'],
): MetricDefinition {
  return { name, unit, scope: 'session', tasks: ALL, tags, better: 'neither', quantity, description, value };
}

export const CONNECTION: MetricDefinition[] = [
  {
    name: 'connect_ms',
    unit: 'ms',
    scope: 'session',
    tasks: ALL,
    tags: ['latency', 'transport'],
    better: 'lower',
    from: A.session.start,
    to: A.session.open,
    description: 'Connection setup: TCP, TLS and the WebSocket upgrade.',
  },
];

export const CLIENT_AND_TRANSPORT: MetricDefinition[] = [
  {
    name: 'send_lag_ms',
    unit: 'ms',
    scope: 'input_samples',
    tasks: ALL,
    tags: ['client'],
    better: 'lower',
    from: 'planned send time of a media chunk',
    to: 'actual send time',
    description: "The client's own lateness against its real-time schedule; unpaced chunks have none.",
    samples: (v) => {
      // A loop, not a list per chunk: every chunk of every session is one (issue 38).
      const lags: number[] = [];
      for (const c of v.media) if (typeof c.plannedMs === 'number') lags.push(c.t - c.plannedMs);
      return lags;
    },
  },
  {
    name: 'start_lag_ms',
    unit: 'ms',
    scope: 'session',
    tasks: ALL,
    tags: ['client'],
    better: 'lower',
    from: A.session.planned_start,
    to: A.session.start,
    description: "How late the client started the session against its load profile's plan; open-loop lag is recorded, never absorbed.",
  },
  {
    name: 'update_ms',
    unit: 'ms',
    scope: 'session',
    tasks: ALL,
    tags: ['latency'],
    better: 'lower',
    from: A.session.update_sent,
    to: A.session.update_confirmed,
    description: 'How fast live settings take effect; only where the dialect confirms updates.',
  },
  {
    name: 'updates_refused',
    unit: 'count',
    scope: 'session',
    tasks: ALL,
    tags: ['transport'],
    better: 'lower',
    quantity: 'mid-stream settings updates the server refused',
    description:
      "Updates answered with a refusal the session outlives (Deepgram's ConfigureFailure): the stream keeps its settings and the update has no update_ms; only in sessions that sent one.",
    value: (s) => (s.updates.length > 0 ? s.timeline.received.filter((e) => e.kind === 'error' && e.scope === 'update').length : undefined),
  },
  {
    name: 'audio_sent_ms',
    unit: 'ms',
    scope: 'session',
    tasks: STREAMED,
    tags: ['transport', 'workload'],
    better: 'neither',
    quantity: 'audio streamed in the session, all inputs',
    description: 'Audio handed to the socket; compare with audio_acked_ms.',
    value: (s) => s.inputs.reduce((end, v) => Math.max(end, v.media[v.media.length - 1]?.audioEndMs ?? 0), 0),
  },
  {
    name: 'audio_acked_ms',
    unit: 'ms',
    scope: 'session',
    tasks: STREAMED,
    tags: ['transport'],
    better: 'neither',
    quantity: 'audio the server acknowledged consuming (its last progress event)',
    description: 'Only for servers that acknowledge consumption; below audio_sent_ms means audio was not taken in.',
    value: (s) => {
      const acks = s.timeline.received.filter((e) => e.kind === 'progress');
      return acks.length > 0 ? maxOf(acks.map((e) => e.audioEndMs ?? 0)) : undefined;
    },
  },
  {
    name: 'session_ms',
    unit: 'ms',
    scope: 'session',
    tasks: ALL,
    tags: ['transport'],
    better: 'neither',
    from: A.session.start,
    to: A.session.close,
    description: 'Connection lifetime, as a deployment dashboard sees it.',
  },
  transportCounter(
    'bytes_sent',
    'bytes',
    'payload bytes sent',
    'Payload bytes of every frame or request body the client sent.',
    (s) => s.timeline.counters.bytesSent,
    ['transport', 'workload'],
  ),
  transportCounter(
    'bytes_received',
    'bytes',
    'payload bytes received',
    'Payload bytes of every frame or response body the server sent.',
    (s) => s.timeline.counters.bytesReceived,
  ),
  transportCounter('frames_sent', 'count', 'frames sent', 'Frames (or requests) the client sent.', (s) => s.timeline.counters.framesSent, [
    'transport',
    'workload',
  ]),
  transportCounter(
    'frames_received',
    'count',
    'frames received',
    'Frames (or response body chunks) the server sent.',
    (s) => s.timeline.counters.framesReceived,
  ),
  {
    name: 'protocol_anomalies',
    unit: 'count',
    scope: 'session',
    tasks: ['stt', 'batch_stt', 's2s'],
    tags: ['transport'],
    better: 'lower',
    quantity: "events out of the protocol's order: finals that answered no input, response events out of their response's order",
    description:
      "Finals that arrived while no end control awaited one (before the turn's final commit, or an extra one), or that repeat an item's final; speech to speech, a response's done before its creation or for no response, a second done or creation, audio after its done, an absurd audio_duration_ms: recorded in the timeline, never a turn's final or text, and a response any of them names is in no figure.",
    value: (s) => s.anomalies.length,
  },
];
