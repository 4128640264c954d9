import type WebSocket from 'ws';
import { ConversationSession, OUTPUT_RATE, type PendingInput } from '../../server/sessions/conversation-session.js';
import type { SessionContext } from '../../server/sessions/session-context.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { asksDuplex, VLLM_OMNI_DUPLEX } from './spec.js';

/** vLLM-Omni duplex takes PCM16 at 16 kHz. */
export const SAMPLE_RATE = 16_000;
/** Events the server keeps for a resume until the client acknowledges them; more unacknowledged than this fails the session. */
export const ACK_WINDOW_EVENTS = 32;

/**
 * One connection speaking vLLM-Omni's duplex realtime dialect: the conversation core
 * plus every event numbered (`server_event_seq`) and acknowledged by the client,
 * cumulative `metadata.audio_duration_ms` on audio deltas, the server's own request
 * metrics on `response.created`, `response.listen` ending each response, playback
 * acks, heartbeats and `session.close`.
 */
export class DuplexSession extends ConversationSession {
  private seq = 0;
  private acked = 0;
  private overflowed = false;
  protected readonly bargeInReason = 'barge_in';
  protected override readonly stopsSpeechOnCommit = true;

  constructor(
    ws: WebSocket,
    ctx: SessionContext,
    private readonly model: string,
  ) {
    super(ws, ctx, SAMPLE_RATE);
    this.open({ type: 'session.created', session: this.describe(), resume_token: `rt_${this.sessionId}`, incarnation: 1 });
  }

  /**
   * vLLM-Omni refuses a commit only when nothing came since the last one, speech or not
   * (`resolve_commit` in `vllm_omni/engine/duplex/realtime_events.py`): its VAD's own commit
   * clears the buffer it tracks, the rest of the chunk holding the stop included.
   */
  protected commitRefusal({ speech, appendedSinceCommit }: PendingInput): [string, string] | undefined {
    if (speech || appendedSinceCommit) return undefined;
    return ['input_audio_buffer_empty', 'input_audio_buffer.commit requires a non-empty input audio buffer'];
  }

  protected onOwnEvent(event: Record<string, unknown>): boolean {
    switch (event.type) {
      case 'session.event_ack':
        if (typeof event.server_event_seq === 'number' && !this.faults.has('drop-acks')) this.acked = Math.max(this.acked, event.server_event_seq);
        return true;
      case 'playback.ack':
        this.send({
          type: 'playback.acknowledged',
          response_id: event.response_id ?? null,
          played_ms: event.played_ms ?? 0,
          committed_ms: event.committed_ms ?? 0,
        });
        return true;
      case 'session.heartbeat':
        this.send({ type: 'session.heartbeat_ack' });
        return true;
      case 'session.close':
        this.send({ type: 'session.closed', reason: 'client_close' });
        this.emissions.clear();
        this.ws.close(1000);
        return true;
      default:
        return false;
    }
  }

  protected decorate(event: Record<string, unknown>): Record<string, unknown> {
    const numbered = { ...event, server_event_seq: ++this.seq };
    if (!this.overflowed && this.seq - this.acked > ACK_WINDOW_EVENTS) {
      this.overflowed = true;
      this.emissions.clear();
      this.error(
        'server_error',
        'event_ack_timeout',
        `${this.seq - this.acked} events are not acknowledged (session.event_ack); the resume buffer holds ${ACK_WINDOW_EVENTS}`,
      );
    }
    return numbered;
  }

  protected describe(): Record<string, unknown> {
    return {
      id: this.sessionId,
      session_id: this.sessionId,
      model: this.model,
      capabilities: { chunk_period_ms: 200, supports_barge_in: true },
      modalities: ['audio', 'text'],
      sample_rate_hz: SAMPLE_RATE,
    };
  }

  protected override audioMetadata(cumulativeMs: number): Record<string, unknown> {
    return { format: 'pcm16', sample_rate_hz: OUTPUT_RATE, metadata: { session_id: this.sessionId, audio_duration_ms: cumulativeMs } };
  }

  protected override responseMetadata(plannedFirstMs: number): Record<string, unknown> {
    const ms = Math.round(plannedFirstMs * 1000) / 1000;
    return { metadata: { duplex_event: { response_request_metrics: { ttft_ms: ms, ttfp_ms: ms, measurement_origin: 'server_request_start' } } } };
  }

  protected override responseEnding(response: { id: string }): Array<Record<string, unknown>> {
    return [{ type: 'response.listen', response_id: response.id }];
  }
}

/** vLLM-Omni's duplex: `/v1/realtime?duplex=1`, or its alias `/v1/duplex`. */
export const simulatedVllmOmniDuplex = {
  ...VLLM_OMNI_DUPLEX,
  aliasPath: '/v1/duplex',
  inputRate: SAMPLE_RATE,
  onSharedPath: asksDuplex,
  open: (ws, ctx, { url }) => new DuplexSession(ws, ctx, url.searchParams.get('model') ?? VLLM_OMNI_DUPLEX.defaultModel),
} satisfies SimulatedDialect;
