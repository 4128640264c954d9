import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AudioDecodeError, decodeAudio } from '../../audio/decode.js';
import { toPcm16 } from '../../audio/pcm.js';
import { resample } from '../../audio/resample.js';
import { EmissionQueue } from '../../server/sessions/emission-queue.js';
import { faultOf, type FaultScenario } from '../../server/faults/faults.js';
import { MultipartError, parseMultipart } from '../../server/multipart.js';
import { StreamRecognizer, type HeardWord } from '../../server/models/recognizer.js';
import { transcriptionTokens } from '../../server/models/transcription-usage.js';
import { SpeakerLabeller } from '../../server/models/speakers.js';
import { DIARIZE_MODEL, OPENAI_MODELS } from '../openai/spec.js';
import type { TranscriptionEndpoint } from '../../server/simulated-dialect.js';
import { TRANSCRIPTION_RATE as SAMPLE_RATE } from './spec.js';

/** Whisper-class servers cut long audio into windows of this length (vLLM's `max_audio_clip_s`), each with its own finish. */
const WINDOW_MS = 30_000;
/** Whisper's `seek` counts 10 ms mel frames. */
const SEEK_FRAMES_PER_MS = 0.1;
/** Room for the form's fields around the file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** The stream a model's server sends: OpenAI's `transcript.text.*` or vLLM's `transcription.chunk`. */
type EventShape = 'openai-transcriptions' | 'vllm-transcriptions';

/** OpenAI's transcription models answer in OpenAI's shape; any other in vLLM's. */
const shapeOf = (model: string): EventShape => (OPENAI_MODELS.includes(model) ? 'openai-transcriptions' : 'vllm-transcriptions');

/** One request's form, checked. */
interface Job {
  task: 'transcribe' | 'translate';
  model: string;
  language: string;
  responseFormat: 'json' | 'verbose_json' | 'text' | 'diarized_json';
  /** verbose_json: `timestamp_granularities[]`; segments unless only words are asked for, as OpenAI answers. */
  granularities: { words: boolean; segments: boolean };
  temperature: number;
  stream: boolean;
  includeUsage: boolean;
  words: HeardWord[];
  /** diarized_json: the words in runs of one speaker. */
  segments: SpeakerSegment[];
  audioMs: number;
  faults: FaultScenario;
}

/**
 * `POST /v1/audio/transcriptions` and `/v1/audio/translations` as vLLM and OpenAI
 * serve them, over the simulated recognizer: the multipart form read whole (bounded),
 * the recording decoded and recognized, and the answer (JSON, verbose JSON, text, or
 * either event stream) timed by the latency model, in proportion to the audio's length
 * and slower past the capacity knee. Errors are `{"error": {...}}` bodies with vLLM's
 * statuses (401, 404, 413, 422, 400); faults answer with a status, cut the response,
 * send what is not JSON, or end a stream with an error object. (A translation is the
 * transcript: the recognizer knows one language.)
 */
