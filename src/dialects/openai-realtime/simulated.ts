import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { ConversationSession, type PendingInput } from '../../server/sessions/conversation-session.js';
import { RealtimeTtsSession } from '../openai-realtime-tts/simulated.js';
import type { SessionContext } from '../../server/sessions/session-context.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { commitTooSmall } from '../openai/simulated.js';
import { asksBeta } from '../openai/spec.js';
import { OPENAI_REALTIME } from './spec.js';

/**
 * `/v1/realtime?model=gpt-realtime…` serves a conversation (speech in, speech out) and
 * speech generation (text items read aloud) alike, as OpenAI's does. The client's first
 * message says which it wants: a `session.update` that configures audio input, or audio
 * itself, opens a conversation; anything else (a session with output only, a text
 * item) speech generation. Until then the connection has only its `session.created`,
 * sent here; the first message is handed to the session chosen.
 */
export function openRealtime(ws: WebSocket, ctx: SessionContext, model: string, beta: boolean): void {
  const sessionId = `sess_${randomBytes(12).toString('hex')}`;
  ws.send(
    JSON.stringify({
      type: 'session.created',
      event_id: `event_${randomBytes(8).toString('hex')}`,
      session: { id: sessionId, object: 'realtime.session', type: 'realtime', model },
    }),
  );
  ws.once('message', (data, isBinary) => {
    if (wantsConversation(data as Buffer, isBinary)) new RealtimeSession(ws, ctx, model, { greeted: { sessionId } });
    else new RealtimeTtsSession(ws, ctx, { model, beta, greeted: true });
    ws.emit('message', data, isBinary);
  });
}

function wantsConversation(data: Buffer, isBinary: boolean): boolean {
  if (isBinary) return false;
  try {
    const event = JSON.parse(data.toString('utf8')) as { type?: unknown; session?: { audio?: { input?: unknown }; input_audio_format?: unknown } };
    if (event.type === 'input_audio_buffer.append') return true;
    return event.type === 'session.update' && (event.session?.audio?.input !== undefined || event.session?.input_audio_format !== undefined);
  } catch {
    return false;
  }
}

/** OpenAI's `audio/pcm` is PCM16 at 24 kHz. */
export const SAMPLE_RATE = 24_000;

/** One connection speaking an OpenAI Realtime conversation session (GA event names): the conversation core as it is. */
export class RealtimeSession extends ConversationSession {
  protected readonly bargeInReason = 'turn_detected';

  /** `greeted`: the connection has its `session.created` already, for the session of this id (see `openRealtime` below). */
  constructor(
    ws: WebSocket,
    ctx: SessionContext,
    private readonly model: string,
    { greeted }: { greeted?: { sessionId: string } } = {},
  ) {
    super(ws, ctx, SAMPLE_RATE, greeted?.sessionId);
    this.open(greeted ? undefined : { type: 'session.created', session: this.describe() });
  }

  protected commitRefusal({ bufferedMs }: PendingInput): [string, string] | undefined {
    return commitTooSmall(bufferedMs);
  }

  protected onOwnEvent(): boolean {
    return false;
  }

  protected decorate(event: Record<string, unknown>): Record<string, unknown> {
    return event;
  }

  protected describe(): Record<string, unknown> {
    const format = { type: 'audio/pcm', rate: SAMPLE_RATE };
    return {
      type: 'realtime',
      id: this.sessionId,
      object: 'realtime.session',
      model: this.model,
      output_modalities: ['audio'],
      audio: { input: { format }, output: { format, voice: 'marin' } },
    };
  }
}

/** An OpenAI `?model=` naming one of these opens a conversation session, not a transcription one. */
const REALTIME_MODEL = /^gpt-(4o-)?(mini-)?realtime/;

/** OpenAI Realtime conversations and speech generation: an upgrade to `/v1/realtime` whose `?model=` is a realtime one. */
export const simulatedOpenaiRealtime = {
  ...OPENAI_REALTIME,
  inputRate: SAMPLE_RATE,
  onSharedPath: ({ url }) => REALTIME_MODEL.test(url.searchParams.get('model') ?? ''),
  open: (ws, ctx, upgrade) => openRealtime(ws, ctx, upgrade.url.searchParams.get('model')!, asksBeta(upgrade)),
} satisfies SimulatedDialect;
