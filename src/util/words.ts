/**
 * Text as its words, the way voxbench has split it since its first version: the WER
 * normalizer `voxbench-basic` (reports name it, so it never changes) and the simulated
 * server's voice (whose words its recognizer must find again) share it. It folds
 * Unicode compatibility forms (NFKC), lowercases, reads typographic apostrophes (’ ʼ) as ', turns every character
 * that is not a letter, digit or apostrophe into a space, drops apostrophes that do not
 * sit inside a word, and splits on whitespace. It neither spells out numbers nor maps
 * British to American spelling, and keeps contractions as they are.
 */
export function splitWords(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2019\u02bc]/g, "'")
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .replace(/(^|\s)'+|'+(?=\s|$)/g, '$1')
    .split(/\s+/)
    .filter(Boolean);
}
