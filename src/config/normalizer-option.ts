import { NORMALIZER_NAMES, normalizerChoice, type NormalizerChoice } from '../metrics/normalizers/index.js';
import { option, optionsError } from './errors.js';

/**
 * The `normalizer` option: auto, or a normalizer's name or id (its id is what reports
 * record). A module of its own so that `report render`, which reads it, does not load
 * the run's settings and with them every dialect (issue 38: a render's start).
 */
export function normalizerOption(text: string | undefined): NormalizerChoice {
  const choice = normalizerChoice(text ?? 'auto');
  if (choice === undefined) throw optionsError`${option('normalizer')} ${text} is not a normalizer; choose auto or one of: ${NORMALIZER_NAMES}`;
  return choice;
}
