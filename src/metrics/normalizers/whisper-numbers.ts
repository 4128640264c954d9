import { WORD_END, WORD_START, words } from './symbols.js';

/**
 * Whisper's `EnglishNumberNormalizer` (openai/whisper `whisper/normalizers/english.py`),
 * rule for rule: spelled-out numbers to digits ("twenty first" → 21st, "nineteen
 * ninety" → 1990, "one oh one" → 101, "double oh seven" → 007, "two point five
 * million" → 2500000), suffixes kept (1960s, 32nd), currency words to a symbol before
 * the number ("$20 million" and "twenty million dollars" → $20000000, "two dollars and
 * seventy cents" → $2.70), percent to %, and a lone 1 written `one`. Its quirks are
 * kept too, since figures only compare when the rules are the same: "one point five"
 * becomes `one.5`. Numbers are exact (BigInt), as in Python. Digits are ASCII digits.
 */

const ONES = new Map(
  [
    'one',
    'two',
    'three',
    'four',
    'five',
    'six',
    'seven',
    'eight',
    'nine',
    'ten',
    'eleven',
    'twelve',
    'thirteen',
    'fourteen',
    'fifteen',
    'sixteen',
    'seventeen',
    'eighteen',
    'nineteen',
  ].map((name, i) => [name, i + 1] as const),
);
const ZEROS = new Set(['o', 'oh', 'zero']);
const ONES_SUFFIXED = new Map<string, [number, string]>([
  ...[...ONES].map(([name, value]): [string, [number, string]] => [name === 'six' ? 'sixes' : `${name}s`, [value, 's']]),
  ['zeroth', [0, 'th']],
  ['first', [1, 'st']],
  ['second', [2, 'nd']],
  ['third', [3, 'rd']],
  ['fifth', [5, 'th']],
  ['twelfth', [12, 'th']],
  ...[...ONES]
    .filter(([, value]) => value > 3 && value !== 5 && value !== 12)
    .map(([name, value]): [string, [number, string]] => [name + (name.endsWith('t') ? 'h' : 'th'), [value, 'th']]),
]);
const TENS = new Map(['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'].map((name, i) => [name, (i + 2) * 10] as const));
const TENS_SUFFIXED = new Map<string, [number, string]>([
  ...[...TENS].map(([name, value]): [string, [number, string]] => [name.replace('y', 'ies'), [value, 's']]),
  ...[...TENS].map(([name, value]): [string, [number, string]] => [name.replace('y', 'ieth'), [value, 'th']]),
]);
const MULTIPLIERS = new Map(
  [
    'hundred',
    'thousand',
    'million',
    'billion',
    'trillion',
    'quadrillion',
    'quintillion',
    'sextillion',
    'septillion',
    'octillion',
    'nonillion',
    'decillion',
  ].map((name, i) => [name, i === 0 ? 100n : 1000n ** BigInt(i)] as const),
);
const MULTIPLIERS_SUFFIXED = new Map<string, [bigint, string]>([
  ...[...MULTIPLIERS].map(([name, value]): [string, [bigint, string]] => [`${name}s`, [value, 's']]),
  ...[...MULTIPLIERS].map(([name, value]): [string, [bigint, string]] => [`${name}th`, [value, 'th']]),
]);
const DECIMALS = new Set([...ONES.keys(), ...TENS.keys(), ...ZEROS]);
const PRECEDING_PREFIXERS = new Map([
  ['minus', '-'],
  ['negative', '-'],
  ['plus', '+'],
  ['positive', '+'],
]);
const FOLLOWING_PREFIXERS = new Map([
  ['pound', '£'],
  ['pounds', '£'],
  ['euro', '€'],
  ['euros', '€'],
  ['dollar', '$'],
  ['dollars', '$'],
  ['cent', '¢'],
  ['cents', '¢'],
]);
const PREFIXES = new Set([...PRECEDING_PREFIXERS.values(), ...FOLLOWING_PREFIXERS.values()]);
/** `percent` → %, and `per` → % when `cent` follows. */
const SUFFIXERS = new Map<string, string | Map<string, string>>([
  ['per', new Map([['cent', '%']])],
  ['percent', '%'],
]);
const SPECIALS = new Set(['and', 'double', 'triple', 'point']);
const NUMBER_WORDS = new Set([
  ...ZEROS,
  ...ONES.keys(),
  ...ONES_SUFFIXED.keys(),
  ...TENS.keys(),
  ...TENS_SUFFIXED.keys(),
  ...MULTIPLIERS.keys(),
  ...MULTIPLIERS_SUFFIXED.keys(),
  ...PRECEDING_PREFIXERS.keys(),
  ...FOLLOWING_PREFIXERS.keys(),
  ...SUFFIXERS.keys(),
  ...SPECIALS,
]);

