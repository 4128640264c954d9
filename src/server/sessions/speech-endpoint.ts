import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { pcm16WavHeader } from '../../audio/wav-header.js';
import { faultOf, MARKUP, MARKUP_CODE, type FaultScenario } from '../faults/faults.js';
import { base64Of, playSpeech, renderedSpeech, type SpeechLatencyModel, type SpeechPlan, type VoiceOptions } from '../models/speech-synth.js';

/** The path both HTTP speech dialects post to. */
export const SPEECH_PATH = '/v1/audio/speech';
/** The rate the simulated voice speaks at (Qwen3-TTS's and OpenAI's `pcm`). */
export const SPEECH_RATE = 24_000;
/** OpenAI's speech models: requests naming one get OpenAI's flavour of the endpoint. */
export const OPENAI_TTS_MODELS = ['gpt-4o-mini-tts', 'tts-1', 'tts-1-hd'];
/** OpenAI caps `input` at this many characters. */
const OPENAI_INPUT_LIMIT = 4096;
const BODY_LIMIT = 1024 * 1024;

export interface SpeechEndpointContext {
  servedModels: readonly string[];
  voice: VoiceOptions;
  latency: SpeechLatencyModel;
  /** Older vLLM-Omni (before PR #4490): `stream: true` is answered with raw bytes whatever `stream_format` says. */
  legacyStream: boolean;
  /** SSE: send an empty delta before the first audio. */
  emptyDeltas: boolean;
  apiKey?: string;
  /** Requests in flight on the server right now, this one included. */
  openSessions(): number;
  /** Told when a response's first audio is written: ms after its request was read, as the server's own clock saw it. */
  onFirstAudio?: (ms: number) => void;
}

interface SpeechRequest {
  model: string;
  input: string;
  format: 'pcm' | 'wav';
  stream: 'sse' | 'audio' | 'none';
  speed: number;
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/**
 * `POST /v1/audio/speech` of the simulated server, in vLLM-Omni's shape and OpenAI's
 * (chosen by the model named): one body, a raw stream (PCM, or WAV behind a 44-byte
 * header with 0xFFFFFFFF sizes) or server-sent events, the audio timed by the speech
 * latency model and the session's faults applied. Errors are `{"error": {message,
 * type, param, code}}` with their HTTP status, before the stream; during an SSE stream
 * a `speech.audio.error` event; during a raw stream the connection is cut, as
 * vLLM-Omni does.
 */
export function serveSpeech(req: IncomingMessage, res: ServerResponse, ctx: SpeechEndpointContext, faults: FaultScenario): void {
  const markup = faults.some((f) => f.name === 'markup-strings');
  const fail = (err: RequestError): void => {
    if (res.headersSent) return void res.destroy();
    const body = { error: { message: err.message, type: err.type, param: err.param, code: err.status } };
    res.writeHead(err.status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  if (req.method !== 'POST') return fail(new RequestError(405, 'BadRequestError', `Method ${req.method} not allowed; POST a JSON body`));
  const refused = faultOf(faults, 'upgrade');
  if (refused) return fail(new RequestError(refused.status, 'server_error', markup ? MARKUP : 'injected fault'));
  if (ctx.apiKey !== undefined && req.headers.authorization !== `Bearer ${ctx.apiKey}`)
    return fail(new RequestError(401, 'AuthenticationError', 'Unauthorized'));
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= BODY_LIMIT) chunks.push(chunk);
  });
  req.on('end', () => {
    const startMs = performance.now();
    let request: SpeechRequest;
    try {
      if (size > BODY_LIMIT) throw new RequestError(413, 'BadRequestError', `Request body over ${BODY_LIMIT} bytes`);
      request = parseRequest(Buffer.concat(chunks).toString('utf8'), ctx.servedModels);
    } catch (err) {
      return fail(err instanceof RequestError ? err : new RequestError(500, 'server_error', (err as Error).message));
    }
    const socket = req.socket;
    const go = (): void => respond(request, res, socket, ctx, faults, markup, startMs);
    if (faults.some((f) => f.name === 'silent')) return; // holds the request open, answering nothing
    if (faults.some((f) => f.name === 'tcp-reset')) return void socket.resetAndDestroy();
    const slow = faultOf(faults, 'slow-accept');
    if (!slow) return go();
    const timer = setTimeout(go, slow.ms);
    socket.once('close', () => clearTimeout(timer));
  });
}

function parseRequest(text: string, servedModels: readonly string[]): SpeechRequest {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new RequestError(400, 'BadRequestError', 'Invalid JSON body');
  }
  if (typeof body !== 'object' || body === null) throw new RequestError(400, 'BadRequestError', 'The body must be a JSON object');
  const model = typeof body.model === 'string' ? body.model : servedModels[0]!;
  if (!servedModels.includes(model)) throw new RequestError(404, 'NotFoundError', `The model \`${model}\` does not exist.`, 'model');
  const openai = OPENAI_TTS_MODELS.includes(model);
  if (typeof body.input !== 'string' || body.input.trim() === '') throw new RequestError(400, 'BadRequestError', 'Missing required field: input', 'input');
  if (openai && body.input.length > OPENAI_INPUT_LIMIT)
    throw new RequestError(400, 'BadRequestError', `input is longer than ${OPENAI_INPUT_LIMIT} characters`, 'input');
  const format = body.response_format ?? (openai ? 'mp3' : 'wav');
  if (format !== 'pcm' && format !== 'wav') {
    throw new RequestError(
      400,
      'BadRequestError',
      `response_format ${JSON.stringify(format)} is not supported by the simulated server; use pcm or wav`,
      'response_format',
    );
  }
  const speed = body.speed ?? 1;
  if (typeof speed !== 'number' || !(speed >= 0.25 && speed <= 4))
    throw new RequestError(400, 'BadRequestError', 'speed must be a number from 0.25 to 4.0', 'speed');
  const streamFormat = body.stream_format ?? null;
  if (streamFormat !== null && streamFormat !== 'sse' && streamFormat !== 'audio') {
    throw new RequestError(400, 'BadRequestError', `stream_format must be sse or audio, not ${JSON.stringify(streamFormat)}`, 'stream_format');
  }
  // OpenAI always streams (raw by default); vLLM-Omni streams when asked, `stream: true` alone meaning SSE.
  const stream = openai ? (streamFormat ?? 'audio') : (streamFormat ?? (body.stream === true ? 'sse' : 'none'));
  if (stream !== 'none' && speed !== 1 && !openai) throw new RequestError(400, 'BadRequestError', 'Streaming requires speed 1.0', 'speed');
  return { model, input: body.input, format, stream, speed };
}

