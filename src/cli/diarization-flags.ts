import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { DiarizationOptions } from '../config/diarization-rules.js';
import { DEFAULT_RULES, RULE_CHOICES } from '../metrics/diarization/rules.js';
import { milliseconds } from './parse.js';

type Choice = keyof typeof RULE_CHOICES;

/**
 * The rules speaker attribution is scored by (docs/diarization.md), one flag each: what
 * it means, with its values and default read from the rules themselves, so a flag never
 * restates them. Each names its semantics, because pyannote.metrics and md-eval/dscore
 * mean different things by a collar. Unset rules keep pyannote.metrics' defaults;
 * settings check the values.
 */
const RULE_FLAGS: ReadonlyArray<{ key: keyof DiarizationOptions; flag: string; help: string }> = [
  { key: 'collarMs', flag: '--der-collar-ms', help: 'no-score collar around each reference speaker boundary, ms, as --der-collar-per means it' },
  {
    key: 'collarPer',
    flag: '--der-collar-per',
    help: "the collar is the zone's whole width (total, as pyannote.metrics' collar=) or its reach on each side (side, as md-eval/dscore --collar)",
  },
  {
    key: 'overlap',
    flag: '--der-overlap',
    help: 'score time where reference speakers overlap, or leave it out (pyannote.metrics skip_overlap, dscore --ignore_overlaps)',
  },
  { key: 'region', flag: '--der-region', help: "scored time without a UEM: the reference and hypothesis extents, or the reference's" },
  {
    key: 'mapping',
    flag: '--der-mapping',
    help: 'DER pairs speakers within the scored time (pyannote.metrics) or the whole region before collars and overlap are taken out (md-eval)',
  },
  { key: 'jerMapping', flag: '--jer-mapping', help: 'JER pairs speakers for the most time together (pyannote.metrics) or the highest Jaccard index (dscore)' },
];

/** Each rule's default, as `DEFAULT_RULES` holds it. */
const DEFAULTS: Record<keyof DiarizationOptions, string | number> = {
  collarMs: DEFAULT_RULES.collar.ms,
  collarPer: DEFAULT_RULES.collar.per,
  overlap: DEFAULT_RULES.overlap,
  region: DEFAULT_RULES.region,
  mapping: DEFAULT_RULES.mapping,
  jerMapping: DEFAULT_RULES.jerMapping,
};

const optionOf = ({ key, flag, help }: (typeof RULE_FLAGS)[number]): Option => {
  const values = key in RULE_CHOICES ? RULE_CHOICES[key as Choice].join('|') : 'ms';
  const option = new Option(`${flag} <${values}>`, `diarization: ${help} (default ${DEFAULTS[key]})`);
  return key === 'collarMs' ? option.argParser(milliseconds) : option;
};

/** The flag of each rule option, as an options error names it (`diarization.<key>`). */
export const DIARIZATION_FLAGS: Readonly<Record<string, string>> = Object.fromEntries(RULE_FLAGS.map(({ key, flag }) => [`diarization.${key}`, flag]));

export function addDiarizationFlags<C extends CommandUnknownOpts>(command: C): C {
  for (const flag of RULE_FLAGS) command.addOption(optionOf(flag));
  return command;
}

/** The rules a command's parsed flags give; rules not given are left out. */
export function diarizationOptionsFromFlags(flags: Readonly<Record<string, unknown>>): DiarizationOptions {
  const given = RULE_FLAGS.flatMap(({ key, flag }) => {
    const value = flags[new Option(flag).attributeName()];
    return value === undefined ? [] : [[key, value] as const];
  });
  return Object.fromEntries(given);
}
