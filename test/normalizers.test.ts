import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { findNormalizer, isEnglish, normalizerChoice, normalizerFor } from '../src/metrics/normalizers/index.js';
import { voxbenchBasic } from '../src/metrics/normalizers/voxbench-basic.js';
import { whisperBasic } from '../src/metrics/normalizers/whisper-basic.js';
import { whisperEnglish } from '../src/metrics/normalizers/whisper-english.js';
import { normalizeNumbers } from '../src/metrics/normalizers/whisper-numbers.js';

const english = (text: string): string => whisperEnglish(text).join(' ');

describe('whisper-english', () => {
  // openai/whisper tests/test_normalizer.py: the number rules on their own and inside the
  // whole normalizer give the same answers.
  const NUMBERS: Array<[string, string]> = [
    ['two', '2'],
    ['thirty one', '31'],
    ['five twenty four', '524'],
    ['nineteen ninety nine', '1999'],
    ['twenty nineteen', '2019'],
    ['two point five million', '2500000'],
    ['four point two billions', '4200000000s'],
    ['200 thousand', '200000'],
    ['200 thousand dollars', '$200000'],
    ['$20 million', '$20000000'],
    ['€52.4 million', '€52400000'],
    ['£77 thousands', '£77000s'],
    ['two double o eight', '2008'],
    ['three thousand twenty nine', '3029'],
    ['forty three thousand two hundred sixty', '43260'],
    ['forty three thousand two hundred and sixty', '43260'],
    ['nineteen fifties', '1950s'],
    ['thirty first', '31st'],
    ['thirty three thousand and three hundred and thirty third', '33333rd'],
    ['three billion', '3000000000'],
    ['millions', '1000000s'],
    ['july third twenty twenty', 'july 3rd 2020'],
    ['august twenty sixth twenty twenty one', 'august 26th 2021'],
    ['3 14', '3 14'],
    ['3.14', '3.14'],
    ['3 point 2', '3.2'],
    ['3 point 14', '3.14'],
    ['fourteen point 4', '14.4'],
    ['two point two five dollars', '$2.25'],
    ['two hundred million dollars', '$200000000'],
    ['$20.1 million', '$20100000'],
    ['ninety percent', '90%'],
    ['seventy six per cent', '76%'],
    ['double oh seven', '007'],
    ['double zero seven', '007'],
    ['nine one one', '911'],
    ['nine double one', '911'],
    ['one triple oh one', '10001'],
    ['two thousandth', '2000th'],
    ['thirty two thousandth', '32000th'],
    ['minus 500', '-500'],
    ['positive twenty thousand', '+20000'],
    ['two dollars and seventy cents', '$2.70'],
    ['3 cents', '¢3'],
    ['$0.36', '¢36'],
    ['three euros and sixty five cents', '€3.65'],
    ['three and a half million', '3500000'],
    ['forty eight and a half dollars', '$48.5'],
    ['b747', 'b 747'],
    ['10 th', '10th'],
    ['10th', '10th'],
  ];
  for (const [spoken, written] of NUMBERS) {
    it(`reads "${spoken}" as ${written}`, () => {
      assert.equal(normalizeNumbers(spoken), written);
      assert.equal(english(spoken), written);
    });
  }

  it('spells out contractions and titles, and splits letters from digits (Whisper’s own examples)', () => {
    assert.equal(english("Let's"), 'let us');
    assert.equal(english("he's like"), 'he is like');
    assert.equal(english("she's been like"), 'she has been like');
    assert.equal(english('10km'), '10 km');
    assert.equal(english('10mm'), '10 mm');
    assert.equal(english('RC232'), 'rc 232');
    assert.equal(english('Mr. Park visited Assoc. Prof. Kim Jr.'), 'mister park visited associate professor kim junior');
  });

  it('maps British to American spelling from Whisper’s list', () => {
    assert.equal(english('mobilisation'), 'mobilization');
    assert.equal(english('cancelation'), 'cancellation');
    assert.equal(english("The colour of the neighbour's organised centre"), 'the color of the neighbor is organized center');
    // Whisper reads only the ASCII apostrophe: a typographic one is punctuation, as published.
    assert.equal(english('the neighbour’s'), 'the neighbor s');
  });

  it('reads the numbers people say', () => {
    assert.equal(english('In two thousand and twenty, sales grew by twenty percent.'), 'in 2020 sales grew by 20%');
    assert.equal(english('nineteen ninety'), '1990');
    assert.equal(english('the twenty first of May'), 'the 21st of may');
    assert.equal(english('It cost $20 million, about 1,000,000 pounds.'), 'it cost $20000000 about £1000000');
    assert.equal(english('zero point five'), '0.5');
    // Whisper's quirk, kept so figures compare: a lone 1 is written as a word, even before a decimal point.
    assert.equal(english('one point five'), 'one.5');
    assert.equal(english('one of the ones'), 'one of the ones');
  });

  it("removes fillers and bracketed text, and spells out won't", () => {
    assert.equal(english("Um, I won't do it, hmm [noise] <unk> (laughs) uh okay"), 'i will not do it okay');
    assert.equal(english("We can't — y'all gonna wanna see"), 'we can not you all going to want to see');
    assert.equal(english('umbrella hummus'), 'umbrella hummus', 'a filler inside a word stays');
  });

  it('drops diacritics, and marks and symbols not beside a number', () => {
    assert.equal(english('Café Müller, naïve Œuvre straße!'), 'cafe muller naive oeuvre strasse');
    assert.equal(english('costs $ and 100% sure, 100 % not'), 'costs and 100% sure 100 not');
  });
});

