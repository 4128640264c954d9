import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { fromPcm16, toPcm16 } from '../src/audio/pcm.js';
import { resample } from '../src/audio/resample.js';
import { parseFaultScenario } from '../src/server/faults/faults.js';
import { ReferenceIndex, StreamRecognizer } from '../src/server/models/recognizer.js';
import {
  base64Of,
  DEFAULT_SPEECH_LATENCY,
  DEFAULT_VOICE,
  playSpeech,
  renderedSpeech,
  SpeechLatencyModel,
  synthesizeSpeech,
} from '../src/server/models/speech-synth.js';

/** What the simulated transcription server hears in `pcm`, fed in `chunkMs` pieces. */
function hear(pcm: Buffer, sampleRate: number, chunkMs = 100): string[] {
  const recognizer = new StreamRecognizer(new ReferenceIndex([]), sampleRate);
  const step = Math.round((sampleRate * chunkMs) / 1000) * 2;
  const words = [];
  for (let i = 0; i < pcm.length; i += step) words.push(...recognizer.feed(pcm.subarray(i, i + step)));
  words.push(...recognizer.flush());
  return words.map((w) => w.text);
}

const TEXT = "Hello, world! It's 42 degrees in Zürich; the balloon's teeth—aaa bbb.";
const WORDS = ['hello', 'world', "it's", '42', 'degrees', 'in', 'zürich', 'the', "balloon's", 'teeth', 'aaa', 'bbb'];

describe('speech synthesizer', () => {
  it('speaks a text the simulated transcription server reads back word for word, at its own rate', () => {
    assert.deepEqual(hear(synthesizeSpeech(TEXT, 16_000), 16_000), WORDS);
  });

  it('is read back after resampling (24 kHz speech to a 16 kHz recognizer), at any voice rate and chunking', async () => {
    for (const [charsPerSecond, speed] of [
      [14, 1],
      [8, 0.5],
      [20, 1.5],
    ] as const) {
      const pcm = synthesizeSpeech(TEXT, 24_000, { ...DEFAULT_VOICE, charsPerSecond }, speed);
      const { samples } = await resample({ samples: fromPcm16(pcm), sampleRate: 24_000 }, 16_000);
      assert.deepEqual(hear(toPcm16(samples), 16_000, 37), WORDS, `${charsPerSecond} chars/s at speed ${speed}`);
    }
  });

  it('lasts in proportion to the text, with the leading silence asked for', () => {
    const short = synthesizeSpeech('one two three', 16_000).length;
    const long = synthesizeSpeech('one two three one two three one two three', 16_000).length;
    assert.ok(Math.abs(long / short - 3) < 0.2, `${long / short}`);
    const lead = synthesizeSpeech('one', 16_000, { ...DEFAULT_VOICE, leadingSilenceMs: 250 });
    assert.equal(
      lead.subarray(0, 8000).every((b) => b === 0),
      true,
    );
    assert.notEqual(lead.readInt16LE(8002), 0);
    // The opening tone and 3 characters at 14 per second: about 286 ms of speech, no trailing pause.
    assert.equal(synthesizeSpeech('one', 16_000).length, Math.round(16 * (1000 / 14)) * 4 * 2);
  });

  it('leaves other audio to the placeholder words', () => {
    const noise = Buffer.alloc(32_000);
    for (let i = 0; i < 16_000; i++) noise.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16_000)), i * 2);
    assert.deepEqual(hear(Buffer.concat([noise, Buffer.alloc(6400)]), 16_000), ['speech', 'speech', 'speech']);
  });
});

describe('rendered speech, shared by the sessions that speak the same text', () => {
  it('renders a text once per rate, voice and speed, the audio the synthesizer makes', () => {
    const pcm = renderedSpeech(TEXT, 24_000);
    assert.equal(renderedSpeech(TEXT, 24_000), pcm, 'the second request shares the first rendering');
    assert.deepEqual(pcm, synthesizeSpeech(TEXT, 24_000));
    assert.notEqual(renderedSpeech(TEXT, 16_000), pcm);
    assert.notEqual(renderedSpeech(TEXT, 24_000, { ...DEFAULT_VOICE, amplitude: 0.5 }), pcm);
    assert.notEqual(renderedSpeech(TEXT, 24_000, DEFAULT_VOICE, 1.5), pcm);
  });

  it('plans every response of a rendering with the same chunks, each base64-encoded once', () => {
    const model = new SpeechLatencyModel(DEFAULT_SPEECH_LATENCY);
    const pcm = renderedSpeech(TEXT, 24_000);
    const [first, second] = [model.plan(pcm, 24_000, 1), model.plan(pcm, 24_000, 1)];
    assert.deepEqual(Buffer.concat(first.chunks.map((c) => c.pcm)), pcm);
    first.chunks.forEach((c, k) => {
      assert.equal(second.chunks[k]!.pcm, c.pcm, 'the same piece');
      assert.equal(base64Of(c.pcm), c.pcm.toString('base64'));
    });
  });
});

