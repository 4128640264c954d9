import type { SpeechAnalysis, Task } from '../../timeline/types.js';
import { span } from '../anchors.js';
import { audioOutMs, charsOf, chunkGaps, TTS_ANCHORS as T } from '../tts.js';
import { errorRate } from '../wer.js';
import { measure, type MetricDefinition } from './definition.js';

/** Speech generation: streamed (`tts`), and one body per request (`batch_tts`). */
const TTS: readonly Task[] = ['tts'];
const SPEECH: readonly Task[] = ['tts', 'batch_tts'];

/** Time to first audio: `ttfa_audible_ms` starts from it. */
const TTFA = {
  name: 'ttfa_ms',
  unit: 'ms',
  scope: 'input',
  tasks: SPEECH,
  tags: ['headline', 'latency'],
  // A one-body answer (batch_tts) is heard only once it has all arrived: its first audio is its last, and total_ms heads it.
  headlineOf: TTS,
  better: 'lower',
  from: T.text_submitted,
  to: T.first_audio,
  description:
    'Time to first audio: from the send that forces synthesis to the first real audio samples. Negative when a server starts speaking before the text ends (ElevenLabs after 120 characters, sentence splitting).',
} satisfies MetricDefinition;

/** Total generation time: `chars_per_s` divides by it; what a one-body request (batch_tts) measures, so its headline. */
const TOTAL = {
  name: 'total_ms',
  unit: 'ms',
  scope: 'input',
  tasks: SPEECH,
  tags: ['headline', 'latency'],
  headlineOf: ['batch_tts'],
  better: 'lower',
  from: T.text_submitted,
  to: T.speech_end,
  description: 'Total generation time: from the send that forces synthesis to the last audio or the end of the response.',
} satisfies MetricDefinition;

const NO_ANALYSIS: never[] = [];

