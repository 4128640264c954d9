import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { DEFAULT_COLD_GAP_MS } from '../metrics/cold-start.js';
import type { MeasurementWindow } from '../metrics/window.js';
import { durationSeconds } from './parse.js';

/**
 * `--cold-gap-s`: the idle time after which a session starts cold (metrics/cold-start.ts).
 * `report render` takes it `rescoring`: without it a report keeps the gap it was scored with.
 */
export function addColdGapFlag<C extends CommandUnknownOpts>(command: C, { rescoring = false } = {}): C {
  const option = new Option(
    '--cold-gap-s <s>',
    'a completed session that starts after the target had no completed session open for longer than this starts cold, as does the first completed: failed sessions never make the target warm; cold sessions stay in the figures and are reported apart from warm ones too' +
      (rescoring ? ` (default: the report's own, ${DEFAULT_COLD_GAP_MS / 1000} in reports that do not say)` : ''),
  ).argParser(durationSeconds);
  command.addOption(rescoring ? option : option.default(DEFAULT_COLD_GAP_MS / 1000));
  return command;
}

/**
 * The gap as the measurement window takes it, ms; nothing when the default, which the
 * report reads as such, so a run resumed by the library or the CLI compares the same.
 */
export function coldGapOf(command: CommandUnknownOpts): Pick<MeasurementWindow, 'coldGapMs'> {
  const { coldGapS } = command.opts() as { coldGapS?: number };
  return coldGapS === undefined || command.getOptionValueSource('coldGapS') === 'default' ? {} : { coldGapMs: coldGapS * 1000 };
}
