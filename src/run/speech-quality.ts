import { monotonicClock } from '../runtime/clock.js';
import { decodeReceivedAudio, speechLevels } from '../audio/received.js';
import { fromPcm16 } from '../audio/pcm.js';
import type { QualitySettings } from '../config/dialect-rules.js';
import { resolveSettings, type Settings } from '../config/settings.js';
import type { Dataset, Sample } from '../data/dataset.js';
import { normalizerById, normalizerFor } from '../metrics/normalizers/index.js';
import { transcriptErrors } from '../metrics/wer.js';
import { redactUrl } from '../report/redact.js';
import { builtInWebSocketTarget, createRunContext, runLevel } from './run-context.js';
import type { ServerThread } from '../simulator/thread.js';
import type { ReceivedAudio } from '../session/received-audio.js';
import type { AsrResult, SessionRecord, SpeechAnalysis } from '../timeline/types.js';
import { sessionView } from '../views/session-view.js';

/** Transcriptions of the round trip run at once. */
const ASR_CONCURRENCY = 4;

interface Clip {
  record: SessionRecord;
  analysis: SpeechAnalysis;
  text: string;
  pcm: Buffer;
}

/**
 * Sessions analysed at once: their decoded audio, and its copies the transcription
 * prepares, are all the check holds at a time, so its memory does not grow with the
 * sessions kept (the run's peak RSS was the check's, two to three times the audio kept).
 */
const BATCH_SESSIONS = 20;

/**
 * The after-run check of generated speech, once a benchmark's sessions have all ended
 * (never while sessions stream): each kept response's audio is decoded, its levels and
 * format checked, and it is sent to a transcription server (the built-in one unless
 * `--asr-target` names one) whose transcript is scored against the text that was
 * spoken. The results go on each session's timeline as `analysis`, where the catalog's
 * speech-quality metrics read them. Sessions go BATCH_SESSIONS at a time; `takeAudio`
 * gives each session's kept audio once, so what was analysed is let go.
 */
export async function analyseSpeech(
  records: readonly SessionRecord[],
  takeAudio: (record: SessionRecord) => ReceivedAudio | undefined,
  quality: QualitySettings,
  builtIn?: ServerThread,
): Promise<void> {
  let transcriber: Transcriber | undefined;
  try {
    for (let from = 0; from < records.length; from += BATCH_SESSIONS) {
      const clips: Clip[] = [];
      for (const record of records.slice(from, from + BATCH_SESSIONS)) {
        const audio = takeAudio(record);
        if (audio) clips.push(...(await analyseLevels(record, audio)));
      }
      if (clips.length > 0) await (transcriber ??= await startTranscriber(quality, builtIn)).transcribe(clips);
    }
  } finally {
    await transcriber?.close();
  }
}

/** Decodes a session's kept audio and checks its levels and format, onto its timeline: the clips whose speech the round trip transcribes. */
async function analyseLevels(record: SessionRecord, audio: ReceivedAudio): Promise<Clip[]> {
  const clips: Clip[] = [];
  const analyses: SpeechAnalysis[] = [];
  for (const { input, payloads } of audio.inputs) {
    const plan = record.timeline.inputs.find((i) => i.index === input);
    const decoded = await decodeReceivedAudio(payloads, declaredRate(record, input)).catch((err: Error) => err);
    if (decoded instanceof Error) {
      analyses.push({ input, audioMs: 0, sampleRate: 0, leadingSilenceMs: null, clippingRatio: 0, silenceRatio: 0, formatProblems: [decoded.message] });
      continue;
    }
    const analysis: SpeechAnalysis = {
      input,
      audioMs: decoded.pcm.length > 0 ? ((decoded.pcm.length / 2) * 1000) / decoded.sampleRate : 0,
      sampleRate: decoded.sampleRate,
      ...speechLevels(decoded.pcm, decoded.sampleRate),
      formatProblems: decoded.formatProblems,
      ...(audio.truncated ? { truncated: true as const } : {}),
    };
    analyses.push(analysis);
    if (plan?.kind === 'text' && decoded.pcm.length > 0) clips.push({ record, analysis, text: plan.text, pcm: decoded.pcm });
  }
  record.timeline.analysis = analyses;
  return clips;
}

/** The rate of headerless PCM, from the audio events' bytes and durations (a WAV header overrides it). */
function declaredRate(record: SessionRecord, input: number): number {
  const event = record.timeline.received.find((f) => f.input === input && f.kind === 'audio' && f.audioMs && f.audioBytes);
  return event ? Math.round(event.audioBytes! / 2 / (event.audioMs! / 1000)) : 24_000;
}

