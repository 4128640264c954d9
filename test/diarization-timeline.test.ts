import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diarizationRulesOption } from '../src/config/diarization-rules.js';
import { OptionsError } from '../src/config/errors.js';
import { flagMessage } from '../src/cli/option-flags.js';
import { turnDecoder } from '../src/dialects/assemblyai/client.js';
import { listenReader } from '../src/dialects/deepgram/client.js';
import { interpretSpeechmaticsMessage } from '../src/dialects/speechmatics/client.js';
import { Command } from '@commander-js/extra-typings';
import { addDiarizationFlags, DIARIZATION_FLAGS, diarizationOptionsFromFlags } from '../src/cli/diarization-flags.js';
import { METRICS } from '../src/metrics/catalog.js';
import { DEFAULT_RULES, RULE_CHOICES } from '../src/metrics/diarization/rules.js';
import { corpusDiarization } from '../src/metrics/diarization/corpus.js';
import { scoreDiarization } from '../src/metrics/diarization/score.js';
import { corpusSpeakers, sessionSpeakers, turnsOfWords } from '../src/metrics/diarization/session.js';
import { speakerLines } from '../src/report/speaker-lines.js';
import { DEFAULT_SPEAKER_ERRORS, SpeakerLabeller } from '../src/server/models/speakers.js';
import { TEXT_LIMITS } from '../src/dialects/text-limits.js';
import { TextBudget } from '../src/session/bounds.js';
import type { AudioInput, ReceivedFrame, ReceivedWord, SessionTimeline } from '../src/timeline/types.js';
import { sessionView } from '../src/views/session-view.js';
import { oneInputTimeline } from './helpers.js';

const json = (value: object): Buffer => Buffer.from(JSON.stringify(value));

describe('speaker labels from the wire', () => {
  it("Deepgram: each Results word with its speaker as text, times in ms; no words without diarize's speakers", () => {
    const decode = listenReader('client');
    const words = [
      { word: 'hello', punctuated_word: 'Hello', start: 0.5, end: 0.9, speaker: 0 },
      { word: 'there', punctuated_word: 'there.', start: 1, end: 1.25, speaker: 1 },
    ];
    const [delta] = decode(
      json({ type: 'Results', start: 0, duration: 1.5, is_final: true, channel: { alternatives: [{ transcript: 'Hello there.', words }] } }),
      false,
    );
    assert.deepEqual(delta!.words, [
      { text: 'Hello', startMs: 500, endMs: 900, speaker: '0' },
      { text: 'there.', startMs: 1000, endMs: 1250, speaker: '1' },
    ]);
    const plain = words.map(({ speaker: _s, ...w }) => w);
    const [unlabelled] = decode(
      json({ type: 'Results', start: 0, duration: 1.5, channel: { alternatives: [{ transcript: 'Hello there.', words: plain }] } }),
      false,
    );
    assert.equal(unlabelled!.words, undefined, 'without speakers the words are not kept');
  });

  it("Speechmatics: each word's alternatives[0].speaker (UU kept as sent), punctuation left out", () => {
    const event = interpretSpeechmaticsMessage({
      message: 'AddTranscript',
      metadata: { start_time: 0.5, end_time: 1.2, transcript: 'Hi you.' },
      results: [
        { type: 'word', start_time: 0.5, end_time: 0.8, alternatives: [{ content: 'Hi', speaker: 'S1' }] },
        { type: 'word', start_time: 0.9, end_time: 1.2, alternatives: [{ content: 'you', speaker: 'UU' }] },
        { type: 'punctuation', start_time: 1.2, end_time: 1.2, alternatives: [{ content: '.', speaker: 'UU' }] },
      ],
    });
    assert.deepEqual(event.words, [
      { text: 'Hi', startMs: 500, endMs: 800, speaker: 'S1' },
      { text: 'you', startMs: 900, endMs: 1200, speaker: 'UU' },
    ]);
  });

  it("AssemblyAI: each word's own speaker (the turn's speaker_label is their majority, never a word's), on the delta and the turn's final", () => {
    const decode = turnDecoder();
    const events = decode(
      json({
        type: 'Turn',
        turn_order: 0,
        end_of_turn: true,
        transcript: 'yes no',
        speaker_label: 'A',
        words: [
          { text: 'yes', start: 100, end: 300, speaker: 'A' },
          { text: 'no', start: 400, end: 600, speaker: 'B' },
        ],
      }),
      false,
    );
    const expected = [
      { text: 'yes', startMs: 100, endMs: 300, speaker: 'A' },
      { text: 'no', startMs: 400, endMs: 600, speaker: 'B' },
    ];
    assert.deepEqual(
      events.filter((e) => e.kind === 'text_delta' || e.kind === 'text_final').map((e) => e.words),
      [expected, expected],
    );
  });

  it('a session keeps at most TEXT_LIMITS.eventWords words per event, their fields cut as other fields are', () => {
    const many = Array.from({ length: TEXT_LIMITS.eventWords + 5 }, (_, i) => ({ text: 'w'.repeat(i === 0 ? 5000 : 1), speaker: 'S1' }));
    const bounded = new TextBudget().bound({ type: 'AddTranscript', kind: 'text_delta', words: many });
    assert.equal(bounded.words!.length, TEXT_LIMITS.eventWords);
    assert.equal(bounded.words![0]!.text.length, TEXT_LIMITS.fieldChars);
  });
});