describe('speech latency model', () => {
  const pcm = synthesizeSpeech('a sentence of some length to cut into chunks', 16_000);
  const model = (o = {}) => new SpeechLatencyModel({ ...DEFAULT_SPEECH_LATENCY, jitterMs: 0, ...o });

  it('has the first chunk due at the first-audio delay, and each next one its audio times the real-time factor later', () => {
    const plan = model({ firstAudioMs: 200, rtf: 0.5, chunkMs: 100 }).plan(pcm, 16_000, 1);
    assert.equal(plan.chunks[0]!.atMs, 200);
    assert.equal(plan.chunks[1]!.atMs, 250);
    assert.equal(Buffer.concat(plan.chunks.map((c) => c.pcm)).equals(pcm), true);
    assert.deepEqual(plan.end, { kind: 'done' });
  });

  it('slows down past its capacity, quadratically', () => {
    assert.equal(model({ firstAudioMs: 100, capacity: 4 }).plan(pcm, 16_000, 8).chunks[0]!.atMs, 400);
  });

  it('applies the speech faults: a stall, slow chunks, a cut and error events at each point', () => {
    const at = (faults: string) => model({ firstAudioMs: 100, rtf: 0.5 }).plan(pcm, 16_000, 1, faults ? parseFaultScenario(faults) : []);
    const stalled = at('stall-after=300,1000').chunks.map((c) => c.atMs);
    assert.deepEqual(stalled.slice(0, 5), [100, 150, 200, 1250, 1300]);
    assert.equal(at('slow-chunks:4').chunks[1]!.atMs, 600);
    const cut = at('cut-stream:200');
    assert.equal(cut.chunks.length, 2);
    assert.deepEqual(cut.end, { kind: 'cut' });
    assert.equal(at('error-event@open').chunks.length, 0);
    assert.equal(at('error-event:overloaded').chunks.length, 1);
    assert.deepEqual(at('error-event:overloaded').end, { kind: 'error', code: 'overloaded' });
    assert.equal(at('error-event@final').chunks.length, at('').chunks.length);
  });

  it('plays a plan on time: no chunk early, and a late timer does not make the chunks after it late', () => {
    // On mocked timers and a mocked performance.now, moved together a millisecond at a time: exact, whatever the
    // machine's load (the real clock's `< 80 ms` for a 60 ms chunk failed on a busy one).
    const plan = model({ firstAudioMs: 60, rtf: 0.1 }).plan(pcm, 16_000, 1);
    let now = 1000;
    const clock = mock.method(performance, 'now', () => now);
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const times: number[] = [];
      let ended = false;
      playSpeech(plan, 1000, { chunk: () => times.push(now - 1000), end: () => (ended = true) });
      const LATE_AT = 65; // the timer of the chunks due from here fires 30 ms late, as on a loaded machine
      while (!ended && now < 1000 + plan.endAtMs + 100) {
        const step = now - 1000 === LATE_AT ? 30 : 1;
        now += step;
        mock.timers.tick(step);
      }
      assert.ok(ended);
      assert.equal(times.length, plan.chunks.length);
      plan.chunks.forEach(({ atMs }, k) => {
        assert.ok(times[k]! >= atMs, `chunk ${k} due at ${atMs} ms, played at ${times[k]}`);
        // Those due in the late 30 ms go when it ends; every later one at its own time (absolute deadlines).
        const expected = atMs > LATE_AT && atMs <= LATE_AT + 30 ? LATE_AT + 30 : Math.ceil(atMs);
        assert.equal(times[k], expected, `chunk ${k} due at ${atMs} ms`);
      });
      assert.ok(
        plan.chunks.some(({ atMs }) => atMs > LATE_AT + 30),
        'chunks after the late timer',
      );
    } finally {
      mock.timers.reset();
      clock.mock.restore();
    }
  });
});
