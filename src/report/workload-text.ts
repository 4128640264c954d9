import { isSpeechTask } from '../timeline/types.js';
import { plural } from '../util/plural.js';
import { fixed } from './fixed.js';
import { levelsByTask } from './picks.js';
import type { Report } from './schema.js';

/**
 * What a run sent, in the words of its task, for the text outputs' header: samples,
 * seconds of audio, chunks, pace and turns for streamed audio; uploads for batch
 * transcription; texts, the voice and how the text went for speech generation. A
 * setting that did not shape the run (chunk size for an upload, turns for a text) is
 * not named. A merge of runs of different tasks names its runs instead, and traffic a
 * proxy observed only what it was.
 */
export function workloadText(report: Report): string {
  const { config, dataset } = report;
  const tasks = [...levelsByTask(report).keys()];
  // Traffic a proxy metered: no dataset, chunking or pacing of voxbench's own shaped it.
  if (report.observed)
    return `data ${config.data}${tasks.length > 1 ? ` of several tasks (${tasks.join(', ')}), each level named by its task` : ''} · pace ${config.pace}`;
  if (tasks.length > 1)
    return `merged from runs of different tasks (${tasks.join(', ')}): ${(report.mergedFrom ?? []).join(', ')}; each level is named by its run and task`;
  const skipped = dataset.skipped ? `, ${dataset.skipped} skipped` : '';
  if (isSpeechTask(config.task)) {
    const speech = config.speech;
    const voice = `voice ${speech?.voice ?? "the server's default"}`;
    const text = speech?.text.kind === 'stream' ? `text streamed at ${speech.text.tokensPerS} tokens/s, pace ${config.pace}` : 'text sent whole';
    return `data ${config.data} (${plural(dataset.count, 'text')}${skipped}) · ${voice} · ${text}`;
  }
  const data = `data ${config.data} (${plural(dataset.count, 'sample')}, ${fixed(dataset.totalAudioS, 1)} s of audio${skipped})`;
  if (config.transcription) {
    const { upload, stream, responseFormat } = config.transcription;
    return `${data} · uploaded as ${upload === 'dataset' ? "the dataset's files" : upload} · ${stream ? 'streamed' : responseFormat} answers`;
  }
  const detection = config.turnDetection.type === 'none' ? 'the client commits each turn' : `turn detection ${config.turnDetection.type}`;
  // A replay sends each session's inputs as recorded: its chunks, cadence and turns are the recording's.
  if (config.replay) return `${data} · chunks, pace and turns as recorded · ${detection}`;
  return `${data} · chunk ${config.chunkMs} ms · pace ${config.pace} · ${plural(config.turnsPerSession, 'turn')} per session · ${detection}`;
}