/** A one-input session over 0..10 s with reference turns A 0–4 s and B 4–8 s, and what the server sent. */
function session(received: Array<Pick<ReceivedFrame, 'provisional'> & { words: ReceivedWord[] }>): SessionTimeline {
  return oneInputTimeline(
    {
      sampleId: 'talk',
      turns: [
        { speaker: 'A', startMs: 0, endMs: 4000 },
        { speaker: 'B', startMs: 4000, endMs: 8000 },
      ],
      speechEndMs: 8000,
      eosSource: 'audio_end',
      audioEndMs: 10_000,
    },
    [],
    received.map((r, i) => ({ t: 100 * i, input: 0, type: 'Results', kind: 'text_delta', text: 'x', ...r })),
  );
}

const word = (speaker: string, startMs: number, endMs: number): ReceivedWord => ({ text: 'w', startMs, endMs, speaker });

describe('speaker attribution of a timeline', () => {
  it('scores the final labels; a provisional label that changed counts for stability; UU is no label', () => {
    const [scored] = sessionSpeakers(
      sessionView(
        session([
          // The first two words, provisionally the wrong speaker, then right.
          { provisional: true, words: [word('1', 0, 1900), word('1', 2000, 4000)] },
          { words: [word('0', 0, 1900), word('0', 2000, 4000)] },
          { words: [word('1', 4000, 8000), word('UU', 8000, 9000)] },
        ]),
      ),
    );
    assert.deepEqual(scored!.score.der, { scoredMs: 8000, missedMs: 0, falseAlarmMs: 0, confusionMs: 0, pairs: { '0': 'A', '1': 'B' } });
    assert.deepEqual(scored!.words, { words: 3, wrong: 0, outside: 0, pairs: { '0': 'A', '1': 'B' } });
    assert.deepEqual(scored!.stability, { words: 3, relabelledWords: 2, relabels: 2 });
  });

  it("joins a speaker's words across pauses under 500 ms; a turn ends where another speaker's word starts, and overlapping words still overlap", () => {
    const w = (speaker: string, startMs: number, endMs: number) => ({ speaker, startMs, endMs });
    assert.deepEqual(turnsOfWords([w('A', 0, 100), w('A', 150, 300), w('B', 250, 450), w('A', 400, 600), w('A', 1100, 1200)]), [
      w('A', 0, 300),
      w('B', 250, 450),
      w('A', 400, 600),
      w('A', 1100, 1200),
    ]);
  });

  it('a word given to the wrong speaker is speaker confusion, not two speakers at once', () => {
    // Speaker 0's words over A's turn with one word given to 1 between them, 50 ms apart.
    const [scored] = sessionSpeakers(
      sessionView(session([{ words: [word('0', 0, 900), word('1', 950, 1250), word('0', 1300, 4000), word('1', 4000, 8000)] }])),
    );
    assert.deepEqual(scored!.score.der, { scoredMs: 8000, missedMs: 100, falseAlarmMs: 0, confusionMs: 300, pairs: { '0': 'A', '1': 'B' } });
  });

  it('applies the rules the timeline carries: a collar takes the confused boundary out', () => {
    const late = session([{ words: [word('0', 0, 4400), word('1', 4400, 8000)] }]);
    assert.equal(sessionSpeakers(sessionView(late))[0]!.score.der.confusionMs, 400);
    const collared = { ...late, diarizationRules: { ...DEFAULT_RULES, collar: { ms: 500, per: 'side' as const } } };
    assert.equal(sessionSpeakers(sessionView(collared))[0]!.score.der.confusionMs, 0);
  });
});