export const SPEECH_METRICS: MetricDefinition[] = [
  {
    name: 'ttfb_ms',
    unit: 'ms',
    scope: 'input',
    tasks: SPEECH,
    tags: ['latency', 'transport'],
    better: 'lower',
    from: T.text_first_sent,
    to: T.first_frame,
    description: 'Time to first byte: the first frame of any kind the server sent back, announcements and WAV headers included.',
  },
  TTFA,
  TOTAL,
  {
    name: 'ftts_ms',
    unit: 'ms',
    scope: 'input',
    tasks: TTS,
    tags: ['latency'],
    better: 'lower',
    from: T.text_first_streamed,
    to: T.first_audio,
    description:
      "First token to speech (Picovoice's FTTS): only when the text is streamed like an LLM's output (--text-rate), from its first token to the first audio.",
  },
  {
    name: 'playback_start_ms',
    unit: 'ms',
    scope: 'input',
    tasks: TTS,
    tags: ['headline', 'latency'],
    better: 'lower',
    from: T.text_submitted,
    to: T.playback_start,
    description: 'When a listener hears the first sample: a simulated player starts once --playback-buffer-ms of audio is buffered (or the stream has ended).',
  },
  {
    name: 'stall_count',
    unit: 'count',
    scope: 'input',
    tasks: TTS,
    tags: ['headline', 'quality'],
    better: 'lower',
    quantity: 'underruns of the simulated real-time player after it started, until the last audio',
    description: 'Times playback ran dry and the listener heard a gap.',
    value: (v) => (v.audio.chunks.length > 0 ? v.playback().stalls.length : undefined),
  },
  {
    name: 'stall_ms',
    unit: 'ms',
    scope: 'input',
    tasks: TTS,
    tags: ['quality'],
    better: 'lower',
    quantity: 'total time the simulated player waited for audio after it started',
    description: 'Silence the listener heard that the speech did not have.',
    value: (v) => (v.audio.chunks.length > 0 ? v.playback().stallMs : undefined),
  },
  {
    name: 'chunk_gap_ms',
    unit: 'ms',
    scope: 'input_samples',
    tasks: TTS,
    tags: ['latency'],
    better: 'lower',
    from: 'an audio chunk received',
    to: 'the next audio chunk received',
    description: 'Inter-chunk gap: every gap between consecutive audio chunks, pooled (its p95 and max are the tail a player must buffer for).',
    samples: chunkGaps,
  },
  {
    name: 'gen_rtf',
    unit: 'ratio',
    scope: 'input',
    tasks: SPEECH,
    tags: ['headline', 'throughput'],
    better: 'lower',
    quantity: '(last audio received − text submitted) / audio_out_ms',
    description: 'Generation real-time factor: below 1 the server generates faster than the audio plays.',
    value: (v) => {
      const generation = span(T.text_submitted, T.last_audio, v);
      const audio = audioOutMs(v);
      return generation !== undefined && audio ? generation / audio : undefined;
    },
  },
  {
    name: 'audio_out_ms',
    unit: 'ms',
    scope: 'input',
    tasks: SPEECH,
    tags: ['throughput'],
    better: 'neither',
    quantity: 'duration of the audio received, from the payload lengths',
    description: 'Generated audio duration.',
    value: audioOutMs,
  },
  {
    name: 'chars',
    unit: 'count',
    scope: 'input',
    tasks: SPEECH,
    tags: ['throughput', 'workload'],
    better: 'neither',
    quantity: "characters (code points) of the input's text",
    description: 'Input size, for cost per million characters.',
    value: charsOf,
  },
  {
    name: 'chars_per_s',
    unit: 'chars/s',
    scope: 'input',
    tasks: SPEECH,
    tags: ['throughput'],
    better: 'higher',
    quantity: 'chars / total_ms, per second',
    description: 'Characters of text turned into speech per second of generation.',
    value: (v) => {
      const chars = charsOf(v);
      const total = measure(TOTAL, v);
      return chars !== undefined && total ? (chars * 1000) / total : undefined;
    },
  },
  // Speech generation's quality, from the after-run analysis of the received audio (`timeline.analysis`).
  {
    name: 'ttfa_audible_ms',
    unit: 'ms',
    scope: 'input',
    tasks: SPEECH,
    tags: ['latency'],
    better: 'lower',
    quantity: 'time to first audio plus the leading silence in it: text submitted to the first audible sound (energy onset, after the run)',
    description:
      "What a listener waits for: the first audio payload's arrival plus the silence it opens with (the first 10 ms frame with mean-removed RMS of 0.01 or more).",
    value: (v) => {
      const ttfa = measure(TTFA, v);
      const silence = v.analysis?.leadingSilenceMs;
      return ttfa === undefined || silence === undefined || silence === null ? undefined : ttfa + silence;
    },
  },
  {
    name: 'tts_wer',
    unit: 'ratio',
    scope: 'input',
    tasks: SPEECH,
    tags: ['headline', 'quality'],
    better: 'lower',
    quantity: `intelligibility: word error rate of the generated audio as a transcription server heard it, against the text sent, after the normalizer the analysis names (whisper-english)`,
    description: 'The round trip: the received audio sent, after the run, to the --asr-target transcription server (the built-in one by default).',
    value: (v) => {
      const asr = v.analysis?.asr;
      return asr && 'errors' in asr ? (errorRate(asr.errors) ?? undefined) : undefined;
    },
  },
  {
    name: 'tts_corpus_wer',
    unit: 'ratio',
    scope: 'corpus',
    tasks: SPEECH,
    tags: ['headline', 'quality'],
    better: 'lower',
    quantity: `intelligibility word errors summed over every analysed input, over their words (whisper-english)`,
    description: 'Corpus intelligibility WER of the round trip: long texts weigh more than short ones.',
    // Sessions without a checked input share one empty part (a report keeps each session's part until its level is summarized).
    part: (view) => (view.inputs.some((i) => i.analysis?.asr) ? view.inputs.map((i) => i.analysis?.asr) : NO_ANALYSIS),
    reduce: (parts: Array<Array<SpeechAnalysis['asr'] | undefined>>) => {
      const total = { substitutions: 0, deletions: 0, insertions: 0, words: 0 };
      for (const asr of parts.flat()) {
        if (!asr || !('errors' in asr)) continue;
        for (const key of Object.keys(total) as Array<keyof typeof total>) total[key] += asr.errors[key];
      }
      return errorRate(total);
    },
  },
  speechLevel('clipping_ratio', 'samples at full scale, as a share of the received audio', (a) => a.clippingRatio),
  speechLevel('silence_ratio', '20 ms frames below the speech threshold (RMS 0.01), as a share of the received audio', (a) => a.silenceRatio),
  {
    name: 'audio_format_problems',
    unit: 'count',
    scope: 'input',
    tasks: SPEECH,
    tags: ['quality'],
    better: 'lower',
    quantity: 'ways the received audio disagrees with what was declared (WAV header fields, sample format, whole samples)',
    description: "Found by the after-run analysis; each is listed in the session's timeline (`analysis`).",
    value: (v) => v.analysis?.formatProblems.length,
  },
];

/** A level check of the received audio, from the after-run analysis. */
function speechLevel(name: string, quantity: string, value: (a: SpeechAnalysis) => number): MetricDefinition {
  return {
    name,
    unit: 'ratio',
    scope: 'input',
    tasks: SPEECH,
    tags: ['quality'],
    better: 'lower',
    quantity,
    description: 'From the after-run analysis of the received audio.',
    value: (v) => (v.analysis ? value(v.analysis) : undefined),
  };
}