const NUMERIC = /^\d+(\.\d+)?$/;

/** A number being read: an integer, digits read one by one (a string, maybe with a point), or none. */
type Value = bigint | string | null;

/** Python's `Fraction(text)` for the digit strings read here ("12", "1.5", "1.", ".5"); null for what it refuses. */
function toFraction(text: string): { num: bigint; den: bigint } | null {
  const m = /^(?=\d|\.\d)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m) return null;
  const decimals = m[2] ?? '';
  return { num: BigInt(`${m[1]}${decimals}` || '0'), den: 10n ** BigInt(decimals.length) };
}

/** `value * multiplier` when it is a whole number. */
function scaled(value: string, multiplier: bigint): bigint | null {
  const f = toFraction(value);
  return f && (f.num * multiplier) % f.den === 0n ? (f.num * multiplier) / f.den : null;
}

/** Python's `str(value or "")`: no digits yet for none, an empty string or the integer 0. */
const digitsSoFar = (value: Value): string => (value === null || value === '' || value === 0n ? '' : String(value));

function* processWords(input: readonly string[]): Generator<string> {
  let prefix: string | null = null;
  let value: Value = null;
  let skip = false;
  const output = (result: Value | number): string => {
    const text = prefix === null ? String(result) : prefix + String(result);
    value = null;
    prefix = null;
    return text;
  };
  for (let i = 0; i < input.length; i++) {
    if (skip) {
      skip = false;
      continue;
    }
    const prev = input[i - 1];
    const current = input[i]!;
    const next = input[i + 1];
    const nextIsNumeric = next !== undefined && NUMERIC.test(next);
    const nextIsWord = next !== undefined && NUMBER_WORDS.has(next);
    const hasPrefix = PREFIXES.has(current[0]!);
    const bare = hasPrefix ? current.slice(1) : current;
    if (NUMERIC.test(bare)) {
      // Arabic numbers, maybe with a sign or a currency and a fraction.
      const f = toFraction(bare)!;
      if (value !== null) {
        if (typeof value === 'string' && value.endsWith('.')) {
          // Decimals, or the parts of an IP address.
          value = value + current;
          continue;
        }
        yield output(value);
      }
      prefix = hasPrefix ? current[0]! : prefix;
      value = f.num % f.den === 0n ? f.num / f.den : bare;
    } else if (!NUMBER_WORDS.has(current)) {
      if (value !== null) yield output(value);
      yield output(current);
    } else if (ZEROS.has(current)) {
      value = `${digitsSoFar(value)}0`;
    } else if (ONES.has(current)) {
      const ones = ONES.get(current)!;
      if (value === null) value = BigInt(ones);
      else if (typeof value === 'string' || ONES.has(prev!)) {
        // After a tens word the last zero is the digit's place ("twenty" "one" read one by one).
        value = TENS.has(prev!) && ones < 10 ? `${String(value).slice(0, -1)}${ones}` : `${value}${ones}`;
      } else if (value % (ones < 10 ? 10n : 100n) === 0n) value += BigInt(ones);
      else value = `${value}${ones}`;
    } else if (ONES_SUFFIXED.has(current)) {
      // Ordinal or plural: the number ends here.
      const [ones, suffix] = ONES_SUFFIXED.get(current)!;
      if (value === null) yield output(`${ones}${suffix}`);
      else if (typeof value === 'string' || ONES.has(prev!)) {
        yield output(TENS.has(prev!) && ones < 10 ? `${String(value).slice(0, -1)}${ones}${suffix}` : `${value}${ones}${suffix}`);
      } else if (value % (ones < 10 ? 10n : 100n) === 0n) yield output(`${value + BigInt(ones)}${suffix}`);
      else yield output(`${value}${ones}${suffix}`);
      value = null;
    } else if (TENS.has(current)) {
      const tens = TENS.get(current)!;
      if (value === null) value = BigInt(tens);
      else if (typeof value === 'string' || value % 100n !== 0n) value = `${value}${tens}`;
      else value += BigInt(tens);
    } else if (TENS_SUFFIXED.has(current)) {
      const [tens, suffix] = TENS_SUFFIXED.get(current)!;
      if (value === null) yield output(`${tens}${suffix}`);
      else if (typeof value === 'string' || value % 100n !== 0n) yield output(`${value}${tens}${suffix}`);
      else yield output(`${value + BigInt(tens)}${suffix}`);
    } else if (MULTIPLIERS.has(current)) {
      const multiplier = MULTIPLIERS.get(current)!;
      if (value === null) value = multiplier;
      else if (typeof value === 'string' || value === 0n) {
        const product = scaled(String(value), multiplier);
        if (product !== null) value = product;
        else {
          yield output(value);
          value = multiplier;
        }
      } else value = (value / 1000n) * 1000n + (value % 1000n) * multiplier;
    } else if (MULTIPLIERS_SUFFIXED.has(current)) {
      const [multiplier, suffix] = MULTIPLIERS_SUFFIXED.get(current)!;
      if (value === null) yield output(`${multiplier}${suffix}`);
      else if (typeof value === 'string') {
        const product = scaled(value, multiplier);
        if (product !== null) yield output(`${product}${suffix}`);
        else {
          yield output(value);
          yield output(`${multiplier}${suffix}`);
        }
      } else yield output(`${(value / 1000n) * 1000n + (value % 1000n) * multiplier}${suffix}`);
      value = null;
    } else if (PRECEDING_PREFIXERS.has(current)) {
      // A sign, when a number follows.
      if (value !== null) yield output(value);
      if (nextIsWord || nextIsNumeric) prefix = PRECEDING_PREFIXERS.get(current)!;
      else yield output(current);
    } else if (FOLLOWING_PREFIXERS.has(current)) {
      // A currency, after a number.
      if (value !== null) {
        prefix = FOLLOWING_PREFIXERS.get(current)!;
        yield output(value);
      } else yield output(current);
    } else if (SUFFIXERS.has(current)) {
      const suffix = SUFFIXERS.get(current)!;
      if (value === null) yield output(current);
      else if (typeof suffix === 'string') yield output(`${value}${suffix}`);
      else if (next !== undefined && suffix.has(next)) {
        yield output(`${value}${suffix.get(next)}`);
        skip = true;
      } else {
        yield output(value);
        yield output(current);
      }
    } else if (!nextIsWord && !nextIsNumeric) {
      // A special word (and, double, triple, point) only counts before what can be a number.
      if (value !== null) yield output(value);
      yield output(current);
    } else if (current === 'and') {
      // "and" after hundreds, thousands, … is part of the number.
      if (!MULTIPLIERS.has(prev!)) {
        if (value !== null) yield output(value);
        yield output(current);
      }
    } else if (current === 'double' || current === 'triple') {
      if (ONES.has(next) || ZEROS.has(next)) {
        value = digitsSoFar(value) + String(ONES.get(next) ?? 0).repeat(current === 'double' ? 2 : 3);
        skip = true;
      } else {
        if (value !== null) yield output(value);
        yield output(current);
      }
    } else if (DECIMALS.has(next) || nextIsNumeric) {
      // "point"
      value = `${digitsSoFar(value)}.`;
    }
  }
  if (value !== null) yield output(value);
}