describe('inputs, their labels and their revisions', () => {
  const spoken = (first: string, second: string, changeMs: number) => [
    { speaker: first, startMs: 0, endMs: changeMs },
    { speaker: second, startMs: changeMs, endMs: 8000 },
  ];
  const answer = (input: number, words: ReceivedWord[]): ReceivedFrame => ({
    t: 100 * input,
    input,
    type: 'transcription',
    kind: 'text_final',
    text: 'x',
    words,
  });

  it("scores each input from its own events where inputs share no clock (every batch request's audio starts at 0 ms)", () => {
    const one = session([]);
    const first = one.inputs[0] as AudioInput;
    const timeline: SessionTimeline = {
      ...one,
      task: 'batch_stt',
      inputs: [
        { ...first, turns: spoken('spk1', 'spk2', 4000) },
        { ...first, index: 1, turns: spoken('spk2', 'spk1', 2000) },
      ],
      // Each request's answer names its speakers A, B in the order heard, every label right.
      received: [answer(0, [word('A', 0, 4000), word('B', 4000, 8000)]), answer(1, [word('A', 0, 2000), word('B', 2000, 8000)])],
    };
    const scored = sessionSpeakers(sessionView(timeline));
    assert.deepEqual(
      scored.map((i) => [i.input, i.labelledWords, i.score.der.missedMs + i.score.der.falseAlarmMs + i.score.der.confusionMs, i.words.wrong]),
      [
        [0, 2, 0, 0],
        [1, 2, 0, 0],
      ],
    );
  });

  it('an input with reference turns and no label is all missed speech, once the server labelled any input; the summary counts it', () => {
    const right = session([{ words: [word('0', 0, 4000), word('1', 4000, 8000)] }]);
    const unknown = session([{ words: [word('UU', 0, 4000), word('UU', 4000, 8000)] }]);
    const corpus = corpusSpeakers([sessionView(right), sessionView(unknown)]);
    // pyannote.metrics over the two recordings: 8 s missed of 16 s.
    assert.deepEqual([corpus?.der, corpus?.missed, corpus?.recordings, corpus?.unlabelled], [0.5, 0.5, 2, 1]);
    assert.match(speakerLines(corpus)[0]!, / over 2 inputs, 1 without labels \(missed speech\)$/);
    assert.equal(corpusSpeakers([sessionView(unknown)]), undefined, 'a server that labels nothing has no speaker figures');
  });

  it('follows a word across revisions by its text and time: a relabel is counted though the final re-times the word by 20 ms', () => {
    const [scored] = sessionSpeakers(
      sessionView(
        session([
          { provisional: true, words: [word('1', 20, 1920), word('1', 2020, 4020)] },
          { words: [word('0', 0, 1900), word('0', 2000, 4000), word('1', 4000, 8000)] },
        ]),
      ),
    );
    assert.deepEqual(scored!.stability, { words: 3, relabelledWords: 2, relabels: 2 });
    assert.equal(scored!.labelledWords, 3, 'each word once');
    assert.equal(scored!.score.der.confusionMs, 0, 'the final labels are scored');
    // Two speakers' words that overlap, sent in two lasting events, are two words.
    const overlapped = session([
      { words: [{ text: 'well', startMs: 0, endMs: 4100, speaker: '0' }] },
      { words: [{ text: 'yes', startMs: 3900, endMs: 8000, speaker: '1' }] },
    ]);
    assert.equal(sessionSpeakers(sessionView(overlapped))[0]!.labelledWords, 2);
  });

  it('with no scored reference speech the DER parts are no share of anything: n/a, never 100% each', () => {
    const falseAlarm = scoreDiarization([], [{ speaker: 'x', startMs: 0, endMs: 1000 }]);
    const corpus = corpusDiarization([falseAlarm, falseAlarm]);
    assert.deepEqual([corpus.der, corpus.missed, corpus.falseAlarm, corpus.confusion], [1, null, null, null]);
    const line = speakerLines({ ...corpus, unlabelled: 0, wordSpeakerError: { value: null, ci95: null }, speakerRelabelled: { value: null, ci95: null } })[0]!;
    assert.match(line, /^speakers: corpus DER 100\.00% .*\(no scored reference speech: no parts\) · /);
    assert.doesNotMatch(line, /missed|false alarm|confusion/);
  });
});

