import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { DiarizationOptions } from '../config/diarization-rules.js';
import { milliseconds } from './parse.js';

/**
 * The rules speaker attribution is scored by (docs/diarization.md): each names its
 * semantics, because pyannote.metrics and md-eval/dscore mean different things by a
 * collar. Unset rules keep pyannote.metrics' defaults; settings check the values.
 */
export function addDiarizationFlags<C extends CommandUnknownOpts>(command: C): C {
  const flags = [
    new Option(
      '--der-collar-ms <ms>',
      'diarization: no-score collar around each reference speaker boundary, ms, as --der-collar-per means it (default 0)',
    ).argParser(milliseconds),
    new Option(
      '--der-collar-per <total|side>',
      "diarization: the collar is the zone's whole width (total, as pyannote.metrics' collar=) or its reach on each side (side, as md-eval/dscore --collar) (default total)",
    ),
    new Option(
      '--der-overlap <scored|skipped>',
      'diarization: score time where reference speakers overlap, or leave it out (pyannote.metrics skip_overlap, dscore --ignore_overlaps) (default scored)',
    ),
    new Option(
      '--der-region <extents|reference-extent>',
      "diarization: scored time without a UEM: the reference and hypothesis extents, or the reference's (default extents)",
    ),
    new Option(
      '--der-mapping <scored-time|whole-region>',
      'diarization: DER pairs speakers within the scored time (pyannote.metrics) or the whole region before collars and overlap are taken out (md-eval) (default scored-time)',
    ),
    new Option(
      '--jer-mapping <overlap|jaccard>',
      'diarization: JER pairs speakers for the most time together (pyannote.metrics) or the highest Jaccard index (dscore) (default overlap)',
    ),
  ];
  for (const flag of flags) command.addOption(flag);
  return command;
}

/** The flags of `addDiarizationFlags`, as commander parses them. */
export interface DiarizationFlags {
  derCollarMs?: number;
  derCollarPer?: string;
  derOverlap?: string;
  derRegion?: string;
  derMapping?: string;
  jerMapping?: string;
}

export function diarizationOptionsFromFlags(flags: DiarizationFlags): DiarizationOptions {
  const { derCollarMs: collarMs, derCollarPer: collarPer, derOverlap: overlap, derRegion: region, derMapping: mapping, jerMapping } = flags;
  const given = { collarMs, collarPer, overlap, region, mapping, jerMapping };
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
}
