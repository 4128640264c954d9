import { readFileSync } from 'node:fs';
import { removeBracketed, removeSymbolsAndDiacritics, WORD_END, WORD_START, words } from './symbols.js';
import { normalizeNumbers } from './whisper-numbers.js';

/**
 * Whisper's `EnglishTextNormalizer` (openai/whisper `whisper/normalizers/english.py` at
 * release 20250625), the normalizer behind Whisper's and the Open ASR Leaderboard's
 * English WER, step for step: lowercase; text in brackets and parentheses removed;
 * the fillers hmm, mm, mhm, mmm, uh and um removed; contractions and titles spelled out
 * (won't → will not, let's → let us, mr → mister); commas inside numbers and periods
 * not before a digit removed; symbols, punctuation and diacritics removed except
 * `.%$¢€£`; numbers to digits (`whisper-numbers.ts`); British to American spelling from
 * Whisper's own list (`vendor/whisper/english-spelling.json`, MIT, its licence beside
 * it); then currency and percent signs not beside a digit removed.
 */

const FILLERS = new RegExp(`${WORD_START}(hmm|mm|mhm|mmm|uh|um)${WORD_END}`, 'gu');

/** Whisper's replacers, in its order; `\b` there is a word boundary (WORD_START, WORD_END) here. */
const REPLACERS: ReadonlyArray<[RegExp, string]> = (
  [
    // Common contractions.
    ["\\bwon't\\b", 'will not'],
    ["\\bcan't\\b", 'can not'],
    ["\\blet's\\b", 'let us'],
    ["\\bain't\\b", 'aint'],
    ["\\by'all\\b", 'you all'],
    ['\\bwanna\\b', 'want to'],
    ['\\bgotta\\b', 'got to'],
    ['\\bgonna\\b', 'going to'],
    ["\\bi'ma\\b", 'i am going to'],
    ['\\bimma\\b', 'i am going to'],
    ['\\bwoulda\\b', 'would have'],
    ['\\bcoulda\\b', 'could have'],
    ['\\bshoulda\\b', 'should have'],
    ["\\bma'am\\b", 'madam'],
    // Titles and prefixes.
    ['\\bmr\\b', 'mister '],
    ['\\bmrs\\b', 'missus '],
    ['\\bst\\b', 'saint '],
    ['\\bdr\\b', 'doctor '],
    ['\\bprof\\b', 'professor '],
    ['\\bcapt\\b', 'captain '],
    ['\\bgov\\b', 'governor '],
    ['\\bald\\b', 'alderman '],
    ['\\bgen\\b', 'general '],
    ['\\bsen\\b', 'senator '],
    ['\\brep\\b', 'representative '],
    ['\\bpres\\b', 'president '],
    ['\\brev\\b', 'reverend '],
    ['\\bhon\\b', 'honorable '],
    ['\\basst\\b', 'assistant '],
    ['\\bassoc\\b', 'associate '],
    ['\\blt\\b', 'lieutenant '],
    ['\\bcol\\b', 'colonel '],
    ['\\bjr\\b', 'junior '],
    ['\\bsr\\b', 'senior '],
    ['\\besq\\b', 'esquire '],
    // Perfect tenses ("'s done" is ambiguous, so it stays).
    ["'d been\\b", ' had been'],
    ["'s been\\b", ' has been'],
    ["'d gone\\b", ' had gone'],
    ["'s gone\\b", ' has gone'],
    ["'d done\\b", ' had done'],
    ["'s got\\b", ' has got'],
    // General contractions.
    ["n't\\b", ' not'],
    ["'re\\b", ' are'],
    ["'s\\b", ' is'],
    ["'d\\b", ' would'],
    ["'ll\\b", ' will'],
    ["'t\\b", ' not'],
    ["'ve\\b", ' have'],
    ["'m\\b", ' am'],
  ] as const
).map(([pattern, replacement]) => [new RegExp(pattern.replace(/^\\b/, WORD_START).replace(/\\b$/, WORD_END), 'gu'), replacement]);

/** The spelling list ships at the package root, `vendor/whisper/`, four folders above this module in `dist/src/metrics/normalizers/`. */
const SPELLING_FILE = new URL('../../../../vendor/whisper/english-spelling.json', import.meta.url);
let spellings: ReadonlyMap<string, string> | undefined;

/** British to American spelling, read once, on first use. */
function americanSpellings(): ReadonlyMap<string, string> {
  spellings ??= new Map(Object.entries(JSON.parse(readFileSync(SPELLING_FILE, 'utf8')) as Record<string, string>));
  return spellings;
}

export function whisperEnglish(text: string): string[] {
  let s = removeBracketed(text.toLowerCase()).replace(FILLERS, '').replace(/\s+'/gu, "'");
  for (const [pattern, replacement] of REPLACERS) s = s.replace(pattern, replacement);
  s = s.replace(/(\d),(\d)/g, '$1$2').replace(/\.([^0-9]|$)/gu, ' $1');
  s = normalizeNumbers(removeSymbolsAndDiacritics(s, '.%$¢€£'));
  const american = americanSpellings();
  s = words(s)
    .map((word) => american.get(word) ?? word)
    .join(' ');
  return words(s.replace(/[.$¢€£]([^0-9])/gu, ' $1').replace(/([^0-9])%/gu, '$1 '));
}
