/**
 * Whisper's character classes (openai/whisper `whisper/normalizers/basic.py`), shared by
 * its basic and English normalizers, and Python's Unicode word boundary, which
 * JavaScript's `\b` (ASCII only) is not.
 */

/** Python's `\w` for text: letters, numbers and the underscore. */
const WORD_CHAR = '[\\p{L}\\p{N}_]';
/** Python's `\b` before a word character, and after one. */
export const WORD_START = `(?<!${WORD_CHAR})`;
export const WORD_END = `(?!${WORD_CHAR})`;

/** Letters that NFKD does not split into a base letter and a diacritic. */
const ADDITIONAL_DIACRITICS: Readonly<Record<string, string>> = {
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  æ: 'ae',
  Æ: 'AE',
  ß: 'ss',
  ẞ: 'SS',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'th',
  ł: 'l',
  Ł: 'L',
};

const NONSPACING_MARK = /^\p{Mn}$/u;
const MARK_SYMBOL_PUNCTUATION = /^[\p{M}\p{S}\p{P}]$/u;

/** Marks, symbols and punctuation to spaces, diacritics dropped (NFKD), the characters in `keep` kept. */
export function removeSymbolsAndDiacritics(text: string, keep = ''): string {
  let out = '';
  for (const c of text.normalize('NFKD')) {
    if (keep.includes(c)) out += c;
    else if (ADDITIONAL_DIACRITICS[c] !== undefined) out += ADDITIONAL_DIACRITICS[c];
    else if (NONSPACING_MARK.test(c)) continue;
    else out += MARK_SYMBOL_PUNCTUATION.test(c) ? ' ' : c;
  }
  return out;
}

/** Marks, symbols and punctuation to spaces, diacritics kept (NFKC). */
export function removeSymbols(text: string): string {
  let out = '';
  for (const c of text.normalize('NFKC')) out += MARK_SYMBOL_PUNCTUATION.test(c) ? ' ' : c;
  return out;
}

/** Text in brackets (`[noise]`, `<unk>`) and in parentheses removed, as both Whisper normalizers do first. */
export function removeBracketed(text: string): string {
  return text.replace(/[<[][^>\]]*[>\]]/g, '').replace(/\(([^)]+?)\)/g, '');
}

/** Python's `str.split()`: the words between runs of whitespace. */
export function words(text: string): string[] {
  return text.split(/\s+/u).filter(Boolean);
}
