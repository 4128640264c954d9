import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import type { HttpDialect } from '../dialects/dialect.js';
import { toPcm16 } from '../audio/pcm.js';
import { resample } from '../audio/resample.js';
import type { Sample, TextSample } from '../data/dataset.js';
import type { PreparedRequest } from './http-runner.js';
import { findSpeech, type EosPreference } from './prepare.js';

/**
 * A sample's whole recording as one request, built before the clock starts: resampled
 * to the dialect's rate and sent as a 16-bit WAV file. Shared by every session that
 * sends the sample.
 */
export async function prepareAudioRequest(sample: Sample, dialect: HttpDialect, eos: EosPreference): Promise<PreparedRequest> {
  const audio = await resample(sample.audio, dialect.sampleRate);
  const speech = findSpeech(sample, toPcm16(audio.samples), audio.sampleRate, eos);
  const file = Buffer.from(encodeWaveFromFloat32Channels([audio.samples], audio.sampleRate, 16));
  return {
    input: {
      kind: 'audio',
      sampleId: sample.id,
      split: sample.split,
      reference: sample.text,
      ...(sample.words ? { words: sample.words.map((w) => ({ word: w.word, endMs: w.end * 1000 })) } : {}),
      audioStartMs: 0,
      speechStartMs: speech.startMs,
      speechEndMs: speech.endMs,
      eosSource: speech.source,
      audioEndMs: (audio.samples.length / audio.sampleRate) * 1000,
    },
    request: dialect.request({ kind: 'audio', file, fileName: `${sample.id}.wav`, contentType: 'audio/wav', ...(sample.language ? { language: sample.language } : {}) }),
  };
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