describe('the simulated server labels speakers', () => {
  const heard = (speaker: string, startMs: number) => ({ text: 'w', startMs, endMs: startMs + 200, speaker });

  it('numbers speakers as first heard; notices a change boundaryMs late; confusion gives another speaker', () => {
    const exact = new SpeakerLabeller({ ...DEFAULT_SPEAKER_ERRORS, confusion: 0, boundaryMs: 0 }, 1);
    assert.deepEqual(
      [heard('x', 0), heard('y', 300), heard('x', 600)].map((w) => exact.label(w)),
      [0, 1, 0],
    );
    const late = new SpeakerLabeller({ ...DEFAULT_SPEAKER_ERRORS, confusion: 0, boundaryMs: 250 }, 1);
    assert.deepEqual(
      [heard('x', 0), heard('y', 300), heard('y', 500), heard('y', 700)].map((w) => late.label(w)),
      [0, 0, 1, 1],
    );
    const confused = new SpeakerLabeller({ ...DEFAULT_SPEAKER_ERRORS, confusion: 1, boundaryMs: 0 }, 1);
    assert.deepEqual(
      [heard('x', 0), heard('y', 300), heard('y', 600)].map((w) => confused.label(w)),
      [0, 0, 0],
      'once two are known, always the other',
    );
    assert.equal(exact.label({ text: 'noise', endMs: 900 }), undefined);
  });

  it('relabel: partials first show another speaker heard, the final its own; unlabelled: no label at all', () => {
    const relabel = new SpeakerLabeller({ ...DEFAULT_SPEAKER_ERRORS, relabel: 1 }, 1);
    assert.deepEqual(
      [heard('x', 0), heard('y', 300), heard('x', 600)].map((w) => relabel.labels(w)),
      [
        { label: 0, shown: 0 },
        { label: 1, shown: 0 },
        { label: 0, shown: 1 },
      ],
      'while one speaker is known there is no other to show',
    );
    const none = new SpeakerLabeller({ ...DEFAULT_SPEAKER_ERRORS, unlabelled: 1 }, 1);
    assert.deepEqual(
      [heard('x', 0), heard('y', 300)].map((w) => none.labels(w)),
      [{}, {}],
    );
  });
});

describe('the rules as options', () => {
  it("the flags read each rule's values and default from the rules' one definition, and every rule option names its flag", () => {
    const command = addDiarizationFlags(new Command('t'));
    for (const [key, values] of Object.entries(RULE_CHOICES)) {
      const flag = DIARIZATION_FLAGS[`diarization.${key}`];
      const option = command.options.find((o) => o.long === flag);
      assert.ok(option, `${key}: ${flag}`);
      assert.equal(option.flags, `${flag} <${values.join('|')}>`);
      const fallback = key === 'collarPer' ? DEFAULT_RULES.collar.per : DEFAULT_RULES[key as Exclude<keyof typeof RULE_CHOICES, 'collarPer'>];
      assert.match(option.description, new RegExp(`\\(default ${fallback}\\)$`));
    }
    command.parse(['--der-overlap', 'skipped', '--der-collar-ms', '250'], { from: 'user' });
    assert.deepEqual(diarizationOptionsFromFlags(command.opts()), { collarMs: 250, overlap: 'skipped' });
  });

  it('the catalog says which rules each figure follows: DER and JER the diarization rules, the word-level figures none of them', () => {
    const quantity = (name: string): string => {
      const metric = METRICS.find((m) => m.name === name);
      return metric && 'quantity' in metric ? metric.quantity : '';
    };
    for (const name of ['der', 'corpus_der_confusion', 'jer']) assert.match(quantity(name), /under the report's diarization rules/, name);
    for (const name of ['word_speaker_error', 'speaker_relabelled', 'corpus_word_speaker_error']) {
      assert.doesNotMatch(quantity(name), /under the report's diarization rules/, name);
      assert.match(quantity(name), /no collar and overlapped speech scored whatever the diarization rules say/, name);
    }
  });

  it("defaults to pyannote.metrics'; a value it does not know is a one-line error naming the flag", () => {
    assert.deepEqual(diarizationRulesOption(), DEFAULT_RULES);
    assert.deepEqual(diarizationRulesOption({ collarMs: 250, collarPer: 'side', mapping: 'whole-region' }), {
      ...DEFAULT_RULES,
      collar: { ms: 250, per: 'side' },
      mapping: 'whole-region',
    });
    const refused = (options: Parameters<typeof diarizationRulesOption>[0]): string => {
      try {
        diarizationRulesOption(options);
      } catch (err) {
        assert.ok(err instanceof OptionsError);
        return flagMessage(err);
      }
      return 'accepted';
    };
    assert.equal(refused({ collarMs: -1 }), '--der-collar-ms must be a number of ms, 0 or more, got -1');
    assert.equal(refused({ region: 'uem' }), '--der-region must be extents or reference-extent, got "uem"');
    assert.equal(refused({ jerMapping: 'hungarian' }), '--jer-mapping must be overlap or jaccard, got "hungarian"');
  });
});