const AND_A_HALF = new RegExp(`${WORD_START}and\\s+a\\s+half${WORD_END}`, 'u');

/** "<number> and a half" → "<number> point five"; spaces between letters and digits, but not before a suffix. */
function preprocess(text: string): string {
  const segments = text.split(AND_A_HALF);
  const results: string[] = [];
  segments.forEach((segment, i) => {
    if (segment.trim().length === 0) return;
    results.push(segment);
    if (i === segments.length - 1) return;
    const last = words(segment).at(-1)!;
    results.push(DECIMALS.has(last) || MULTIPLIERS.has(last) ? 'point five' : 'and a half');
  });
  return results
    .join(' ')
    .replace(/([a-z])([0-9])/g, '$1 $2')
    .replace(/([0-9])([a-z])/g, '$1 $2')
    .replace(new RegExp(`([0-9])\\s+(st|nd|rd|th|s)${WORD_END}`, 'gu'), '$1$2');
}

const CENTS_AFTER = new RegExp(`([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})${WORD_END}`, 'gu');
const CENTS_ONLY = new RegExp(`[€£$]0.([0-9]{1,2})${WORD_END}`, 'gu');
const LONE_ONE = new RegExp(`${WORD_START}1(s?)${WORD_END}`, 'gu');

/** "$2 and ¢7" → $2.07, "$0.07" → ¢7, and a lone 1 (or 1s) written as a word. */
function postprocess(text: string): string {
  return text
    .replace(CENTS_AFTER, (_, currency: string, integer: string, cents: string) => `${currency}${integer}.${String(Number(cents)).padStart(2, '0')}`)
    .replace(CENTS_ONLY, (_, cents: string) => `¢${Number(cents)}`)
    .replace(LONE_ONE, 'one$1');
}

export function normalizeNumbers(text: string): string {
  return postprocess([...processWords(words(preprocess(text)))].join(' '));
}