export const transcriptionEndpoint: TranscriptionEndpoint = (ctx) => {
  let inFlight = 0;
  const load = (): number => ctx.openSessions() + inFlight;

  const checked = async (req: IncomingMessage, body: Buffer, task: Job['task']): Promise<Job | Refusal> => {
    const faults = ctx.pickFaults();
    const status = faultOf(faults, 'status');
    if (status) return { status: status.status, type: 'InjectedFault', message: 'injected fault' };
    let form;
    try {
      form = parseMultipart(body, req.headers['content-type'] ?? '');
    } catch (err) {
      if (err instanceof MultipartError) return { status: 422, type: 'UnprocessableEntity', message: err.message };
      throw err;
    }
    const file = form.files.get('file');
    if (!file)
      return {
        status: 422,
        type: 'UnprocessableEntity',
        message: form.fields.has('file') ? "'file' must be an uploaded file, not a string" : "Field required: 'file'",
      };
    if (file.data.length > ctx.maxAudioBytes) return tooLarge(ctx.maxAudioBytes);
    const model = form.fields.get('model') ?? ctx.servedModels[0]!;
    if (!ctx.servedModels.includes(model)) return { status: 404, type: 'NotFoundError', message: `The model \`${model}\` does not exist.` };
    const responseFormat = form.fields.get('response_format') ?? 'json';
    if (responseFormat !== 'json' && responseFormat !== 'verbose_json' && responseFormat !== 'text' && responseFormat !== 'diarized_json') {
      return {
        status: 400,
        type: 'BadRequestError',
        message: `response_format ${responseFormat} is not served here; use json, verbose_json, text or diarized_json`,
      };
    }
    if (responseFormat === 'diarized_json' && model !== DIARIZE_MODEL)
      return { status: 400, type: 'BadRequestError', message: `response_format diarized_json is only served by ${DIARIZE_MODEL}` };
    // The SDKs send the array as repeated `timestamp_granularities[]` fields.
    const granularities = [...(form.values.get('timestamp_granularities[]') ?? []), ...(form.values.get('timestamp_granularities') ?? [])];
    const unknown = granularities.find((g) => g !== 'word' && g !== 'segment');
    if (unknown !== undefined) return { status: 400, type: 'BadRequestError', message: `timestamp_granularities ${unknown} is not one of word, segment` };
    const temperature = Number(form.fields.get('temperature') ?? 0);
    const stream = form.fields.get('stream') === 'true';
    const includeUsage = form.fields.get('stream_include_usage') === 'true';
    if (includeUsage && !stream) return { status: 400, type: 'BadRequestError', message: 'Stream options can only be defined when `stream=True`.' };
    let audio;
    try {
      audio = await resample(await decodeAudio(file.data, file.fileName), SAMPLE_RATE);
    } catch (err) {
      if (err instanceof AudioDecodeError) return { status: 400, type: 'BadRequestError', message: `Invalid or unsupported audio file: ${err.reason}` };
      throw err;
    }
    const recognizer = new StreamRecognizer(ctx.references, SAMPLE_RATE);
    const words = [...recognizer.feed(toPcm16(audio.samples)), ...recognizer.flush()];
    return {
      task,
      model,
      language: form.fields.get('language') ?? 'en',
      responseFormat,
      stream,
      includeUsage,
      words,
      segments: responseFormat === 'diarized_json' ? speakerSegments(words, new SpeakerLabeller(ctx.speakers, ctx.latency.options.seed)) : [],
      audioMs: (audio.samples.length / SAMPLE_RATE) * 1000,
      faults,
      granularities: { words: granularities.includes('word'), segments: granularities.length === 0 || granularities.includes('segment') },
      temperature: Number.isFinite(temperature) ? temperature : 0,
    };
  };

  return (req, res, task) => {
    if (req.method !== 'POST')
      return answerError(res, { status: 405, type: 'MethodNotAllowed', message: `${req.method} is not allowed; POST a multipart form` });
    inFlight++;
    res.once('close', () => inFlight--);
    const limit = ctx.maxAudioBytes + FORM_OVERHEAD_BYTES;
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) parts.push(chunk);
    });
    req.on('end', () => {
      if (ctx.apiKey !== undefined && req.headers.authorization !== `Bearer ${ctx.apiKey}`)
        return answerError(res, { status: 401, type: 'Unauthorized', message: 'Unauthorized' });
      if (size > limit) return answerError(res, tooLarge(ctx.maxAudioBytes));
      checked(req, Buffer.concat(parts), task).then(
        (job) => ('status' in job ? answerError(res, job) : answer(res, job, ctx.latency.batch(job.audioMs, load()), shapeOf(job.model))),
        (err: Error) => answerError(res, { status: 500, type: 'InternalServerError', message: err.message }),
      );
    });
  };
};

/** A request refused with a status and vLLM's error body. */
type Refusal = { status: number; type: string; message: string };
const tooLarge = (bytes: number): Refusal => ({ status: 413, type: 'RequestEntityTooLarge', message: `Maximum file size exceeded: ${bytes} bytes` });

function answerError(res: ServerResponse, { status, type, message }: Refusal): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message, type, param: null, code: status } }));
}

