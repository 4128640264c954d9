import {
  jsonSentReader,
  jsonTextDecoder,
  parseEventObject,
  ProtocolViolation,
  textField,
  usageOf,
  wireText,
  type CompletionPolicy,
  type DecodedEvent,
  type HttpAudioChannel,
  type SentReading,
  type WebSocketDialect,
} from '../dialect.js';
import { transcriptionPolicy } from '../stt-policy.js';
import { LIVEPEER, SAMPLE_RATE, TRANSCRIBE_PATH } from './spec.js';

/**
 * Livepeer's realtime transcription app (live-runner-example-apps `vllm-realtime`: runner.py,
 * client.py, stats.py; Trickle: go-livepeer `trickle/`).
 *
 * `POST {app}/transcribe {"language"}` → `{"session", "in": <Trickle URL>, "ws": "/ws"}` →
 * WebSocket `{app}/ws` → PCM16LE 16 kHz published to `in` as segments (`POST {in}/-1`, the
 * next sequence number, answered with `Lp-Trickle-Seq`; 470: a segment the channel no longer
 * holds) → `progress {audio_bytes}` after each segment the app has read (the client publishes
 * the next only then) → `DELETE {in}` ends the audio → `delta`* → `done` → `stats` → the app
 * closes the socket. The socket carries no audio: the client only sends `session.update` on it.
 */
export function livepeerDialect(settings: { model: string; language?: string }): WebSocketDialect {
  const update = JSON.stringify({
    type: 'session.update',
    session: { model: settings.model, ...(settings.language !== undefined ? { language: settings.language } : {}) },
  });
  return {
    name: LIVEPEER.name,
    task: 'stt',
    transport: 'websocket',
    sampleRate: SAMPLE_RATE,
    turnDetection: 'client',
    readyEvent: 'WebSocket open (the app sends no ready event)',
    policy: livepeerPolicy,
    connectUrl: (target) => socketUrl(target, LIVEPEER.path),
    upgradeHeaders: () => ({}),
    sessionFrames: () => [],
    sessionUpdateFrame: () => update,
    inputStartFrame: () => null,
    audioFrame: (pcm16) => pcm16,
    // The audio channel's DELETE ends the input; the app has no end frame, nor a flush.
    inputEndFrame: () => '',
    flushFrame: () => '',
    decode: jsonTextDecoder(LIVEPEER.name, interpretLivepeerEvent),
    readSent: jsonSentReader(readLivepeerSent),
    audioChannel: trickleChannel(settings.language),
  };
}

/** One segment: 0.5 s, as the example client publishes (16000 bytes, written as pieces of `--chunk-ms`). */
const SEGMENT_MS = 500;
/** Trickle's answer to a sequence number the channel no longer holds. */
const GONE = 470;

/** The app's session over HTTP and its Trickle publish: the requests, and what their answers say. */
function trickleChannel(language: string | undefined): HttpAudioChannel {
  return {
    open: (target) => ({
      method: 'POST',
      url: joinPath(target, TRANSCRIBE_PATH),
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(language !== undefined ? { language } : {})),
    }),
    opened(target, body) {
      let answer: unknown;
      try {
        answer = JSON.parse(body.toString('utf8'));
      } catch {
        throw new ProtocolViolation(`the app answered ${TRANSCRIBE_PATH} with a body that is not JSON: ${JSON.stringify(body.toString('utf8', 0, 80))}`);
      }
      const { in: publish, ws, session } = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
      if (typeof publish !== 'string' || typeof ws !== 'string') {
        throw new ProtocolViolation(
          `the app's ${TRANSCRIBE_PATH} answer names no Trickle URL ("in") and WebSocket path ("ws"): ${body.toString('utf8', 0, 120)}`,
        );
      }
      return {
        socketUrl: socketUrl(target, ws),
        publishUrl: new URL(publish, target).toString().replace(/\/$/, ''),
        ...(typeof session === 'string' || typeof session === 'number' ? { session: String(session) } : {}),
      };
    },
    segmentMs: SEGMENT_MS,
    segment: (publishUrl) => ({ method: 'POST', url: `${publishUrl}/-1`, headers: { 'content-type': 'audio/raw' } }),
    segmentAnswer(status, headers) {
      const seq = Number(headers['lp-trickle-seq']);
      if (status >= 200 && status <= 299) return Number.isInteger(seq) ? { seq } : {};
      if (status === GONE) {
        const latest = wireText(headers['lp-trickle-latest'] ?? '?');
        return { lost: `the Trickle server no longer holds segment ${Number.isInteger(seq) ? seq : '?'} (HTTP 470; latest ${latest})` };
      }
      return { refused: `the Trickle server answered a segment with HTTP ${status}${status === 404 ? ' (no such channel)' : ''}` };
    },
    end: (publishUrl) => ({ method: 'DELETE', url: publishUrl, headers: {} }),
  };
}

