import type { Task } from '../../timeline/types.js';
import type { InputView, SessionView } from '../../views/session-view.js';
import { ANCHORS as A, span } from '../anchors.js';
import { wordEmissionLatencies } from '../emission.js';
import { pooledPartErrors, scoredInput, transcriptErrorsOf, type ScoredInput } from '../quality.js';
import { mean } from '../stats.js';
import { errorRate, type EditCounts } from '../wer.js';
import type { MetricDefinition } from './definition.js';

/** Speech to text: streamed (`stt`), and as one request per recording (`batch_stt`). */
const STT: readonly Task[] = ['stt'];
const TRANSCRIPTION: readonly Task[] = ['stt', 'batch_stt'];
/** Tasks whose inputs' transcripts are scored: speech to speech's input transcription too. */
const SCORED_TASKS: readonly Task[] = [...TRANSCRIPTION, 's2s'];
const SCORED = "after the input's normalizer (each input records its own; see the summary's quality)";

/** Audio of the input: the span its chunks streamed, or the whole recording one request carried. */
export const audioMs = (v: InputView): number | undefined => {
  const first = v.media[0];
  const last = v.media[v.media.length - 1];
  if (first?.audioStartMs !== undefined && last?.audioEndMs !== undefined) return last.audioEndMs - first.audioStartMs;
  return v.request && v.plan?.kind === 'audio' ? v.plan.audioEndMs - v.plan.audioStartMs : undefined;
};
/** Processing time: the turn from its first chunk to its final (streams), or the request to its response complete (HTTP). */
const processingMs = (v: InputView): number | undefined =>
  v.request ? span(A.input.request_start, A.input.response_end, v) : span(A.input.first_sent, A.input.transcript_final, v);

/** A per-input count of one kind of word edit, pooled in the summary's quality. */
function wordEdit(name: string, kind: keyof EditCounts, description: string): MetricDefinition {
  return {
    name,
    unit: 'count',
    scope: 'input',
    tasks: TRANSCRIPTION,
    tags: ['quality'],
    better: 'lower',
    quantity: `word ${kind} of the final transcript against the reference, ${SCORED}`,
    description,
    value: (v) => transcriptErrorsOf(v)?.words[kind],
  };
}

/** How soon and how steadily text follows the audio. */
export const TRANSCRIPTION_LATENCY: MetricDefinition[] = [
  {
    name: 'ttft_ms',
    unit: 'ms',
    scope: 'input',
    tasks: TRANSCRIPTION,
    tags: ['headline', 'latency'],
    // Batch requests head with processing_ms; ttft_ms there is the same span unless streamed.
    headlineOf: STT,
    better: 'lower',
    from: A.input.start,
    to: A.input.transcript_first_text,
    description:
      'Time to first text: how soon live captions can begin. Empty deltas never count. For a request, from its start (the upload included); without --stream the first text is the whole answer.',
  },
  {
    name: 'finalization_ms',
    unit: 'ms',
    scope: 'input',
    tasks: STT,
    tags: ['headline', 'latency'],
    better: 'lower',
    from: A.input.eos_sent,
    to: A.input.transcript_final,
    description:
      "How long a voice agent waits after speech ends. Includes the server's VAD wait when silence triggers the final; the input's eos_source says where end of speech came from.",
  },
  {
    name: 'commit_to_flush_ms',
    unit: 'ms',
    scope: 'input',
    tasks: STT,
    tags: ['headline', 'latency'],
    better: 'lower',
    from: A.input.end_sent,
    to: A.input.transcript_final,
    description: 'How long the server takes to finish a submitted turn; starts at an explicit client event.',
  },
  {
    name: 'ttlt_ms',
    unit: 'ms',
    scope: 'input',
    tasks: STT,
    tags: ['latency'],
    better: 'lower',
    from: A.input.last_sent,
    to: A.input.transcript_last_event,
    description:
      'Time to last text: the lag of the last transcript event behind the last audio. Negative when audio is still sent after the last transcript event (trailing silence under server VAD).',
  },
  {
    name: 'avg_rtt_ms',
    unit: 'ms',
    scope: 'input',
    tasks: STT,
    tags: ['latency'],
    better: 'lower',
    quantity: "mean receive time of the input's text events minus the mean send time of its audio chunks",
    description:
      'Approximate round trip: assumes text follows audio uniformly in time; more stable than TTFT or TTLT. It compares two means, not paired events, so it can be negative.',
    value: (v) =>
      v.transcript.textEvents.length > 0 && v.media.length > 0 ? mean(v.transcript.textEvents.map((e) => e.t)) - mean(v.media.map((c) => c.t)) : undefined,
  },
  {
    name: 'word_emission_ms',
    unit: 'ms',
    scope: 'input_samples',
    tasks: STT,
    tags: ['headline', 'latency'],
    better: 'lower',
    from: "send time of the chunk holding a reference word's end (dataset word timings)",
    to: 'receipt of that word in the transcript, paired by the WER alignment',
    description: 'The true round trip per word; only inputs with word timings count, and only words the server got right.',
    samples: wordEmissionLatencies,
  },
];