/** The normalizer intelligibility is scored with: the one English transcripts get by default. */
const INTELLIGIBILITY_NORMALIZER = normalizerFor('auto', undefined);

/** The round trip's transcription server, started once for every batch: `transcribe` scores a batch of clips. */
interface Transcriber {
  transcribe(clips: Clip[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The transcription server: `--asr-target`, or the run's own built-in server when it
 * serves the ASR model too (`builtIn`), or a built-in one started in this thread: the
 * check runs after the benchmark, when no stamp can wait on it, and a server thread of
 * its own cost the run's peak memory another 25 MB. Whatever fails in here is the check's
 * own failure, never the run's: a server that cannot start leaves every clip unchecked
 * with the reason.
 */
async function startTranscriber(quality: QualitySettings, builtIn?: ServerThread): Promise<Transcriber> {
  const { asr } = quality;
  const settingsFor = (clips: number) =>
    resolveSettings({
      protocol: asr.protocol,
      model: asr.model,
      ...(asr.target !== undefined ? { target: asr.target } : {}),
      ...(asr.apiKey !== undefined ? { apiKey: asr.apiKey } : {}),
      profile: { kind: 'concurrent', concurrency: ASR_CONCURRENCY },
      maxSessions: clips,
      pace: { kind: 'none' },
    });
  const model = settingsFor(1).model;
  const label = { target: asr.target !== undefined ? redactUrl(asr.target) : 'built-in', protocol: asr.protocol, model };
  // The simulator is loaded only here: a run that generates no speech, or checks it elsewhere, should not pay for loading it.
  const own =
    asr.target === undefined && !builtIn
      ? await import('../simulator/start.js').then(({ startServer }) => startServer({ port: 0, models: [model] })).catch((err: Error) => err)
      : undefined;
  if (own instanceof Error) return { transcribe: (clips) => Promise.resolve(unchecked(clips, label, own)), close: () => Promise.resolve() };
  const server = builtIn ?? own;
  return {
    transcribe: (clips) => roundTrip(clips, settingsFor(clips.length), label, asr.target ?? builtInWebSocketTarget(settingsFor(1), server!.url)),
    close: async () => {
      await own?.close();
    },
  };
}

/** Transcribes every clip on the transcription server at `target` and scores it against its text. */
async function roundTrip(clips: Clip[], settings: Settings, label: AsrLabel, target: string): Promise<void> {
  const samples: Sample[] = clips.map((clip, i) => ({
    id: `clip-${i}`,
    split: 'generated',
    path: `session ${clip.record.index}, input ${clip.analysis.input}`,
    text: clip.text,
    audio: { samples: fromPcm16(clip.pcm), sampleRate: clip.analysis.sampleRate },
  }));
  const dataset: Dataset = { root: '(generated speech)', kind: 'folder', samples, problems: [], filteredOut: 0, fingerprint: '' };
  let context: Awaited<ReturnType<typeof createRunContext>> | undefined;
  try {
    context = await createRunContext(settings, dataset);
    const { records } = await runLevel(context, settings, target, {
      profile: { kind: 'concurrent', concurrency: ASR_CONCURRENCY },
      maxSessions: samples.length,
      clock: monotonicClock(),
    });
    for (const record of records) {
      const clip = clips[record.index]!;
      const text = sessionView(record.timeline).inputs[0]?.transcript.text;
      const result: AsrResult =
        record.outcome.status === 'completed' && text !== undefined
          ? {
              ...label,
              normalizer: INTELLIGIBILITY_NORMALIZER,
              text,
              errors: transcriptErrors(clip.text, text, normalizerById(INTELLIGIBILITY_NORMALIZER)).words,
            }
          : {
              ...label,
              error:
                record.outcome.status === 'failed'
                  ? `${record.outcome.failure.class}: ${record.outcome.failure.message}`
                  : `the transcription ended ${record.outcome.status}`,
            };
      clip.analysis.asr = result;
    }
  } catch (err) {
    unchecked(clips, label, err as Error);
  } finally {
    context?.close();
  }
}

type AsrLabel = { target: string; protocol: string; model: string };

/** Every clip not yet transcribed records why the round trip could not run. */
function unchecked(clips: Clip[], label: AsrLabel, err: Error): void {
  for (const clip of clips) clip.analysis.asr ??= { ...label, error: `the round trip could not run: ${err.message}` };
}
