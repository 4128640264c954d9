import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeReceivedAudio, speechLevels } from '../src/audio/received.js';
import { METRICS, measure, type PointMetric } from '../src/metrics/catalog.js';
import { findNormalizer } from '../src/metrics/normalizers/index.js';
import { voxbenchBasic as normalizeWords } from '../src/metrics/normalizers/voxbench-basic.js';
import { run, type RunOptions } from '../src/run/run.js';
import { parseFaultScenario } from '../src/server/faults/faults.js';
import { pcm16WavHeader } from '../src/audio/wav-header.js';
import { DEFAULT_SPEECH_LATENCY, DEFAULT_VOICE } from '../src/server/models/speech-synth.js';
import type { SessionRecord } from '../src/timeline/types.js';
import { resolveQuality } from '../src/config/dialect-rules.js';
import { analyseSpeech } from '../src/run/speech-quality.js';
import { newTimeline } from '../src/session/runner.js';
import { synthesizeSpeech } from '../src/server/models/speech-synth.js';
import type { ReceivedAudio } from '../src/session/received-audio.js';
import { sessionView } from '../src/views/session-view.js';

const FAST = { ...DEFAULT_SPEECH_LATENCY, firstAudioMs: 20, rtf: 0.02, jitterMs: 0 };

async function sessions(options: RunOptions): Promise<SessionRecord[]> {
  const { report } = await run({ maxSessions: 3, ...options, server: { speechLatency: FAST, ...options.server } });
  return report.benchmarks[0]!.sessions;
}

const metric = (name: string): PointMetric => METRICS.find((m) => m.name === name) as PointMetric;

describe('after-run speech quality', () => {
  it('analyses the sessions a batch at a time, the kept audio of each taken once, so it holds no more than a batch', async () => {
    const text = 'The birch canoe slid on the smooth planks.';
    const pcm = synthesizeSpeech(text, 24_000);
    const records = Array.from({ length: 21 }, (_, index) => {
      const timeline = newTimeline('tts', 'client', 0, 0, { kind: 'http', requests: [] });
      timeline.inputs.push({ index: 0, kind: 'text', text } as (typeof timeline.inputs)[number]);
      return { index, sampleIds: [`s${index}`], timeline, outcome: { status: 'completed' } } as unknown as SessionRecord;
    });
    const transcribedWhenTaken: number[] = [];
    const taken = new Set<SessionRecord>();
    const takeAudio = (record: SessionRecord): ReceivedAudio | undefined => {
      assert.ok(!taken.has(record), 'the audio of each session is taken once');
      taken.add(record);
      transcribedWhenTaken.push(records.filter((r) => r.timeline.analysis?.[0]?.asr).length);
      return { inputs: [{ input: 0, payloads: [pcm] }], bytes: pcm.length, truncated: false };
    };
    await analyseSpeech(records, takeAudio, resolveQuality({}));
    assert.equal(taken.size, 21);
    // The first 20 are decoded before any is transcribed; the 21st only once those 20 have been.
    assert.deepEqual(transcribedWhenTaken, [...Array<number>(20).fill(0), 20]);
    for (const r of records) assert.ok('errors' in r.timeline.analysis![0]!.asr!, JSON.stringify(r.timeline.analysis));
  });

  it('round trip on the built-in pair: the transcription server hears every word the speech server was given', async () => {
    for (const [protocol, speech] of [
      ['vllm-omni-speech', { streamFormat: 'sse', responseFormat: 'wav' }],
      ['openai-speech', { streamFormat: 'audio', responseFormat: 'pcm' }],
    ] as const) {
      for (const s of await sessions({ protocol, speech })) {
        const [analysis] = s.timeline.analysis!;
        const asr = analysis!.asr!;
        assert.ok('errors' in asr, JSON.stringify(asr));
        const text = s.timeline.inputs[0]!.kind === 'text' ? s.timeline.inputs[0]!.text : '';
        assert.deepEqual(normalizeWords(asr.text), normalizeWords(text));
        assert.deepEqual(asr.errors, { substitutions: 0, deletions: 0, insertions: 0, words: findNormalizer('whisper-english')!.normalize(text).length });
        assert.equal(asr.normalizer, 'whisper-english-1');
        assert.equal(asr.target, 'built-in');
        assert.equal(measure(metric('tts_wer'), sessionView(s.timeline).inputs[0]!), 0);
        assert.deepEqual(analysis!.formatProblems, []);
        assert.equal(analysis!.sampleRate, 24_000);
      }
    }
  });

  it('scores a stream cut mid-way: the words never sent are deletions', async () => {
    for (const s of await sessions({
      protocol: 'vllm-omni-speech',
      speech: { streamFormat: 'audio' },
      server: { faults: [parseFaultScenario('cut-stream:1000')] },
    })) {
      assert.equal(s.outcome.status === 'failed' && s.outcome.failure.class, 'stream_cut');
      const asr = s.timeline.analysis![0]!.asr!;
      assert.ok('errors' in asr && asr.errors.deletions > 0 && asr.errors.substitutions + asr.errors.insertions <= 1, JSON.stringify(asr));
    }
  });

  it('finds the leading silence, so ttfa_audible_ms is time to first audio plus it', async () => {
    for (const s of await sessions({
      protocol: 'vllm-omni-speech',
      speech: { streamFormat: 'sse' },
      server: { voice: { ...DEFAULT_VOICE, leadingSilenceMs: 300 } },
    })) {
      const input = sessionView(s.timeline).inputs[0]!;
      const silence = s.timeline.analysis![0]!.leadingSilenceMs!;
      assert.ok(silence > 290 && silence <= 300, `${silence}`);
      const request = s.timeline.transport.kind === 'http' ? s.timeline.transport.requests[0]!.startMs : NaN;
      const ttfa = s.timeline.received.find((f) => f.kind === 'audio')!.t - request;
      assert.ok(Math.abs(measure(metric('ttfa_audible_ms'), input)! - (ttfa + silence)) < 1e-9);
    }
  });

  it('keeps no more audio per session than --keep-audio-mb, and says so', async () => {
    const [s] = await sessions({ protocol: 'vllm-omni-speech', maxSessions: 1, quality: { keepAudioMb: 0.05 } });
    const analysis = s!.timeline.analysis![0]!;
    assert.equal(analysis.truncated, true);
    assert.ok(analysis.audioMs > 0 && analysis.audioMs <= 1100, `${analysis.audioMs}`);
  });

  it('checks no audio with --quality-sessions 0', async () => {
    const [s] = await sessions({ protocol: 'vllm-omni-speech', maxSessions: 1, quality: { sessions: 0 } });
    assert.equal(s!.timeline.analysis, undefined);
  });
});

