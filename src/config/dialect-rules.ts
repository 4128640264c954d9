import { DEFAULT_PROTOCOL, specOf, DIALECTS, isHttpProtocol, isHttpTarget, PROTOCOLS, takesServerTurns, type Protocol } from '../dialects/index.js';
import { STREAM_FORMATS, type SpeechSettings } from '../dialects/speech-http.js';
import type { OpenAITurnDetection } from '../dialects/realtime-common.js';
import { DEFAULT_TRANSCRIPTION, STREAMED_TRANSCRIPTION_FORMATS, TRANSCRIPTION_FORMATS, type TranscriptionOptions } from '../dialects/transcriptions/client.js';
import type { UploadFormat } from '../session/prepare-request.js';
import type { TextDelivery } from '../session/prepare-text.js';
import { isSpeechTask } from '../timeline/types.js';
import { DEFAULT_PLAYBACK_BUFFER_MS } from '../views/playback.js';
import { nonNegative, positive } from './checks.js';
import { option, optionsError } from './errors.js';
import type { QualityOptions, RunOptions } from './options.js';

/**
 * What each dialect takes and refuses, from its descriptor (`dialects/index.ts`): its
 * task and transport, its default model and its `limits`.
 */

/** The model each dialect names when none is given (the built-in server serves it). */
export const DEFAULT_MODELS = Object.fromEntries(PROTOCOLS.map((p) => [p, specOf(p).defaultModel])) as Record<Protocol, string>;

const PROTOCOL = option('protocol');

/** The streaming transcription dialects whose servers can end inputs themselves (server VAD). */
const SERVER_VAD_TRANSCRIPTION = PROTOCOLS.filter((p) => DIALECTS[p] === 'stt' && takesServerTurns(p));

/** The dialect, checked: one there is, with a target it can reach and turn detection it has. */
export function checkProtocol(options: RunOptions): { protocol: Protocol; turnDetection: OpenAITurnDetection } {
  const protocol = options.protocol ?? DEFAULT_PROTOCOL;
  if (!PROTOCOLS.includes(protocol)) {
    throw optionsError`${PROTOCOL} ${protocol} is not supported; choose one of: ${PROTOCOLS.join(', ')}`;
  }
  const http = isHttpTarget(protocol);
  if (options.target !== undefined) {
    const target = option('target');
    const url = targetUrl(options.target, target);
    if (http ? url.protocol !== 'http:' && url.protocol !== 'https:' : url.protocol !== 'ws:' && url.protocol !== 'wss:') {
      throw optionsError`${target} must be ${http ? "an http:// or https:// URL (the server's origin, e.g. http://localhost:8000)" : 'a ws:// or wss:// URL'} for ${PROTOCOL} ${protocol}, got ${url.protocol}//`;
    }
    if (url.hash) throw optionsError`${target} cannot have a #fragment (${url.hash}); ${http ? 'HTTP requests' : 'WebSocket URLs'} do not carry one`;
    if (options.model === undefined) throw optionsError`${option('model')} is required with ${target}: name the model the server serves`;
  }
  const turnDetection = options.turnDetection ?? { type: 'none' };
  const detection = option('turnDetection');
  if (turnDetection.type !== 'none') {
    const vad = SERVER_VAD_TRANSCRIPTION.join(' or ');
    const clientTurnsOnly = specOf(protocol).limits?.clientTurnsOnly;
    if (clientTurnsOnly !== undefined) throw optionsError`${detection} needs ${PROTOCOL} ${vad}; ${clientTurnsOnly}`;
    if (isHttpProtocol(protocol)) throw optionsError`${detection} needs ${PROTOCOL} ${vad}; ${PROTOCOL} ${protocol} sends each input in one request`;
  }
  return { protocol, turnDetection };
}

/** `text` as a URL; not echoed when it does not parse: such a URL cannot be redacted, and may hold a key. */
function targetUrl(text: string, name: ReturnType<typeof option>): URL {
  try {
    return new URL(text);
  } catch {
    throw optionsError`${name} is not a URL; give one like ws://localhost:8000/v1/realtime`;
  }
}