/** `path` under the app's URL (which may itself have a path, as an orchestrator's `app_url` does), or an absolute URL as given. */
function joinPath(target: string, path: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return path;
  return `${target.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** The WebSocket URL of `path` under the app: http becomes ws, https wss. */
function socketUrl(target: string, path: string): string {
  return joinPath(target, path).replace(/^http(s?):/i, 'ws$1:');
}

/**
 * Completion: an input is done once its `done` has come (after the channel's end, as the
 * finals ledger has it) and then the app's closing `stats`, which is kept. The app sends no
 * ready event: the session is ready once the socket opens.
 */
function livepeerPolicy(): CompletionPolicy {
  const transcription = transcriptionPolicy('client');
  let stats = false;
  return {
    ready: true,
    controlSent: (frame) => transcription.controlSent(frame),
    observe(event) {
      if (event.type === 'stats') stats = true;
      return transcription.observe(event);
    },
    inputDone: (index) => stats && transcription.inputDone(index),
    speaking: () => transcription.speaking(),
    settled: (sinceMs) => transcription.settled(sinceMs),
    allFinal: (inputs) => transcription.allFinal(inputs),
  };
}

/** A client's frame on the socket: only live settings (`session.update`). */
function readLivepeerSent(event: Record<string, unknown> & { type: string }): SentReading {
  if (event.type !== 'session.update') return { kind: 'other', type: event.type };
  const session = typeof event.session === 'object' && event.session !== null ? (event.session as Record<string, unknown>) : {};
  return { kind: 'control', control: 'session_config', turnDetection: 'client', ...(typeof session.model === 'string' ? { model: session.model } : {}) };
}

/** The app's events: transcript deltas and the final, consumption acknowledgements, its closing statistics, errors. */
export function interpretLivepeerEvent(data: string): DecodedEvent {
  const event = parseEventObject(data);
  const { type } = event;
  switch (type) {
    case 'delta':
      return { type, kind: 'text_delta', channel: 'input_transcript', text: textField(event, 'delta', type) ?? '' };
    case 'done':
      return { type, kind: 'text_final', channel: 'input_transcript', text: textField(event, 'transcript', type) ?? '' };
    case 'progress': // cumulative PCM16 bytes at 16 kHz the app has read from the channel
      return typeof event.audio_bytes === 'number'
        ? { type, kind: 'progress', audioEndMs: (event.audio_bytes / 2 / SAMPLE_RATE) * 1000 }
        : { type, kind: 'other' };
    case 'stats':
      // The app's own figures (runner-side clocks), kept apart from voxbench's: its transcription and Trickle ingest meters.
      return { type, kind: 'other', ...usageOf({ transcription: event.transcription, trickle: event.trickle }, 'stats') };
    case 'error': {
      const code = event.code;
      return { type, kind: 'error', message: wireText(event.message ?? event.error ?? ''), ...(typeof code === 'string' ? { code } : {}) };
    }
    default:
      return { type, kind: 'other' };
  }
}
