import { monotonicClock } from '../runtime/clock.js';
import { decodeReceivedAudio, speechLevels } from '../audio/received.js';
import { fromPcm16 } from '../audio/pcm.js';
import type { QualitySettings } from '../config/dialect-rules.js';
import { resolveSettings } from '../config/settings.js';
import type { Dataset, Sample } from '../data/dataset.js';
import { normalizerById, normalizerFor } from '../metrics/normalizers/index.js';
import { transcriptErrors } from '../metrics/wer.js';
import { redactUrl } from '../report/redact.js';
import { builtInWebSocketTarget, createRunContext, runLevel } from './run-context.js';
import { startServerThread, type ServerThread } from '../simulator/thread.js';
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
 * The after-run check of generated speech, once a benchmark's sessions have all ended
 * (never while sessions stream): each kept response's audio is decoded, its levels and
 * format checked, and it is sent to a transcription server (the built-in one unless
 * `--asr-target` names one) whose transcript is scored against the text that was
 * spoken. The results go on each session's timeline as `analysis`, where the catalog's
 * speech-quality metrics read them.
 */
export async function analyseSpeech(
  records: readonly SessionRecord[],
  audioOf: (record: SessionRecord) => ReceivedAudio | undefined,
  quality: QualitySettings,
  builtIn?: ServerThread,
): Promise<void> {
  const clips: Clip[] = [];
  for (const record of records) {
    const audio = audioOf(record);
    if (!audio) continue;
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
  }
  if (clips.length > 0) await roundTrip(clips, quality, builtIn);
}

/** The rate of headerless PCM, from the audio events' bytes and durations (a WAV header overrides it). */
function declaredRate(record: SessionRecord, input: number): number {
  const event = record.timeline.received.find((f) => f.input === input && f.kind === 'audio' && f.audioMs && f.audioBytes);
  return event ? Math.round(event.audioBytes! / 2 / (event.audioMs! / 1000)) : 24_000;
}

/** The normalizer intelligibility is scored with: the one English transcripts get by default. */
const INTELLIGIBILITY_NORMALIZER = normalizerFor('auto', undefined);

/** Transcribes every clip on the transcription server (the run's built-in one if given, serving the ASR model) and scores it against its text. */
async function roundTrip(clips: Clip[], quality: QualitySettings, builtIn?: ServerThread): Promise<void> {
  const { asr } = quality;
  const samples: Sample[] = clips.map((clip, i) => ({
    id: `clip-${i}`,
    split: 'generated',
    path: `session ${clip.record.index}, input ${clip.analysis.input}`,
    text: clip.text,
    audio: { samples: fromPcm16(clip.pcm), sampleRate: clip.analysis.sampleRate },
  }));
  const dataset: Dataset = { root: '(generated speech)', kind: 'folder', samples, problems: [], filteredOut: 0, fingerprint: '' };
  const settings = resolveSettings({
    protocol: asr.protocol,
    model: asr.model,
    ...(asr.target !== undefined ? { target: asr.target } : {}),
    ...(asr.apiKey !== undefined ? { apiKey: asr.apiKey } : {}),
    profile: { kind: 'concurrent', concurrency: ASR_CONCURRENCY },
    maxSessions: samples.length,
    pace: { kind: 'none' },
  });
  const label = { target: asr.target !== undefined ? redactUrl(asr.target) : 'built-in', protocol: asr.protocol, model: settings.model };
  // Whatever fails in here is the check's own failure, never the run's: an error left
  // to escape would skip closing the server thread, whose handle keeps the process alive.
  const own = asr.target === undefined && !builtIn ? await startServerThread({ port: 0, models: [settings.model] }).catch((err: Error) => err) : undefined;
  if (own instanceof Error) return unchecked(clips, label, own);
  const server = builtIn ?? own;
  let context: Awaited<ReturnType<typeof createRunContext>> | undefined;
  try {
    context = await createRunContext(settings, dataset);
    const { records } = await runLevel(context, settings, asr.target ?? builtInWebSocketTarget(settings, server!.url), {
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
    await own?.close();
  }
}

/** Every clip not yet transcribed records why the round trip could not run. */
function unchecked(clips: Clip[], label: { target: string; protocol: string; model: string }, err: Error): void {
  for (const clip of clips) clip.analysis.asr ??= { ...label, error: `the round trip could not run: ${err.message}` };
}
