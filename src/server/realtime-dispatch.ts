import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { RealtimeSession } from './realtime-session.js';
import { RealtimeTtsSession } from './realtime-tts-session.js';
import type { SessionContext } from './session-context.js';

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
  ws.send(JSON.stringify({ type: 'session.created', event_id: `event_${randomBytes(8).toString('hex')}`, session: { id: sessionId, object: 'realtime.session', type: 'realtime', model } }));
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
