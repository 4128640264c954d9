import { Command, Option } from '@commander-js/extra-typings';
import { inspectDataset, renderInspection, UnusableDatasetError, type DatasetInspection } from '../data/inspect.js';
import { DEFAULT_PAUSE_MS, DEFAULT_WORD_GAP_MS, SYNTH_ENGINES, synthesizeConversation, synthesizeDataset, type SynthEngine } from '../data/synth.js';
import { addDatasetFlags, datasetOptionsFromFlags, type DatasetFlags } from './dataset-flags.js';
import { checkWritableDir } from './output-dir.js';
import { milliseconds, positiveInt } from './parse.js';
import { UsageError } from '../util/errors.js';
import { plural } from '../util/plural.js';

const inspectCommand = new Command('inspect')
  .description('Read a dataset as a run would, then print its summary and every problem found.')
  .argument('<path>', 'a folder of audio files, a .jsonl manifest, Parquet shards (a file or folder), a save_to_disk folder or a Hub dataset hf:<owner>/<name>')
  .option('--json', 'print the summary and problems as JSON')
  .action(async (path, opts) => {
    const print = (inspection: DatasetInspection): boolean =>
      process.stdout.write(opts.json ? `${JSON.stringify(inspection, null, 2)}\n` : renderInspection(inspection));
    try {
      print(await inspectDataset(path, datasetOptionsFromFlags(inspectCommand.opts() as DatasetFlags)));
    } catch (err) {
      // Refused as a run refuses it, but with every problem listed, not only the first.
      if (err instanceof UnusableDatasetError) print(err.inspection);
      throw err;
    }
  });
addDatasetFlags(inspectCommand);

const synthCommand = new Command('synth')
  .description(
    'Create a folder dataset from a text file, one utterance per line, with exact word timings; with --speakers 2 or more, one conversation whose lines the speakers take in turn, with its RTTM (needs espeak-ng or flite).',
  )
  .argument('<text-file>', 'text to speak, one utterance (or conversation turn) per line')
  .requiredOption(
    '--out <dir>',
    "folder to write NAME-LINE.wav, NAME-LINE.txt and NAME-LINE.words.json into (NAME: the text file's name, LINE: the line number); a conversation: NAME.wav, .txt, .words.json and .rttm",
  )
  .addOption(
    new Option('--engine <name>', 'speech synthesizer (default: espeak-ng if installed, else flite)').choices(Object.keys(SYNTH_ENGINES) as SynthEngine[]),
  )
  .option(
    '--voice <name>',
    `the engine's voice; for a conversation, one per speaker, comma-separated (default: ${Object.entries(SYNTH_ENGINES)
      .map(([e, s]) => `${s.defaultVoice} for ${e}, a conversation ${s.conversationVoices.join(',')}`)
      .join('; ')})`,
  )
  .option('--word-gap-ms <ms>', 'silence between words', milliseconds, DEFAULT_WORD_GAP_MS)
  .option('--speakers <n>', 'speakers in one conversation, taking the lines in turn (1: separate utterances)', positiveInt, 1)
  .option('--overlap-ms <ms>', 'a conversation: how far every other turn (the 2nd, 4th, …) starts before the turn it answers ends', milliseconds)
  .option('--pause-ms <ms>', `a conversation: silence before the other turns (all of them without --overlap-ms) (default: ${DEFAULT_PAUSE_MS})`, milliseconds)
  .action(async (textFile, opts) => {
    await checkWritableDir(opts.out, '--out');
    if (opts.speakers >= 2) {
      const result = await synthesizeConversation(textFile, {
        out: opts.out,
        speakers: opts.speakers,
        wordGapMs: opts.wordGapMs,
        ...(opts.engine !== undefined ? { engine: opts.engine } : {}),
        ...(opts.voice !== undefined ? { voices: opts.voice.split(',').map((v) => v.trim()) } : {}),
        ...(opts.overlapMs !== undefined ? { overlapMs: opts.overlapMs } : {}),
        ...(opts.pauseMs !== undefined ? { pauseMs: opts.pauseMs } : {}),
      });
      const voices = result.speakers.map((s) => `${s.label} ${s.voice}`).join(', ');
      process.stdout.write(`wrote ${result.id} (${plural(result.turns.length, 'turn')}) to ${opts.out} (${result.engine}: ${voices})\n`);
      return;
    }
    for (const flag of ['overlapMs', 'pauseMs'] as const) {
      if (opts[flag] !== undefined)
        throw new UsageError(`--${flag === 'overlapMs' ? 'overlap' : 'pause'}-ms applies to a conversation: add --speakers 2 or more`);
    }
    const result = await synthesizeDataset(textFile, {
      out: opts.out,
      wordGapMs: opts.wordGapMs,
      ...(opts.engine !== undefined ? { engine: opts.engine } : {}),
      ...(opts.voice !== undefined ? { voice: opts.voice } : {}),
    });
    process.stdout.write(`wrote ${plural(result.ids.length, 'utterance')} to ${opts.out} (${result.engine}, voice ${result.voice})\n`);
  });

export const datasetCommand = new Command('dataset')
  .description('Inspect datasets and synthesize speech datasets.')
  .addCommand(inspectCommand)
  .addCommand(synthCommand)
  // The program configures its commands' error output and exit codes after they are
  // built; subcommands take the same settings from here when they run.
  .hook('preSubcommand', (dataset, subcommand) => void subcommand.copyInheritedSettings(dataset));
