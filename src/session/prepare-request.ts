import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import type { HttpDialect, RequestInput } from '../dialects/dialect.js';
import { encodeFlac } from '../audio/flac-encode.js';
import { CONTENT_TYPES, sniffFormat, type AudioFormat } from '../audio/format.js';
import { toPcm16 } from '../audio/pcm.js';
import { resample } from '../audio/resample.js';
import { audioSeconds, type MonoAudio } from '../audio/decode.js';
import type { Sample, TextSample } from '../data/dataset.js';
import type { PreparedRequest } from './http-runner.js';
import { findSpeech, type EosPreference } from './prepare.js';
import { placedTurns } from './bounds.js';

/** How a recording is uploaded: re-encoded at the dialect's rate, or (undefined) the dataset's own file. */
export type UploadFormat = 'wav' | 'flac';

/**
 * A sample's whole recording as one request, built before the clock starts: the file
 * as the dataset holds it when the sample kept it (`Sample.file`), else re-encoded at
 * the dialect's rate as a 16-bit WAV or FLAC file. Shared by every session that sends
 * the sample.
 */
export async function prepareAudioRequest(sample: Sample, dialect: HttpDialect, eos: EosPreference, format?: UploadFormat): Promise<PreparedRequest> {
  const audio = await resample(sample.audio, dialect.sampleRate);
  const speech = findSpeech(sample, audio.pcm16 ?? toPcm16(audio.samples), audio.sampleRate, eos);
  return {
    input: {
      kind: 'audio',
      sampleId: sample.id,
      split: sample.split,
      reference: sample.text,
      ...(sample.language !== undefined ? { language: sample.language } : {}),
      ...(sample.words ? { words: sample.words.map((w) => ({ word: w.word, endMs: w.end * 1000 })) } : {}),
      ...placedTurns(sample.turns, 0),
      audioStartMs: 0,
      speechStartMs: speech.startMs,
      speechEndMs: speech.endMs,
      eosSource: speech.source,
      audioEndMs: audioSeconds(audio) * 1000,
    },
    request: dialect.request({ kind: 'audio', ...uploadFile(sample, audio, format), ...(sample.language ? { language: sample.language } : {}) }),
  };
}

const EXTENSIONS: Record<AudioFormat, string> = { wav: 'wav', flac: 'flac', mp3: 'mp3', vorbis: 'ogg', opus: 'opus' };

function uploadFile(
  sample: Sample,
  audio: MonoAudio,
  format: UploadFormat | undefined,
): Pick<Extract<RequestInput, { kind: 'audio' }>, 'file' | 'fileName' | 'contentType'> {
  const own = format === undefined && sample.file ? sniffFormat(sample.file) : null;
  const as = typeof own === 'string' ? own : (format ?? 'wav');
  const file =
    typeof own === 'string'
      ? Buffer.from(sample.file!.buffer, sample.file!.byteOffset, sample.file!.byteLength)
      : as === 'flac'
        ? encodeFlac(audio.samples, audio.sampleRate)
        : Buffer.from(encodeWaveFromFloat32Channels([audio.samples], audio.sampleRate, 16));
  return { file, fileName: `${sample.id}.${EXTENSIONS[as]}`, contentType: CONTENT_TYPES[as] };
}

/**
 * A sample's text as one speech-generation request, built before the clock starts: the
 * dataset's reference text is the prompt (so a transcription dataset drives both
 * directions), with the sample's voice and language when it names them.
 */
export function prepareTextRequest(sample: Pick<TextSample, 'id' | 'split' | 'text' | 'voice' | 'language'>, dialect: HttpDialect): PreparedRequest {
  return {
    input: { kind: 'text', sampleId: sample.id, split: sample.split, text: sample.text, chars: [...sample.text].length },
    request: dialect.request({
      kind: 'text',
      text: sample.text,
      ...(sample.voice !== undefined ? { voice: sample.voice } : {}),
      ...(sample.language !== undefined ? { language: sample.language } : {}),
    }),
  };
}
