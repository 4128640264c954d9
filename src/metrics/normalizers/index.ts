import { voxbenchBasic } from './voxbench-basic.js';
import { whisperBasic } from './whisper-basic.js';
import { whisperEnglish } from './whisper-english.js';

/**
 * Transcript normalizers, each named and versioned: WER and CER only compare between
 * figures that name the same one, so a report records the normalizer of every input it
 * scored (`AudioInput.normalizer`) and lists them in its summary. A change in what a
 * normalizer does is a new version (a new id), never an edit of an old one.
 */
export interface Normalizer {
  /** What reports record and `--normalizer` accepts: `name-version`. */
  id: string;
  /** The family, which `--normalizer` also accepts for its current version. */
  name: string;
  version: number;
  description: string;
  /** The normalized words. */
  normalize(text: string): string[];
}

const NORMALIZERS: readonly Normalizer[] = [
  {
    id: 'whisper-english-1',
    name: 'whisper-english',
    version: 1,
    normalize: whisperEnglish,
    description:
      "Whisper's EnglishTextNormalizer (openai/whisper 20250625), as the Open ASR Leaderboard uses it: fillers and bracketed text removed, contractions spelled out, numbers to digits, British to American spelling",
  },
  {
    id: 'whisper-basic-1',
    name: 'whisper-basic',
    version: 1,
    normalize: whisperBasic,
    description:
      "Whisper's BasicTextNormalizer (openai/whisper 20250625), for other languages: lowercase, bracketed text removed, symbols and punctuation to spaces, diacritics kept",
  },
  {
    id: 'voxbench-basic-2',
    name: 'voxbench-basic',
    version: 2,
    normalize: voxbenchBasic,
    description: "voxbench's own: lowercase, everything but letters, digits and in-word apostrophes to spaces; no number or spelling rules",
  },
];

/** The normalizer of inputs scored before reports recorded one. */
export const LEGACY_NORMALIZER = 'voxbench-basic-2';

/** `--normalizer`: one normalizer for every input, or `auto`: whisper-english for English or unlabelled inputs, whisper-basic for other languages. */
export type NormalizerChoice = string;

/** What `--normalizer` accepts besides auto, for help texts and errors. */
export const NORMALIZER_NAMES = NORMALIZERS.map((n) => `${n.name} (${n.id})`).join(', ');

/** `auto`, or the id of the normalizer named by its name or id; undefined for anything else. */
export function normalizerChoice(text: string): NormalizerChoice | undefined {
  return text === 'auto' ? 'auto' : findNormalizer(text)?.id;
}

/** The normalizer with this id, or the current version of this name; undefined for neither. */
export function findNormalizer(idOrName: string): Normalizer | undefined {
  return NORMALIZERS.find((n) => n.id === idOrName) ?? NORMALIZERS.filter((n) => n.name === idOrName).sort((a, b) => b.version - a.version)[0];
}

/** The normalizer by its recorded id (an input's), the legacy one when none was recorded. */
export function normalizerById(id: string | undefined): Normalizer {
  const found = NORMALIZERS.find((n) => n.id === (id ?? LEGACY_NORMALIZER));
  if (!found) throw new Error(`unknown normalizer ${id}; this voxbench knows ${NORMALIZERS.map((n) => n.id).join(', ')}`);
  return found;
}

/** An English language label: `en`, `en-US`, `en_gb`, `eng`, `English`. */
export function isEnglish(language: string): boolean {
  return /^(en|eng|english)([-_].*)?$/i.test(language.trim());
}

/** The id an input of `language` (unset: unlabelled) is scored with under `choice`. */
export function normalizerFor(choice: NormalizerChoice, language: string | undefined): string {
  if (choice !== 'auto') return findNormalizer(choice)!.id;
  return language === undefined || isEnglish(language) ? 'whisper-english-1' : 'whisper-basic-1';
}
