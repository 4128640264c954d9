import { UsageError } from '../util/errors.js';
import { FAULT_CATALOGUE, FaultError, parseFaultScenario, type FaultScenario } from '../server/faults/faults.js';
import { helpText } from './help.js';

/** Parses the `--fault` values, each one scenario; a bad one is a usage error that says why. */
export function parseFaults(values: readonly string[]): FaultScenario[] {
  return values.map((value) => {
    try {
      return parseFaultScenario(value);
    } catch (err) {
      if (err instanceof FaultError) throw new UsageError(`--fault ${value}: ${err.message}`);
      throw err;
    }
  });
}

/** The fault catalogue for `serve --help`. */
export const FAULT_HELP = helpText(
  '',
  'Faults (--fault NAME[:ARG][@POINT]). POINT is open (before session.created), streaming (the first append; the default, but for silent) or final (the first final commit):',
  Object.values(FAULT_CATALOGUE).map((f) => [f.usage, f.help] as const),
  'Aliases: close=CODE is close:CODE, upgrade-status=STATUS is upgrade:STATUS.',
);