/** Batch transcription's request options, refused for the other dialects. */
export function checkTranscription(options: RunOptions, protocol: Protocol): TranscriptionOptions & { uploadFormat?: UploadFormat } {
  const batch = DIALECTS[protocol] === 'batch_stt';
  const transcription = { ...DEFAULT_TRANSCRIPTION, ...options.transcription };
  const responseFormat = option('transcription.responseFormat');
  if (!batch) {
    const given = options.transcription ?? {};
    const name = given.stream
      ? 'stream'
      : given.translate
        ? 'translate'
        : given.temperature !== undefined
          ? 'temperature'
          : given.uploadFormat !== undefined
            ? 'uploadFormat'
            : (given.responseFormat ?? 'json') !== 'json'
              ? 'responseFormat'
              : undefined;
    if (name)
      throw optionsError`${option(`transcription.${name}`)} is for the batch transcription dialects (${PROTOCOL} vllm-transcriptions or openai-transcriptions), not ${PROTOCOL} ${protocol}`;
  }
  if (!(TRANSCRIPTION_FORMATS as readonly string[]).includes(transcription.responseFormat)) {
    throw optionsError`${responseFormat} ${transcription.responseFormat} is not a transcript format; choose one of: ${TRANSCRIPTION_FORMATS.join(', ')}`;
  }
  if (transcription.stream && !STREAMED_TRANSCRIPTION_FORMATS.includes(transcription.responseFormat)) {
    throw optionsError`${responseFormat} ${transcription.responseFormat} is for answers that are not streamed; ${option('transcription.stream')} answers with events (leave ${responseFormat} at json, or diarized_json for speakers)`;
  }
  if (transcription.temperature !== undefined) nonNegative(option('transcription.temperature'), transcription.temperature);
  return transcription;
}

/** The speech-generation settings, checked: text delivery and the player's buffer, and what a dialect cannot do. */
export function checkSpeech(
  options: RunOptions,
  protocol: Protocol,
  turnsPerSession: number,
): { speaks: boolean; textDelivery: TextDelivery; playbackBufferMs: number } {
  const task = DIALECTS[protocol];
  const speaks = isSpeechTask(task);
  const textDelivery = options.textDelivery ?? { kind: 'all' };
  const streamed = option('textDelivery');
  if (textDelivery.kind === 'stream') {
    if (!speaks) throw optionsError`${streamed} streams text into speech generation; ${PROTOCOL} ${protocol} sends audio`;
    positive(option('textDelivery.tokensPerS'), textDelivery.tokensPerS, false);
    nonNegative(option('textDelivery.firstTokenMs'), textDelivery.firstTokenMs);
  }
  if (textDelivery.kind === 'stream' && isHttpProtocol(protocol))
    throw optionsError`${streamed} streams text into WebSocket dialects; ${PROTOCOL} ${protocol} sends each text in one request`;
  if (options.speech?.voice !== undefined && !speaks)
    throw optionsError`${option('speech.voice')} is for speech generation; ${PROTOCOL} ${protocol} sends audio`;
  if (options.speech?.responseFormat !== undefined && !speaks) {
    throw optionsError`${option('speech.responseFormat')} is for speech generation and batch transcription; ${PROTOCOL} ${protocol} streams audio`;
  }
  const playbackBufferMs = options.playbackBufferMs ?? DEFAULT_PLAYBACK_BUFFER_MS;
  nonNegative(option('playbackBufferMs'), playbackBufferMs);
  const { limits } = specOf(protocol);
  if (limits?.oneInputPerSession !== undefined && turnsPerSession > 1) {
    throw optionsError`${PROTOCOL} ${protocol} takes one input per session${limits.oneInputPerSession}; leave ${option('turnsPerSession')} at 1`;
  }
  const outputRate = options.speech?.outputRate;
  if (limits?.outputRate !== undefined && outputRate !== undefined && outputRate !== limits.outputRate) {
    throw optionsError`${PROTOCOL} ${protocol} speaks PCM16 at ${limits.outputRate} Hz only; leave ${option('speech.outputRate')} at ${limits.outputRate}`;
  }
  return { speaks, textDelivery, playbackBufferMs };
}

/**
 * Refuses the sending flags a dialect cannot apply, rather than letting them pass
 * unused: `pace` times a stream (audio, or text streamed at `textDelivery`'s rate), and
 * `chunkMs` sizes audio messages; an HTTP dialect sends each input in one request, and
 * speech generation sends text, not audio.
 */