describe('received audio checks', () => {
  const tone = Buffer.alloc(4800);
  for (let i = 0; i < 2400; i++) tone.writeInt16LE(Math.round(10_000 * Math.sin(i / 3)), i * 2);

  it('reads a streamed WAV by its header, and base64 payloads as bytes', async () => {
    const header = pcm16WavHeader(16_000);
    const decoded = await decodeReceivedAudio([header.toString('base64'), tone.subarray(0, 1000).toString('base64'), tone.subarray(1000)], 24_000);
    assert.equal(decoded.sampleRate, 16_000);
    assert.equal(decoded.pcm.equals(tone), true);
    assert.deepEqual(decoded.formatProblems, []);
  });

  it('names what disagrees with the declaration', async () => {
    const wrongSize = await decodeReceivedAudio([pcm16WavHeader(16_000, 9000), tone], 24_000);
    assert.deepEqual(wrongSize.formatProblems, ['the WAV header declares 9000 bytes of audio, 4800 arrived']);
    const odd = await decodeReceivedAudio([tone.subarray(0, 101)], 24_000);
    assert.deepEqual(odd.formatProblems, ['101 bytes of PCM16 is not a whole number of samples']);
    assert.equal(odd.sampleRate, 24_000);
  });

  it('measures clipping and silence as shares of the audio', () => {
    const pcm = Buffer.alloc(16_000 * 2); // 1 s: 0.5 s of silence, then 0.5 s with every other sample at full scale
    for (let i = 8000; i < 16_000; i++) pcm.writeInt16LE(i % 2 ? 32767 : -1000, i * 2);
    const levels = speechLevels(pcm, 16_000);
    assert.equal(levels.clippingRatio, 0.25);
    assert.equal(levels.silenceRatio, 0.5);
    assert.equal(levels.leadingSilenceMs, 500 - 9);
  });

  it('measures the same levels of audio that starts at an odd byte of its buffer', () => {
    const pcm = Buffer.alloc(16_000 * 2);
    for (let i = 8000; i < 16_000; i++) pcm.writeInt16LE(i % 2 ? 32767 : -1000, i * 2);
    const odd = Buffer.alloc(pcm.length + 1);
    pcm.copy(odd, 1);
    assert.deepEqual(speechLevels(odd.subarray(1), 16_000), speechLevels(pcm, 16_000));
  });
});