describe('whisper-basic', () => {
  it('lowercases, removes bracketed text and turns symbols into spaces, keeping diacritics and numbers as written', () => {
    assert.deepEqual(whisperBasic('Ça va? [rires] Très bien (merci) — 20 €!'), ['ça', 'va', 'très', 'bien', '20']);
    assert.deepEqual(whisperBasic("Don't stop"), ['don', 't', 'stop']);
    assert.deepEqual(whisperBasic('Straße ﬁne'), ['straße', 'fine'], 'NFKC folds compatibility forms');
  });
});

describe('voxbench-basic-2', () => {
  it('keeps contractions and numbers as written', () => {
    assert.deepEqual(voxbenchBasic("It's twenty-one, isn’t it?"), ["it's", 'twenty', 'one', "isn't", 'it']);
  });
});

describe('the normalizer registry', () => {
  it('finds a normalizer by name (its current version) or by id', () => {
    assert.equal(findNormalizer('whisper-english')?.id, 'whisper-english-1');
    assert.equal(findNormalizer('voxbench-basic-2')?.id, 'voxbench-basic-2');
    assert.equal(normalizerChoice('whisper-basic'), 'whisper-basic-1');
    assert.equal(normalizerChoice('auto'), 'auto');
    assert.equal(normalizerChoice('whisper'), undefined);
  });

  it('scores English or unlabelled inputs with whisper-english and other languages with whisper-basic, unless one is chosen', () => {
    for (const language of [undefined, 'en', 'en-US', 'EN_gb', 'eng', 'English'])
      assert.equal(normalizerFor('auto', language), 'whisper-english-1', String(language));
    for (const language of ['fr', 'de-DE', 'ja', 'ena']) assert.equal(normalizerFor('auto', language), 'whisper-basic-1', language);
    assert.equal(normalizerFor('voxbench-basic-2', 'fr'), 'voxbench-basic-2');
    assert.ok(isEnglish(' en ') && !isEnglish('es'));
  });
});

describe('the vendored spelling list', () => {
  it('ships in the npm package with its MIT licence beside it', async () => {
    const root = new URL('../../', import.meta.url);
    const pkg = JSON.parse(await readFile(new URL('package.json', root), 'utf8')) as { files: string[] };
    assert.ok(pkg.files.includes('vendor'), 'package.json files lists vendor/');
    assert.match(await readFile(new URL('vendor/whisper/LICENSE', root), 'utf8'), /^MIT License\n\nCopyright \(c\) 2022 OpenAI/);
    const spellings = JSON.parse(await readFile(new URL('vendor/whisper/english-spelling.json', root), 'utf8')) as Record<string, string>;
    assert.equal(Object.keys(spellings).length, 1739);
  });
});

describe('the ports against Whisper itself', () => {
  it('give the words openai/whisper gives on 600 seeded phrases (scripts/make-normalizer-fixtures.py)', async () => {
    const cases = JSON.parse(await readFile(new URL('../../test/fixtures/whisper-normalizer.json', import.meta.url), 'utf8')) as Array<{
      text: string;
      english: string[];
      basic: string[];
    }>;
    assert.equal(cases.length, 600);
    for (const c of cases) {
      assert.deepEqual(whisperEnglish(c.text), c.english, `whisper-english of ${JSON.stringify(c.text)}`);
      assert.deepEqual(whisperBasic(c.text), c.basic, `whisper-basic of ${JSON.stringify(c.text)}`);
    }
  });
});