export function checkSending(options: RunOptions, protocol: Protocol, textDelivery: TextDelivery): void {
  const pace = option('pace');
  const chunk = option('chunkMs');
  if (isHttpProtocol(protocol)) {
    const why = `${protocol} sends each input in one request`;
    if (options.pace !== undefined) throw optionsError`${pace} times a stream, and ${PROTOCOL} ${why}: leave ${pace} out`;
    if (options.chunkMs !== undefined) throw optionsError`${chunk} sizes the audio messages of a stream, and ${PROTOCOL} ${why}: leave ${chunk} out`;
  }
  if (!isSpeechTask(DIALECTS[protocol])) return;
  if (options.pace !== undefined && textDelivery.kind !== 'stream') {
    throw optionsError`${pace} times a stream, and ${PROTOCOL} ${protocol} is given each text whole: leave ${pace} out, or stream the text with ${option('textDelivery')}`;
  }
  if (options.chunkMs !== undefined)
    throw optionsError`${chunk} sizes the audio messages a client sends, and ${PROTOCOL} ${protocol} sends text: leave ${chunk} out`;
}

const STREAMED_FORMATS = ['pcm', 'wav'];

/** What the speech dialects are built with: voice, formats and rate. */
export function resolveSpeech(model: string, options: RunOptions): SpeechSettings {
  const speech = options.speech ?? {};
  const streamFormat = speech.streamFormat ?? 'audio';
  const streamName = option('speech.streamFormat');
  const formatName = option('speech.responseFormat');
  if (!STREAM_FORMATS.includes(streamFormat)) throw optionsError`${streamName} ${streamFormat} is not one of: ${STREAM_FORMATS.join(', ')}`;
  const responseFormat = speech.responseFormat ?? 'pcm';
  if (!/^[a-z0-9_]+$/.test(responseFormat)) throw optionsError`${formatName} ${responseFormat} is not a format name (pcm, wav, mp3, flac, opus, ...)`;
  if (streamFormat !== 'none' && !STREAMED_FORMATS.includes(responseFormat)) {
    throw optionsError`${formatName} ${responseFormat} cannot be streamed: use pcm or wav, or ${streamName} none for one body`;
  }
  const outputRate = speech.outputRate ?? 24_000;
  positive(option('speech.outputRate'), outputRate, true);
  return {
    model,
    responseFormat,
    streamFormat,
    outputRate,
    ...(speech.voice !== undefined ? { voice: speech.voice } : {}),
    ...(options.language !== undefined ? { language: options.language } : {}),
    ...(speech.instructions !== undefined ? { instructions: speech.instructions } : {}),
  };
}

export interface QualitySettings {
  sessions: number;
  keepAudioBytes: number;
  asr: { target?: string; protocol: Protocol; model: string; apiKey?: string };
}

/** The after-run check of generated speech, with its transcription server's dialect checked like the run's own. */
export function resolveQuality(quality: QualityOptions): QualitySettings {
  const sessions = quality.sessions ?? 20;
  if (!(Number.isInteger(sessions) && sessions >= 0)) throw optionsError`${option('quality.sessions')} must be a whole number, 0 or more, got ${sessions}`;
  const keepAudioMb = quality.keepAudioMb ?? 16;
  positive(option('quality.keepAudioMb'), keepAudioMb, false);
  const protocol = quality.asrProtocol ?? DEFAULT_PROTOCOL;
  const asrProtocol = option('quality.asrProtocol');
  const transcribes = (p: Protocol): boolean => (['stt', 'batch_stt'] as string[]).includes(DIALECTS[p]);
  if (!PROTOCOLS.includes(protocol) || !transcribes(protocol)) {
    throw optionsError`${asrProtocol} ${protocol} does not transcribe; choose one of: ${PROTOCOLS.filter(transcribes).join(', ')}`;
  }
  if (quality.asrTarget !== undefined) {
    const target = option('quality.asrTarget');
    const url = targetUrl(quality.asrTarget, target);
    const http = isHttpTarget(protocol);
    if (http ? url.protocol !== 'http:' && url.protocol !== 'https:' : url.protocol !== 'ws:' && url.protocol !== 'wss:') {
      throw optionsError`${target} must be ${http ? 'an http:// or https://' : 'a ws:// or wss://'} URL for ${asrProtocol} ${protocol}, got ${url.protocol}//`;
    }
    if (quality.asrModel === undefined)
      throw optionsError`${option('quality.asrModel')} is required with ${target}: name the model the transcription server serves`;
  }
  return {
    sessions,
    keepAudioBytes: Math.round(keepAudioMb * 1024 * 1024),
    asr: {
      protocol,
      model: quality.asrModel ?? DEFAULT_MODELS[protocol],
      ...(quality.asrTarget !== undefined ? { target: quality.asrTarget } : {}),
      ...(quality.asrApiKey !== undefined ? { apiKey: quality.asrApiKey } : {}),
    },
  };
}
