import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import { vllmDialect } from '../src/dialects/vllm/client.js';
import { decodeWav } from '../src/audio/decode.js';
import { toPcm16 } from '../src/audio/pcm.js';
import type { Sample } from '../src/data/dataset.js';
import { run } from '../src/run/run.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { findSpeech, prepareSample } from '../src/session/prepare.js';
import type { AudioInput, InputRecord } from '../src/timeline/types.js';
import { testServer } from './helpers.js';

const audioInput = (input: InputRecord | undefined): AudioInput => {
  assert.equal(input?.kind, 'audio');
  return input;
};

/** 1 s at 16 kHz: silence, a 440 Hz tone from 200 to 700 ms, silence. */
function toneSample(words?: Sample['words']): Sample {
  const samples = new Float32Array(16_000);
  for (let i = 3200; i < 11_200; i++) samples[i] = 0.3 * Math.sin((2 * Math.PI * 440 * i) / 16_000);
  const audio = decodeWav(encodeWaveFromFloat32Channels([samples], 16_000, 16));
  return { id: 'tone', split: 'default', path: 'tone.wav', text: null, audio, ...(words ? { words } : {}) };
}

describe('end of speech', () => {
  const pcm = toPcm16(toneSample().audio.samples);

  it('label: the last word timing', () => {
    const sample = toneSample([{ word: 'a', start: 0.25, end: 0.6 }]);
    assert.deepEqual(findSpeech(sample, pcm, 16_000, 'auto'), { startMs: 250, endMs: 600, source: 'label' });
  });

  it('vad: the energy detector, frame exact, when there are no labels', () => {
    assert.deepEqual(findSpeech(toneSample(), pcm, 16_000, 'auto'), { startMs: 200, endMs: 700, source: 'vad' });
    assert.deepEqual(findSpeech(toneSample([{ word: 'a', start: 0.25, end: 0.6 }]), pcm, 16_000, 'vad').source, 'vad');
  });

  it('audio_end: the whole audio when asked, or when nothing sounds', () => {
    assert.deepEqual(findSpeech(toneSample(), pcm, 16_000, 'audio_end'), { startMs: 0, endMs: 1000, source: 'audio_end' });
    assert.deepEqual(findSpeech(toneSample(), Buffer.alloc(32_000), 16_000, 'vad'), { startMs: 0, endMs: 1000, source: 'audio_end' });
  });

  it('padding shifts speech and the next turn carries the gap', async () => {
    const prepared = await prepareSample(toneSample(), vllmDialect({ model: 'm' }), 100, { leadMs: 100, trailMs: 300, gapMs: 500 }, 'auto');
    assert.equal(prepared.first.audioMs, 1400);
    assert.deepEqual([prepared.first.speechStartMs, prepared.first.speechEndMs], [300, 800]);
    assert.equal(prepared.later.audioMs, 1900);
    assert.deepEqual([prepared.later.speechStartMs, prepared.later.speechEndMs], [800, 1300]);
  });
});

describe('multi-turn vLLM sessions', () => {
  it('starts each turn with a new commit after transcription.done and keeps stream positions continuous', async () => {
    const server = await testServer();
    const { report } = await run({
      target: server.url,
      model: DEFAULT_MODEL,
      turnsPerSession: 2,
      padding: { gapMs: 400, leadMs: 100, trailMs: 200 },
      maxSessions: 2,
      pace: { kind: 'realtime', speed: 8 },
    });
    const [first, second] = report.benchmarks[0]!.sessions;
    for (const s of [first!, second!]) assert.deepEqual(s.outcome, { status: 'completed' });
    const { timeline } = first!;
    const commits = timeline.sent.filter((f) => f.kind === 'control' && (f.control === 'input_start' || f.control === 'input_end' || f.control === 'flush'));
    assert.deepEqual(
      commits.map((c) => `${c.input}:${c.control}`),
      ['0:input_start', '0:input_end', '1:input_start', '1:input_end'],
    );
    assert.deepEqual(
      timeline.inputs.map((t) => t.sampleId),
      ['harvard-01', 'harvard-02'],
    );
    assert.deepEqual(
      second!.timeline.inputs.map((t) => t.sampleId),
      ['harvard-03', 'harvard-04'],
    );
    const [turn0, turn1] = [audioInput(timeline.inputs[0]), audioInput(timeline.inputs[1])];
    assert.equal(turn1.audioStartMs, turn0.audioEndMs);
    assert.equal(turn1.speechStartMs - turn1.audioStartMs, 400 + 100 + 175, 'gap + lead + where harvard-02 says its first word');
    assert.deepEqual(
      timeline.received.filter((e) => e.kind === 'text_final').map((e) => e.text!.trim()),
      ['The birch canoe slid on the smooth planks.', 'Glue the sheet to the dark blue background.'],
    );
    assert.equal(first!.metrics.inputs.length, 2);
    assert.deepEqual(report.benchmarks[0]!.summary.turns, { planned: 4, finalized: 4, boundaries: 'client commits', eosSources: { label: 4 } });
  });

  it('rejects server turn detection for vLLM', async () => {
    await assert.rejects(
      run({ turnDetection: { type: 'semantic_vad', eagerness: 'auto' } }),
      /^OptionsError: turnDetection needs protocol openai or openai-beta/,
    );
  });
});
