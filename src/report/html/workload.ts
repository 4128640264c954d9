import { isSpeechTask, type Task } from '../../timeline/types.js';
import { plural } from '../../util/plural.js';
import type { Benchmark, Report } from '../schema.js';
import { formatNumber, formatPlain, formatSeconds } from './format.js';

/**
 * The run's workload in the words of its task: recordings and turns for transcription,
 * turns answered by responses for speech to speech, uploads for batch transcription,
 * texts, characters, voices and the audio produced for speech generation. Settings that
 * do not apply to a task (chunk size and pace for one upload, turn detection for a text)
 * are never written.
 */

/** The Protocol fact: the dialect, and who ends turns where the task has turns. */
export function protocolFact(report: Report): string {
  const { config } = report;
  switch (config.task) {
    case 'stt':
    case 's2s':
      return `${config.protocol} · turn detection: ${config.turnDetection.type === 'none' ? 'client commits each turn' : `server (${config.turnDetection.type})`}`;
    case 'batch_stt':
      return `${config.protocol} · one request per recording`;
    case 'tts':
      return `${config.protocol} · one text per turn, audio streamed back`;
    case 'batch_tts':
      return `${config.protocol} · one request per text, the audio in one body`;
  }
}

/** The Workload fact: what was sent, how much, and how. */
export function workloadFact(report: Report): string {
  const { config, dataset } = report;
  if (isSpeechTask(config.task)) {
    const chars = charactersSent(report);
    const produced = audioProducedS(report);
    const text = config.speech?.text.kind === 'stream' ? `text streamed at ${formatPlain(config.speech.text.tokensPerS)} tokens/s` : 'each text sent whole';
    return [
      `${config.data}: ${plural(dataset.count, 'text')}${chars > 0 ? `, ${formatNumber(chars, 0)} characters sent` : ''}`,
      `voice ${config.speech?.voice ?? "the server's default"}`,
      config.task === 'tts' ? `${text} · ${turnsPerSession(report)}` : 'one request per session',
      produced > 0 ? `${formatSeconds(produced)} of audio produced` : 'no audio produced',
    ].join(' · ');
  }
  const recordings = `${config.data}: ${plural(dataset.count, 'recording')}${dataset.totalAudioS > 0 ? `, ${formatSeconds(dataset.totalAudioS)} of audio` : ''}`;
  if (config.task === 'batch_stt') {
    const upload = config.transcription?.upload;
    const how = upload === undefined || upload === 'dataset' ? 'each file uploaded as the dataset holds it' : `each recording uploaded as ${upload}`;
    return `${recordings} · ${how}${config.transcription?.stream ? ' · answers streamed' : ''}`;
  }
  const turns = config.task === 's2s' ? `${turnsPerSession(report)}, each answered by a response` : turnsPerSession(report);
  return `${recordings} · ${turns} · ${config.chunkMs} ms chunks · pace ${config.pace}`;
}

function turnsPerSession(report: Report): string {
  return `${plural(report.config.turnsPerSession, 'turn')} per session`;
}

/** Characters of every text the sessions sent, each time it was sent. */
function charactersSent(report: Report): number {
  let chars = 0;
  for (const b of report.benchmarks) for (const s of b.sessions) chars += s.facts.textChars;
  return chars;
}

/** Audio generated over every level's measured completed sessions. */
function audioProducedS(report: Report): number {
  return report.benchmarks.reduce((sum, b) => sum + b.summary.throughput.audioS, 0);
}

/** What one scored input is called: a turn, an uploaded recording, a text whose speech was checked. */
export function inputNoun(task: Task): string {
  return task === 'batch_stt' ? 'recording' : isSpeechTask(task) ? 'checked text' : 'turn';
}

/** What the throughput figure counts: audio sent in (transcription, speech to speech), or audio generated. */
export function throughputLabel(report: Report): string {
  return isSpeechTask(report.config.task) ? 'audio produced' : 'throughput';
}

/** One level's throughput and inputs in words, for the figures section. */
export function levelWorkload(report: Report, b: Benchmark): string {
  const { turns, throughput } = b.summary;
  const wall = `${formatNumber(throughput.sessionsPerS, 2)} sessions/s over ${formatSeconds(throughput.wallS)} of wall time`;
  const audio = throughput.audioS > 0 ? `${formatNumber(throughput.audioSPerWallS, 2)} audio s/s${isSpeechTask(report.config.task) ? ' produced' : ''}, ` : '';
  const total = throughput.audioS > 0 ? ` (${formatSeconds(throughput.audioS)} of audio${isSpeechTask(report.config.task) ? ' produced' : ''})` : '';
  const head = `Throughput: ${audio}${wall}${total}`;
  switch (report.config.task) {
    case 'tts':
    case 'batch_tts':
      return `${head}. Texts: ${turns.planned} sent.`;
    case 'batch_stt':
      return `${head}. Uploads: ${turns.planned} sent, ${turns.finalized} answered with a transcript.`;
    case 's2s':
      return `${head}. Turns: ${turns.planned} planned, ${turns.finalized} with a transcript of the user's speech; boundaries from ${turns.boundaries}${eosSources(b)}.`;
    case 'stt':
      return `${head}. Turns: ${turns.planned} planned, ${turns.finalized} with a final transcript; boundaries from ${turns.boundaries}${eosSources(b)}.`;
  }
}

function eosSources(b: Benchmark): string {
  const sources = Object.entries(b.summary.turns.eosSources).map(([source, n]) => `${source} ×${n}`);
  return sources.length > 0 ? `; end of speech from ${sources.join(', ')}` : '';
}
