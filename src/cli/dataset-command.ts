import { Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { inspectDataset, renderInspection } from '../data/inspect.js';
import type { DatasetOptions } from '../data/load.js';
import { DEFAULT_WORD_GAP_MS, SYNTH_ENGINES, synthesizeDataset, type SynthEngine } from '../data/synth.js';
import { int, num } from './parse.js';

/** The dataset selection flags of `voxbench dataset inspect`, as commander parses them. */
export interface DatasetFlags {
  split?: string;
  dataLanguage?: string;
  minDuration?: number;
  maxDuration?: number;
  shuffle?: number;
  maxSamples?: number;
  audioColumn?: string;
  textColumn?: string;
  idColumn?: string;
  languageColumn?: string;
  strict?: boolean;
}

/** The library options for the flags of `addDatasetOptions`. */
export function datasetOptionsFromFlags(flags: DatasetFlags): DatasetOptions {
  const defined = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
  return defined({
    split: flags.split,
    language: flags.dataLanguage,
    minDurationS: flags.minDuration,
    maxDurationS: flags.maxDuration,
    seed: flags.shuffle,
    maxSamples: flags.maxSamples,
    strict: flags.strict,
    columns: defined({ audio: flags.audioColumn, text: flags.textColumn, id: flags.idColumn, language: flags.languageColumn }),
  });
}

const inspectCommand = new Command('inspect')
  .description('Read a dataset as a run would, then print its summary and every problem found.')
  .argument('<path>', 'a folder of audio files, a .jsonl manifest, Parquet shards (a file or folder) or a save_to_disk folder')
  .option('--split <name>', 'keep only this split (e.g. test)')
  .option('--data-language <code>', 'keep only samples labelled with this language (en matches en and en-US)')
  .option('--min-duration <s>', 'keep only samples at least this many seconds long', num)
  .option('--max-duration <s>', 'keep only samples at most this many seconds long', num)
  .option('--shuffle <seed>', 'shuffle the samples with this seed (the same seed gives the same order)', int)
  .option('--max-samples <n>', 'use at most this many samples (after shuffling)', positiveInt)
  .option('--audio-column <name>', 'Parquet/Arrow column or JSONL key holding the audio (default: the Audio feature, else audio)')
  .option('--text-column <name>', 'column or key holding the reference text (default: text, sentence, transcription, …)')
  .option('--id-column <name>', 'column or key holding the sample id (default: id)')
  .option('--language-column <name>', 'column or key holding the language (default: language, locale, lang)')
  .option('--strict', 'stop at the first problem instead of skipping the sample')
  .option('--json', 'print the summary and problems as JSON')
  .action(async (path, opts) => {
    const inspection = await inspectDataset(path, datasetOptionsFromFlags(opts));
    process.stdout.write(opts.json ? `${JSON.stringify(inspection, null, 2)}\n` : renderInspection(inspection));
  });

const synthCommand = new Command('synth')
  .description('Create a folder dataset from a text file, one utterance per line, with exact word timings (needs espeak-ng or flite).')
  .argument('<text-file>', 'text to speak, one utterance per line')
  .requiredOption('--out <dir>', 'folder to write NAME.wav, NAME.txt and NAME.words.json into')
  .addOption(new Option('--engine <name>', 'speech synthesizer (default: espeak-ng if installed, else flite)').choices(Object.keys(SYNTH_ENGINES) as SynthEngine[]))
  .option('--voice <name>', `the engine's voice (default: ${Object.entries(SYNTH_ENGINES).map(([e, s]) => `${s.defaultVoice} for ${e}`).join(', ')})`)
  .option('--word-gap-ms <ms>', 'silence between words', num, DEFAULT_WORD_GAP_MS)
  .action(async (textFile, opts) => {
    const result = await synthesizeDataset(textFile, {
      out: opts.out,
      wordGapMs: opts.wordGapMs,
      ...(opts.engine !== undefined ? { engine: opts.engine } : {}),
      ...(opts.voice !== undefined ? { voice: opts.voice } : {}),
    });
    process.stdout.write(`wrote ${result.ids.length} utterances to ${opts.out} (${result.engine}, voice ${result.voice})\n`);
  });

export const datasetCommand = new Command('dataset')
  .description('Inspect datasets and synthesize speech datasets.')
  .addCommand(inspectCommand)
  .addCommand(synthCommand)
  // The program configures its commands' error output and exit codes after they are
  // built; subcommands take the same settings from here when they run.
  .hook('preSubcommand', (dataset, subcommand) => void subcommand.copyInheritedSettings(dataset));

function positiveInt(value: string): number {
  const n = int(value);
  if (n < 1) throw new InvalidArgumentError('expected a whole number from 1 up.');
  return n;
}
