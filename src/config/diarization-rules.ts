import { DEFAULT_RULES, RULE_CHOICES, type DiarizationRules } from '../metrics/diarization/rules.js';
import { option, optionsError } from './errors.js';

/** The diarization rules as options give them (`--der-*`, `--jer-mapping`): each unset rule keeps pyannote.metrics' default. */
export interface DiarizationOptions {
  /** The collar, ms: the no-score zone's whole width (`collarPer: 'total'`, pyannote.metrics) or its reach on each side (`'side'`, md-eval and dscore). */
  collarMs?: number;
  collarPer?: string;
  /** `scored` or `skipped`: time where two or more reference speakers talk. */
  overlap?: string;
  /** Without a UEM: `extents` (reference and hypothesis) or `reference-extent`. */
  region?: string;
  /** Where DER pairs speakers: `scored-time` (pyannote.metrics) or `whole-region` (md-eval). */
  mapping?: string;
  /** How JER pairs speakers: `overlap` (pyannote.metrics) or `jaccard` (dscore). */
  jerMapping?: string;
}

type Choices = typeof RULE_CHOICES;

function choice<K extends keyof Choices>(key: K, value: string | undefined, fallback: Choices[K][number]): Choices[K][number] {
  if (value === undefined) return fallback;
  const known = RULE_CHOICES[key] as readonly string[];
  if (!known.includes(value)) throw optionsError`${option(`diarization.${key}`)} must be ${known.join(' or ')}, got "${value}"`;
  return value as Choices[K][number];
}

/** The rules speaker attribution is scored by, checked: a one-line error names the option and its choices. Unset rules keep `base`'s. */
export function diarizationRulesOption(options: DiarizationOptions = {}, base: DiarizationRules = DEFAULT_RULES): DiarizationRules {
  const { collarMs = base.collar.ms } = options;
  if (!Number.isFinite(collarMs) || collarMs < 0) throw optionsError`${option('diarization.collarMs')} must be a number of ms, 0 or more, got ${collarMs}`;
  return {
    collar: { ms: collarMs, per: choice('collarPer', options.collarPer, base.collar.per) },
    overlap: choice('overlap', options.overlap, base.overlap),
    region: choice('region', options.region, base.region),
    mapping: choice('mapping', options.mapping, base.mapping),
    jerMapping: choice('jerMapping', options.jerMapping, base.jerMapping),
  };
}