/** Pace, throughput and quality of each input. */
export const TRANSCRIPTION_FIGURES: MetricDefinition[] = [
  {
    name: 'itl_ms',
    unit: 'ms',
    scope: 'input_samples',
    tasks: TRANSCRIPTION,
    tags: ['latency'],
    better: 'lower',
    from: 'a text event received',
    to: 'the next text event received',
    description: 'Inter-text latency: every gap between consecutive text events, pooled.',
    samples: (v) => v.transcript.textEvents.slice(1).map((e, i) => e.t - v.transcript.textEvents[i]!.t),
  },
  {
    name: 'turn_ms',
    unit: 'ms',
    scope: 'input',
    tasks: STT,
    tags: ['latency'],
    better: 'lower',
    from: A.input.first_sent,
    to: A.input.transcript_final,
    description: 'Processing time of the turn, audio streaming included.',
  },
  {
    name: 'audio_ms',
    unit: 'ms',
    scope: 'input',
    tasks: ['stt', 'batch_stt', 's2s'],
    tags: ['throughput', 'workload'],
    better: 'neither',
    quantity: 'audio streamed in the input, or the recording its request carried',
    description: 'Duration of the audio sent in the input.',
    value: audioMs,
  },
  {
    name: 'rtf',
    unit: 'ratio',
    scope: 'input',
    tasks: TRANSCRIPTION,
    tags: ['throughput'],
    better: 'lower',
    quantity: 'turn_ms (a request: processing_ms) / audio_ms',
    description: 'Real-time factor: processing time over audio duration. About 1 plus the tail under real-time pacing.',
    value: (v) => {
      const processing = processingMs(v);
      const audio = audioMs(v);
      return processing !== undefined && audio ? processing / audio : undefined;
    },
  },
  {
    name: 'rtfx',
    unit: 'ratio',
    scope: 'input',
    tasks: TRANSCRIPTION,
    tags: ['throughput'],
    better: 'higher',
    quantity: 'audio_ms / turn_ms (a request: processing_ms)',
    description: 'Inverse real-time factor: audio duration over processing time.',
    value: (v) => {
      const processing = processingMs(v);
      const audio = audioMs(v);
      return processing && audio !== undefined ? audio / processing : undefined;
    },
  },
  {
    name: 'wer',
    unit: 'ratio',
    scope: 'input',
    tasks: TRANSCRIPTION,
    tags: ['headline', 'quality'],
    better: 'lower',
    quantity: `word error rate of the final transcript against the reference, ${SCORED}`,
    description: '(substitutions + deletions + insertions) / reference words, for one input; the summary also pools errors over the corpus.',
    value: (v) => {
      const errors = transcriptErrorsOf(v)?.words;
      return errors ? (errorRate(errors) ?? undefined) : undefined;
    },
  },
  {
    name: 'cer',
    unit: 'ratio',
    scope: 'input',
    tasks: TRANSCRIPTION,
    tags: ['quality'],
    better: 'lower',
    quantity: `character error rate of the final transcript against the reference, ${SCORED}`,
    description:
      'Character edits over reference characters, the spaces between normalized words included (as jiwer counts them): the figure for languages written without spaces, and one that counts a near miss as less than the whole word WER counts.',
    value: (v) => {
      const errors = transcriptErrorsOf(v)?.chars;
      return errors ? (errorRate(errors) ?? undefined) : undefined;
    },
  },
  wordEdit('word_substitutions', 'substitutions', 'Reference words the transcript got wrong.'),
  wordEdit('word_deletions', 'deletions', 'Reference words missing from the transcript.'),
  wordEdit('word_insertions', 'insertions', 'Transcript words with no reference word.'),
];

/** Each input's scoring (none where it has no reference or final), one entry per input: corpus WER and CER resample inputs. */
const scoredPerInput = (view: SessionView): ScoredInput[][] => {
  // Corpus WER and CER share one part: a report keeps it for every session until its level is summarized.
  let part = partsOf.get(view);
  if (!part) partsOf.set(view, (part = view.inputs.map(scoredInput)));
  return part;
};
const partsOf = new WeakMap<SessionView, ScoredInput[][]>();

/** Quality pooled over the corpus. */
export const TRANSCRIPTION_CORPUS: MetricDefinition[] = [
  {
    name: 'corpus_wer',
    unit: 'ratio',
    scope: 'corpus',
    tasks: SCORED_TASKS,
    tags: ['headline', 'quality'],
    headlineOf: TRANSCRIPTION,
    better: 'lower',
    resample: 'inputs',
    quantity: `word errors summed over every input with a reference and a final transcript, over their reference words, ${SCORED}`,
    description: 'Corpus WER, as leaderboards pool it: long utterances weigh more than short ones. Its interval resamples turns.',
    part: scoredPerInput,
    reduce: (parts: ScoredInput[][][]) => errorRate(pooledPartErrors(parts).words),
  },
  {
    name: 'corpus_cer',
    unit: 'ratio',
    scope: 'corpus',
    tasks: SCORED_TASKS,
    tags: ['quality'],
    better: 'lower',
    resample: 'inputs',
    quantity: `character errors summed over every input with a reference and a final transcript, over their reference characters, ${SCORED}`,
    description: 'Corpus CER, pooled as corpus WER is. Its interval resamples turns.',
    part: scoredPerInput,
    reduce: (parts: ScoredInput[][][]) => errorRate(pooledPartErrors(parts).chars),
  },
];
