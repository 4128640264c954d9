import type WebSocket from 'ws';
import { ConversationSession } from './conversation-session.js';
import type { SessionContext } from './session-context.js';

/** OpenAI's `audio/pcm` is PCM16 at 24 kHz. */
export const SAMPLE_RATE = 24_000;

/** One connection speaking an OpenAI Realtime conversation session (GA event names): the conversation core as it is. */
export class RealtimeSession extends ConversationSession {
  protected readonly bargeInReason = 'turn_detected';

  /** `greeted`: the connection has its `session.created` already, for the session of this id (see realtime-dispatch.ts). */
  constructor(ws: WebSocket, ctx: SessionContext, private readonly model: string, { greeted }: { greeted?: { sessionId: string } } = {}) {
    super(ws, ctx, SAMPLE_RATE, greeted?.sessionId);
    this.open(greeted ? undefined : { type: 'session.created', session: this.describe() });
  }

  protected onOwnEvent(): boolean {
    return false;
  }

  protected decorate(event: Record<string, unknown>): Record<string, unknown> {
    return event;
  }

  protected describe(): Record<string, unknown> {
    const format = { type: 'audio/pcm', rate: SAMPLE_RATE };
    return { type: 'realtime', id: this.sessionId, object: 'realtime.session', model: this.model, output_modalities: ['audio'], audio: { input: { format }, output: { format, voice: 'marin' } } };
  }
}
