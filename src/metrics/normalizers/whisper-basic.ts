import { removeBracketed, removeSymbols, words } from './symbols.js';

/**
 * Whisper's `BasicTextNormalizer()` with its defaults, the normalizer Whisper and the
 * Open ASR Leaderboard use for languages other than English: lowercase, text in
 * brackets and parentheses removed, every mark, symbol and punctuation character a
 * space (after NFKC; diacritics are kept), whitespace collapsed.
 */
export function whisperBasic(text: string): string[] {
  return words(removeSymbols(removeBracketed(text.toLowerCase())).toLowerCase());
}
