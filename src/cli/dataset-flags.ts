import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { DatasetOptions } from '../data/load.js';
import { durationSeconds, int, positiveInt } from './parse.js';

/** The dataset selection flags, shared by `run`, `serve` and `dataset inspect` so every command reads a dataset alike. */
export function addDatasetFlags<C extends CommandUnknownOpts>(command: C): C {
  const flags = [
    new Option('--split <name>', 'keep only this split (e.g. test); of a Hub dataset with several, the one to read'),
    new Option('--hf-config <name>', 'a Hub dataset (--data hf:<id>): its config (default: its only one, or its default)'),
    new Option('--revision <rev>', 'a Hub dataset: the branch, tag or commit to read (default: main)'),
    new Option('--data-language <code>', 'keep only samples labelled with this language (en matches en and en-US)'),
    new Option('--min-sample-duration <s>', 'keep only samples at least this many seconds long').argParser(durationSeconds),
    new Option('--max-sample-duration <s>', 'keep only samples at most this many seconds long (a sample filter, not a run limit: see --max-seconds)').argParser(
      durationSeconds,
    ),
    // The earlier names, still accepted but no longer listed: --max-duration read like a run limit.
    new Option('--min-duration <s>').argParser(durationSeconds).hideHelp(),
    new Option('--max-duration <s>').argParser(durationSeconds).hideHelp(),
    new Option('--shuffle <seed>', 'shuffle the samples with this seed (the same seed gives the same order)').argParser(int),
    new Option('--max-samples <n>', 'use at most this many samples (after shuffling)').argParser(positiveInt),
    new Option('--audio-column <name>', 'Parquet/Arrow column or JSONL key holding the audio (default: the Audio feature, else audio, question_audio, …)'),
    new Option('--text-column <name>', 'column or key holding the reference text (default: text, sentence, transcription, …)'),
    new Option('--id-column <name>', 'column or key holding the sample id (default: id, sample_id, uid, name)'),
    new Option('--language-column <name>', 'column or key holding the language (default: language, locale, lang)'),
    new Option(
      '--rttm <file>',
      "reference speaker turns for the whole dataset: an RTTM file whose file ids are the sample ids (a sample's own turns come first)",
    ),
    new Option('--strict', 'stop at the first problem instead of skipping the sample'),
  ];
  for (const flag of flags) command.addOption(flag);
  return command;
}

/** The dataset selection flags, as commander parses them. */
export interface DatasetFlags {
  split?: string;
  hfConfig?: string;
  revision?: string;
  dataLanguage?: string;
  minSampleDuration?: number;
  maxSampleDuration?: number;
  minDuration?: number;
  maxDuration?: number;
  shuffle?: number;
  maxSamples?: number;
  audioColumn?: string;
  textColumn?: string;
  idColumn?: string;
  languageColumn?: string;
  rttm?: string;
  strict?: boolean;
}

/** The library's dataset options for the flags of `addDatasetFlags`. */
export function datasetOptionsFromFlags(flags: DatasetFlags): DatasetOptions {
  const defined = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
  return defined({
    split: flags.split,
    language: flags.dataLanguage,
    minDurationS: flags.minSampleDuration ?? flags.minDuration,
    maxDurationS: flags.maxSampleDuration ?? flags.maxDuration,
    seed: flags.shuffle,
    maxSamples: flags.maxSamples,
    rttm: flags.rttm,
    strict: flags.strict,
    columns: defined({ audio: flags.audioColumn, text: flags.textColumn, id: flags.idColumn, language: flags.languageColumn }),
    ...(flags.hfConfig !== undefined || flags.revision !== undefined ? { hub: defined({ config: flags.hfConfig, revision: flags.revision }) } : {}),
  });
}