/** Sends the answer, its text timed as if the model worked through the audio in `processingMs`. */
function answer(res: ServerResponse, job: Job, processingMs: number, shape: EventShape): void {
  if (res.destroyed) return;
  const start = performance.now();
  const queue = new EmissionQueue();
  res.once('close', () => queue.clear());
  const text = job.words.map((w) => w.text).join(' ');
  const cut = faultOf(job.faults, 'cut-stream') !== undefined;
  const malformed = faultOf(job.faults, 'malformed-json') !== undefined;
  const errorEvent = faultOf(job.faults, 'error-event');
  const timing = {
    'server-timing': `inference;dur=${processingMs.toFixed(1)}`,
    ...(shape === 'openai-transcriptions' ? { 'openai-processing-ms': String(Math.round(processingMs)) } : {}),
  };
  const usage = { type: 'duration', seconds: Math.ceil(job.audioMs / 1000) };
  if (!job.stream) {
    queue.push(start + processingMs, () => {
      if (job.responseFormat === 'text') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', ...timing });
        return cut ? cutAfter(res, `${text}\n`) : res.end(`${text}\n`);
      }
      const body = malformed ? `{"text": ${JSON.stringify(text).slice(0, 8)}` : JSON.stringify(jsonAnswer(job, text, usage));
      res.writeHead(200, { 'content-type': 'application/json', ...timing });
      return cut ? cutAfter(res, body) : res.end(body);
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...timing });
  const id = `trsc-${randomBytes(8).toString('hex')}`;
  const send = (event: object): void => void res.write(`data: ${JSON.stringify(event)}\n\n`);
  const head = (): object => ({
    id,
    object: job.task === 'translate' ? 'translation.chunk' : 'transcription.chunk',
    created: Math.floor(Date.now() / 1000),
    model: job.model,
  });
  const chunk = (content: string, finish?: string): object => ({
    ...head(),
    choices: [{ delta: { content }, ...(finish ? { finish_reason: finish, stop_reason: null } : {}) }],
  });
  // vLLM's first chunk may carry no text.
  if (shape === 'vllm-transcriptions') send(chunk(''));
  const segmentEnds = new Map(job.segments.map((s, id) => [s.lastWord, { id, s }]));
  job.words.forEach((word, i) => {
    const delta = i === 0 ? word.text : ` ${word.text}`;
    const lastInWindow = i === job.words.length - 1 || Math.floor(job.words[i + 1]!.endMs / WINDOW_MS) !== Math.floor(word.endMs / WINDOW_MS);
    const ended = segmentEnds.get(i);
    queue.push(start + processingMs * Math.min(1, word.endMs / job.audioMs), () => {
      send(shape === 'openai-transcriptions' ? { type: 'transcript.text.delta', delta } : chunk(delta, lastInWindow ? 'stop' : undefined));
      // A diarized stream closes each segment with its event once its last word is out.
      if (ended) send(diarizedSegment(ended.id, ended.s));
    });
  });
  queue.push(start + processingMs, () => {
    if (cut) return void res.socket?.destroy();
    if (malformed) return void res.end('data: {"object": "transcription.ch\n\n');
    // vLLM sends an error inside a stream as an error object, then [DONE].
    if (errorEvent)
      return void res.end(
        `data: ${JSON.stringify({ error: { message: 'injected fault', type: 'InternalServerError', param: null, code: errorEvent.code } })}\n\ndata: [DONE]\n\n`,
      );
    const tokens = transcriptionTokens(job.audioMs, job.words.length);
    if (shape === 'openai-transcriptions') {
      send({ type: 'transcript.text.done', text, usage: tokens });
      return void res.end();
    }
    if (job.includeUsage)
      send({
        ...head(),
        choices: [],
        usage: { prompt_tokens: tokens.input_tokens, completion_tokens: tokens.output_tokens, total_tokens: tokens.total_tokens },
      });
    res.end('data: [DONE]\n\n');
  });
}

