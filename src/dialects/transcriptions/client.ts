import type { HttpDialect, RequestInput } from '../dialect.js';
import { multipartBody } from '../multipart.js';
import { transcriptionPolicy } from '../stt-policy.js';
import { bodyKindOf, transcriptionBodyDecoder, type BodyKind } from '../transcription-body.js';

/** The `response_format`s asked for (`diarized_json`: OpenAI's `gpt-4o-transcribe-diarize`, segments with speakers). */
export const TRANSCRIPTION_FORMATS = ['json', 'verbose_json', 'text', 'diarized_json'] as const;
/** The formats a streamed answer may be asked in: `diarized_json` adds `transcript.text.segment` events. */
export const STREAMED_TRANSCRIPTION_FORMATS: ReadonlyArray<(typeof TRANSCRIPTION_FORMATS)[number]> = ['json', 'diarized_json'];

export interface TranscriptionOptions {
  /** `json` (default), `verbose_json` (segments, duration), `text`, or `diarized_json` (segments with speakers; streamed too). */
  responseFormat: (typeof TRANSCRIPTION_FORMATS)[number];
  /** Sampling temperature; omitted, the server's default. */
  temperature?: number;
  /** Ask for a server-sent event stream (`stream=true`). */
  stream: boolean;
  /** `/v1/audio/translations` (to English) instead of `/v1/audio/transcriptions`. */
  translate: boolean;
}

export const DEFAULT_TRANSCRIPTION: TranscriptionOptions = { responseFormat: 'json', stream: false, translate: false };

export interface TranscriptionDialectSettings {
  model: string;
  /** Sent as the form's `language`; omitted, the sample's language label (its primary subtag), else none (the server detects it). */
  language?: string;
  prompt?: string;
  transcription?: TranscriptionOptions;
}

/** The families, by `--protocol` name: what each sends beyond the common form. */
const FAMILIES = {
  /** vLLM's own client (`vllm bench serve --backend openai-audio`) asks for usage in streams. */
  'vllm-transcriptions': { streamFields: [['stream_include_usage', 'true']], translationLanguage: true },
  /** OpenAI's translations endpoint takes no `language`. */
  'openai-transcriptions': { streamFields: [], translationLanguage: false },
} as const;
export type TranscriptionProtocol = keyof typeof FAMILIES;

/** vLLM takes any rate and resamples; 16 kHz is what Whisper-class models hear. */
const SAMPLE_RATE = 16_000;

/**
 * `POST /v1/audio/transcriptions` (or `/translations`) as vLLM and OpenAI serve it:
 * one multipart request per recording, answered as JSON, text, or a stream of either
 * event shape (see transcription-body.ts). Each form is built once, before the clock
 * starts, into one Buffer.
 */
export function transcriptionsDialect(name: TranscriptionProtocol, settings: TranscriptionDialectSettings): HttpDialect {
  const options = settings.transcription ?? DEFAULT_TRANSCRIPTION;
  const family = FAMILIES[name];
  const path = options.translate ? '/v1/audio/translations' : '/v1/audio/transcriptions';
  const requested: BodyKind = options.stream ? 'sse' : options.responseFormat === 'text' ? 'text' : 'json';
  const sendsLanguage = !options.translate || family.translationLanguage;
  const fields = (input: RequestInput): Array<readonly [string, string]> => {
    const language = settings.language ?? primaryLanguage(input.language);
    return [
      ['model', settings.model],
      ...(language !== undefined && sendsLanguage ? [['language', language] as const] : []),
      ...(settings.prompt !== undefined ? [['prompt', settings.prompt] as const] : []),
      ['response_format', options.responseFormat],
      // OpenAI requires a chunking strategy of the diarizing model for inputs over 30 s.
      ...(options.responseFormat === 'diarized_json' ? [['chunking_strategy', 'auto'] as const] : []),
      ...(options.temperature !== undefined ? [['temperature', String(options.temperature)] as const] : []),
      ...(options.stream ? [['stream', 'true'] as const, ...family.streamFields] : []),
    ];
  };
  return {
    name,
    task: 'batch_stt',
    transport: 'http',
    turnDetection: 'client',
    sampleRate: SAMPLE_RATE,
    policy: () => transcriptionPolicy('client'),
    request(input) {
      if (input.kind !== 'audio') throw new Error(`${name} transcribes audio; it was given a text`);
      const { body, contentType } = multipartBody(fields(input), { name: 'file', fileName: input.fileName, contentType: input.contentType, data: input.file });
      return { method: 'POST', path, headers: { 'content-type': contentType, accept: options.stream ? 'text/event-stream' : '*/*' }, body };
    },
    bodyDecoder: (_status, contentType) => transcriptionBodyDecoder(bodyKindOf(contentType, requested)),
  };
}

/** `en` of `en-US`; undefined for a label that is not a two- or three-letter code. */
function primaryLanguage(label: string | undefined): string | undefined {
  const primary = label?.split(/[-_]/)[0]?.toLowerCase();
  return primary !== undefined && /^[a-z]{2,3}$/.test(primary) ? primary : undefined;
}