function respond(
  request: SpeechRequest,
  res: ServerResponse,
  socket: Socket,
  ctx: SpeechEndpointContext,
  faults: FaultScenario,
  markup: boolean,
  startMs: number,
): void {
  const openai = OPENAI_TTS_MODELS.includes(request.model);
  const pcm = renderedSpeech(request.input, SPEECH_RATE, ctx.voice, request.speed);
  const plan = ctx.latency.plan(pcm, SPEECH_RATE, ctx.openSessions(), faults);
  const header = request.format === 'wav' ? pcm16WavHeader(SPEECH_RATE, request.stream === 'none' ? pcm.length : undefined) : undefined;
  const errorCode = (code: string): string => (markup ? `${code}${MARKUP_CODE}` : code);
  const errorMessage = markup ? MARKUP : 'injected fault';
  // A legacy server streams raw bytes for any `stream: true` request.
  const stream = ctx.legacyStream && request.stream === 'sse' ? 'audio' : request.stream;
  const audioType = request.format === 'wav' ? 'audio/wav' : openai ? 'application/octet-stream' : 'audio/pcm';
  let stop = (): void => {};
  res.on('close', () => stop());
  let told = false;
  const firstAudio = (): void => {
    if (!told) ctx.onFirstAudio?.(performance.now() - startMs);
    told = true;
  };

  if (stream === 'none') {
    // One body: everything is generated before the response; an error or a cut fails the request.
    const last = plan.endAtMs;
    stop = playSpeech({ ...plan, chunks: [], endAtMs: last }, startMs, {
      chunk: () => {},
      end: () => {
        if (plan.end.kind === 'cut') return void socket.end();
        if (plan.end.kind === 'error') {
          res.writeHead(500, { 'content-type': 'application/json' });
          return void res.end(JSON.stringify({ error: { message: errorMessage, type: 'server_error', param: null, code: errorCode(plan.end.code) } }));
        }
        const body = header ? Buffer.concat([header, pcm]) : pcm;
        res.writeHead(200, { 'content-type': audioType, 'content-length': String(body.length) }).end(body);
        firstAudio();
      },
    });
    return;
  }
  if (plan.end.kind === 'error' && plan.chunks.length === 0) {
    // An error before any audio is the HTTP error response, as a server answers a request it cannot serve.
    res.writeHead(500, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ error: { message: errorMessage, type: 'server_error', param: null, code: errorCode(plan.end.code) } }));
  }
  if (stream === 'audio') {
    res.writeHead(200, { 'content-type': audioType, 'transfer-encoding': 'chunked' });
    if (header) res.write(header);
    stop = playSpeech(plan, startMs, {
      chunk: (piece) => {
        res.write(piece);
        firstAudio();
      },
      // An error mid-stream cuts the body, as vLLM-Omni does; what was written still goes out first.
      end: (end) => (end.kind === 'done' ? res.end() : socket.end()),
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (type: string, data: object): boolean => res.write(`${openai ? '' : `event: ${type}\n`}data: ${JSON.stringify({ type, ...data })}\n\n`);
  const format = openai ? {} : { response_format: request.format };
  // With WAV, the first delta is the header alone, as vLLM-Omni sends it.
  if (header) send('speech.audio.delta', { audio: header.toString('base64'), ...format });
  const malformed = faults.some((f) => f.name === 'malformed-json');
  stop = playSpeech(ctx.emptyDeltas ? withEmptyDelta(plan) : plan, startMs, {
    chunk: (piece, index) => {
      if (malformed && index === 1) res.write('data: {"type":"speech.audio.delta","audio":"cut of\n\n');
      send('speech.audio.delta', { audio: base64Of(piece), ...format });
      if (piece.length > 0) firstAudio();
    },
    end: (end) => {
      if (end.kind === 'cut') return void socket.end();
      if (end.kind === 'error') {
        send('speech.audio.error', { error: { message: errorMessage, type: 'server_error', param: null, code: errorCode(end.code) } });
      } else {
        const input = Math.ceil([...request.input].length / 4);
        const output = Math.round((pcm.length / 2 / SPEECH_RATE) * 12.5);
        const details = openai ? {} : { input_token_details: { text_tokens: input, audio_tokens: 0 } };
        send('speech.audio.done', { usage: { input_tokens: input, output_tokens: output, total_tokens: input + output, ...details } });
      }
      res.end();
    },
  });
}

/** An SSE plan whose first delta is empty, as some servers send before the audio: a client must not count it. */
function withEmptyDelta(plan: SpeechPlan): SpeechPlan {
  if (plan.chunks.length === 0) return plan;
  return { ...plan, chunks: [{ pcm: Buffer.alloc(0), atMs: plan.chunks[0]!.atMs / 2 }, ...plan.chunks] };
}
