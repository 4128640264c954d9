import { readFileSync } from 'node:fs';
import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { RunOptions } from '../config/options.js';
import { parseShape } from '../load/traffic-shape.js';
import { UsageError } from '../util/errors.js';
import { durationSeconds, positiveInt, positiveNum, seconds } from './parse.js';

/** `run --replay` and how it plays the shape (docs/replay.md). `--seed` is the run's, shared with Poisson arrivals. */
export function addReplayFlags<C extends CommandUnknownOpts>(command: C): C {
  command
    .addOption(
      new Option(
        '--replay <shape.jsonl>',
        'replay recorded traffic (a shape from `voxbench replay extract`): its sessions at their recorded arrivals, chunk sizes, cadence and pauses, each input filled with --data audio (or prompts) of matching length, drawn with --seed (docs/replay.md)',
      ),
    )
    .addOption(
      new Option('--speed <x>', 'replay: arrivals compressed by this factor (2: twice the traffic); each session still streams in real time')
        .argParser(positiveNum)
        .default(1),
    )
    .addOption(new Option('--scale <n>', 'replay: sessions played per recorded one, spread over the gap to the next arrival').argParser(positiveInt).default(1))
    .addOption(
      new Option(
        '--window <[from+]length,...>',
        'replay: the parts of the recording played, a level each, e.g. 10m (its first ten minutes), 1h+10m, or 0+10m,10m+10m (two levels)',
      ).argParser(replayWindows),
    );
  return command;
}

/** The replay the flags ask for, read and checked; undefined without `--replay`. No other load flag goes with it. */
export function replayOptionsOf(
  command: CommandUnknownOpts,
  profile: string | undefined,
  loadFlags: ReadonlySet<string>,
): Pick<RunOptions, 'replay'> | undefined {
  const opts = command.opts() as { replay?: string; speed: number; scale: number; window?: Array<{ fromMs: number; toMs: number }>; seed: number };
  const file = opts.replay;
  if (file === undefined) {
    for (const flag of ['speed', 'scale', 'window'])
      if (command.getOptionValueSource(flag) === 'cli') throw new UsageError(`--${flag} plays a recorded shape: it needs --replay <shape.jsonl>`);
    return undefined;
  }
  const other = [...loadFlags].filter((flag) => flag !== 'seed');
  if (profile !== undefined || other.length > 0)
    throw new UsageError(
      `--replay is the load: leave out ${profile !== undefined ? '--profile' : other.map((f) => `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}`,
    );
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--replay ${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const shape = parseShape(text, file);
  return { replay: { file, ...shape, speed: opts.speed, scale: opts.scale, seed: opts.seed, ...(opts.window ? { windows: opts.window } : {}) } };
}

/** `10m` (from the start) or `1h+10m` (from an hour in), comma-separated, as ms on the recording's clock. */
function replayWindows(value: string): Array<{ fromMs: number; toMs: number }> {
  return value.split(',').map((window) => {
    const [first, second] = window.split('+');
    const fromMs = second === undefined ? 0 : durationSeconds(first!) * 1000;
    return { fromMs, toMs: fromMs + seconds(second ?? first!) * 1000 };
  });
}
