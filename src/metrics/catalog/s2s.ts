import type { Task } from '../../timeline/types.js';
import { elapsed } from '../anchors.js';
import * as S2S from '../s2s.js';
import type { MetricDefinition } from './definition.js';

/**
 * Speech-to-speech figures keep vLLM-Omni's definitions under names of their own: names
 * are unique across tasks (`metricByName`, SLOs and compare resolve a name to one
 * entry), so the per-response TTFT is `response_ttft_ms` (vLLM-Omni's
 * `duplex_response_ttft_ms`), never the transcription `ttft_ms`.
 */
const S2S_TASK: readonly Task[] = ['s2s'];

export const S2S_METRICS: MetricDefinition[] = [
  {
    name: 'response_ttft_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['headline', 'latency'], better: 'lower',
    quantity: 'first non-empty text or transcript delta of the response minus its start (the commit sent when the client committed, else response.created received)',
    description: "vLLM-Omni's per-response TTFT: how soon the answer's words begin.",
    value: (r) => elapsed(S2S.responseStart(r), S2S.firstText(r)),
  },
  {
    name: 'response_ttfp_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['headline', 'latency'], better: 'lower',
    quantity: 'first non-empty audio delta of the response minus its start (the commit sent when the client committed, else response.created received)',
    description: "vLLM-Omni's per-response time to first audio packet.",
    value: (r) => elapsed(S2S.responseStart(r), S2S.firstAudio(r)),
  },
  {
    name: 'response_rtf', unit: 'ratio', scope: 'response', tasks: S2S_TASK, tags: ['headline', 'throughput'], better: 'lower',
    quantity: "(last audio packet − response.created received) / the response's emitted audio (its largest cumulative metadata.audio_duration_ms, else the payloads' duration)",
    description: 'Generation real-time factor of one answer; below 1 keeps ahead of playback.',
    value: S2S.responseRtf,
  },
  {
    name: 'stream_ttft_ms', unit: 'ms', scope: 'session', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: "first non-empty response text or transcript delta minus the input stream's start (first audio sent)",
    description: "vLLM-Omni's session stream_ttft_ms.",
    value: S2S.streamTtft,
  },
  {
    name: 'stream_ttfp_ms', unit: 'ms', scope: 'session', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: "first non-empty response audio delta minus the input stream's start (first audio sent)",
    description: "vLLM-Omni's session stream_ttfp_ms.",
    value: S2S.streamTtfp,
  },
  {
    name: 'stream_rtf', unit: 'ratio', scope: 'session', tasks: S2S_TASK, tags: ['throughput'], better: 'lower',
    quantity: "(last audio received − input stream start) / the sum of each response's emitted audio",
    description: "vLLM-Omni's session stream_rtf.",
    value: S2S.streamRtf,
  },
  {
    name: 'voice_to_voice_ms', unit: 'ms', scope: 'input', tasks: S2S_TASK, tags: ['headline', 'latency'], better: 'lower',
    quantity: "first audio of the answer received minus the end of the user's speech (send time of the chunk holding it; eos_source says where it came from)",
    description: "The delay a caller hears between finishing a sentence and the agent's voice (LiveKit's end-to-end latency).",
    value: S2S.voiceToVoice,
  },
  {
    name: 'agent_playback_start_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: `playback start of a player that buffers ${S2S.AGENT_PLAYBACK_BUFFER_MS} ms, minus the response's start`,
    description: "When the listener starts hearing the answer.",
    value: (r) => elapsed(S2S.responseStart(r), r.playback(S2S.AGENT_PLAYBACK_BUFFER_MS).startMs),
  },
  {
    name: 'agent_stall_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: `time the answer's playback waited for audio after it started (player buffering ${S2S.AGENT_PLAYBACK_BUFFER_MS} ms)`,
    description: 'Gaps the listener hears inside an answer: audio that came slower than it plays.',
    value: (r) => (r.audio.chunks.length > 0 ? r.playback(S2S.AGENT_PLAYBACK_BUFFER_MS).stallMs : undefined),
  },
  {
    name: 'barge_in_stop_ms', unit: 'ms', scope: 'input', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: "the agent's cancelled mark (or its last audio after it) minus the send time of the user's speech over it; uncancelled, its last audio",
    description: 'How fast the agent stops talking when interrupted; only inputs whose speech started while a response was in progress.',
    value: S2S.bargeInStop,
  },
  {
    name: 'barge_in_cancelled', unit: 'ratio', scope: 'input', tasks: S2S_TASK, tags: ['quality'], better: 'higher',
    quantity: 'per barge-in: 1 when the interrupted response ended cancelled, else 0',
    description: 'Whether the server cancelled at all when the user spoke over it; the mean is the share.',
    value: (v) => (v.bargeIn ? (v.bargeIn.response.status === 'cancelled' ? 1 : 0) : undefined),
  },
  {
    name: 'unprompted_responses', unit: 'count', scope: 'session', tasks: S2S_TASK, tags: ['quality'], better: 'neither',
    quantity: 'responses that started with no end of speech sent since the previous response started',
    description: 'The model speaking unprompted (full-duplex models may, by design).',
    value: S2S.unpromptedResponses,
  },
  {
    name: 'server_ttft_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: "the server's own response_request_metrics.ttft_ms on response.created (its measurement_origin kept in duplex_metrics.json)",
    description: 'TTFT as the server measured it, beside the client-measured response_ttft_ms.',
    value: (r) => r.started?.serverMetrics?.ttftMs,
  },
  {
    name: 'server_ttfp_ms', unit: 'ms', scope: 'response', tasks: S2S_TASK, tags: ['latency'], better: 'lower',
    quantity: "the server's own response_request_metrics.ttfp_ms on response.created (its measurement_origin kept in duplex_metrics.json)",
    description: 'TTFP as the server measured it, beside the client-measured response_ttfp_ms.',
    value: (r) => r.started?.serverMetrics?.ttfpMs,
  },
];