/** The JSON body: `text` (and usage), or verbose JSON with Whisper's segments (one per window) and words as asked. */
function jsonAnswer(job: Job, text: string, usage: object): object {
  if (job.task === 'translate' && job.responseFormat === 'json') return { text };
  if (job.responseFormat === 'json') return { text, usage };
  if (job.responseFormat === 'diarized_json')
    return { task: 'transcribe', duration: job.audioMs / 1000, text, segments: job.segments.map((s, id) => diarizedSegment(id, s)), usage };
  const windows = new Map<number, HeardWord[]>();
  for (const word of job.words) {
    const window = Math.floor(word.endMs / WINDOW_MS);
    windows.set(window, [...(windows.get(window) ?? []), word]);
  }
  let heard = 0;
  const segments = [...windows].map(([window, words], id) => {
    const first = heard;
    heard += words.length;
    return segment(id, window * WINDOW_MS, Math.min(job.audioMs, (window + 1) * WINDOW_MS), words, first, job.temperature);
  });
  // The recognizer knows where words end; each starts where the one before it ended.
  const words = job.words.map((w, i) => ({ word: w.text, start: (i === 0 ? 0 : job.words[i - 1]!.endMs) / 1000, end: w.endMs / 1000 }));
  return {
    task: job.task,
    language: job.language,
    duration: job.audioMs / 1000,
    text,
    ...(job.granularities.segments ? { segments } : {}),
    ...(job.granularities.words && job.task === 'transcribe' ? { words } : {}),
    ...(job.task === 'transcribe' ? { usage } : {}),
  };
}

/** One Whisper segment: the recognizer is sure of what it heard (log-probability 0, no chance of silence); its tokens are one a word, numbered through the transcript from `firstWord`. */
function segment(id: number, startMs: number, endMs: number, words: HeardWord[], firstWord: number, temperature: number): object {
  const text = words.map((w) => w.text).join(' ');
  return {
    id,
    seek: Math.round(startMs * SEEK_FRAMES_PER_MS),
    start: startMs / 1000,
    end: endMs / 1000,
    text,
    tokens: words.map((_, i) => firstWord + i),
    temperature,
    avg_logprob: 0,
    // Whisper's measure of repetition: the text's size over its compressed size.
    compression_ratio: text.length === 0 ? 0 : Buffer.byteLength(text) / deflateSync(text).length,
    no_speech_prob: 0,
  };
}

/** A run of words of one speaker, as `gpt-4o-transcribe-diarize` answers them. */
interface SpeakerSegment {
  speaker: string;
  startMs: number;
  endMs: number;
  text: string;
  /** Index of its last word in the transcript. */
  lastWord: number;
}

/**
 * The words in runs of one speaker label, each run a segment: speakers are `A`, `B`, …
 * in the order first heard (OpenAI's names without known speakers); a word with no
 * reference speaker stays with the run it is in. Each word starts where the recognizer
 * says, else where the one before it ended.
 */
function speakerSegments(words: readonly HeardWord[], labeller: SpeakerLabeller): SpeakerSegment[] {
  const segments: SpeakerSegment[] = [];
  words.forEach((word, i) => {
    const number = labeller.label(word);
    const last = segments.at(-1);
    const speaker = number === undefined ? (last?.speaker ?? 'A') : String.fromCharCode(65 + number);
    if (last?.speaker === speaker) Object.assign(last, { endMs: word.endMs, text: `${last.text} ${word.text}`, lastWord: i });
    else segments.push({ speaker, startMs: word.startMs ?? (i === 0 ? 0 : words[i - 1]!.endMs), endMs: word.endMs, text: word.text, lastWord: i });
  });
  return segments;
}

/** One `transcript.text.segment`, the shape of both diarized_json's `segments[]` and the stream's segment event. */
const diarizedSegment = (id: number, s: SpeakerSegment): object => ({
  type: 'transcript.text.segment',
  id: `seg_${id}`,
  start: s.startMs / 1000,
  end: s.endMs / 1000,
  speaker: s.speaker,
  text: s.text,
});

/** Writes half of `body`, then drops the connection: a response cut short. */
function cutAfter(res: ServerResponse, body: string): void {
  res.write(body.slice(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
}
