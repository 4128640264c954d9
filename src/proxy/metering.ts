import { createDialect, METERED_PROTOCOLS, unsettledOf, type Protocol } from '../dialects/index.js';
import type { Upgrade } from '../dialects/spec.js';
import { TTS_RATE } from '../dialects/tts-common.js';
import type { MeterSettings, MeteredDialect } from './observer.js';

/** A dialect to read a connection with: only its codec and policy are used, so its settings are placeholders, bar who ends turns and the audio's rate. */
export function meteringDialect(protocol: Protocol, { turnDetection, outputRate }: MeterSettings): MeteredDialect {
  const dialect = createDialect(protocol, {
    model: '',
    turnDetection: turnDetection === 'client' ? { type: 'none' } : { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 },
    speech: { model: '', responseFormat: 'pcm', streamFormat: 'audio', outputRate },
  });
  if (dialect.transport !== 'websocket' || !dialect.readSent)
    throw new Error(`--protocol ${protocol}: the proxy meters WebSocket dialects (${METERED_PROTOCOLS.join(', ')})`);
  return dialect as MeteredDialect;
}

/** Until a connection's dialect is settled, what its client's frames say of it. */
export interface DialectInference {
  /** The dialect this client frame settles, or undefined while still untold. */
  read(data: Buffer, isBinary: boolean): Protocol | undefined;
  /** The dialect to read with when the connection ends, or holds too much, before it tells. */
  guess(): Protocol;
}

/**
 * OpenAI Realtime serves transcription, conversations and speech generation on one
 * path (`/v1/realtime?model=…`, `OpenAI-Beta` for the beta shape), so the upgrade tells
 * only the family: the client's first configuration says transcription or conversation
 * (the transcription reader's `task`), and a conversation's first input says which one:
 * audio is speech to speech, a text to speak (the speech generator's reader) speech
 * generation. The provisional dialect's descriptor names the others (`unsettled`), or
 * none where the upgrade settles it (`?intent=transcription`, or no other dialect shares
 * its path): then nothing needs inferring (undefined).
 */
export function dialectInference(provisional: Protocol, upgrade: Upgrade): DialectInference | undefined {
  const unsettled = unsettledOf(provisional, upgrade);
  if (!unsettled) return undefined;
  const { conversation: conversationProtocol, speech } = unsettled;
  const placeholder: MeterSettings = { turnDetection: 'client', outputRate: TTS_RATE };
  const transcription = meteringDialect(provisional, placeholder).readSent;
  const speechText = meteringDialect(speech, placeholder).readSent;
  let conversation = false;
  return {
    read(data, isBinary) {
      const reading = transcription(data, isBinary);
      if (!conversation) {
        if (reading.kind !== 'control' || reading.task === undefined) return undefined;
        if (reading.task === 'stt') return provisional;
        conversation = true;
        return undefined;
      }
      if (reading.kind === 'audio') return conversationProtocol;
      return speechText(data, isBinary).kind === 'text' ? speech : undefined;
    },
    guess: () => (conversation ? conversationProtocol : provisional),
  };
}
