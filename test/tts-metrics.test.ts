import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeSessionMetrics, summarizeBenchmark } from '../src/metrics/compute.js';
import type { ReceivedFrame, SessionRecord, SessionTimeline } from '../src/timeline/types.js';
import { playback } from '../src/views/playback.js';

/** A speech-generation session by hand: text at 0, the forcing send at 10, an announcement, then audio chunks (t, ms). */
function spoken(chunks: Array<[number, number]>, extra: Partial<SessionTimeline> = {}, streamed = false): SessionTimeline {
  const audio = chunks.map(([t, ms]): ReceivedFrame => ({ t, type: '(binary)', kind: 'audio', input: 0, audioBytes: ms * 48, audioMs: ms }));
  const last = chunks[chunks.length - 1]![0];
  return {
    task: 'tts',
    turnDetection: 'client',
    plannedStartMs: 0,
    startMs: 0,
    inputs: [{ kind: 'text', index: 0, sampleId: 's', split: 'default', text: 'Hello there, friend.', chars: 20 }],
    sent: [
      { t: 0, input: 0, bytes: 40, kind: 'text', plannedMs: streamed ? 0 : null, charStart: 0, charEnd: 20 },
      { t: 10, input: 0, bytes: 20, kind: 'control', control: 'input_end' },
    ],
    received: [
      { t: 20, type: 'audio.start', kind: 'response_started', input: 0 },
      ...audio,
      { t: last + 5, type: 'session.done', kind: 'response_done', input: 0 },
    ],
    transport: { kind: 'websocket', openMs: 0, close: { t: last + 10, code: 1000, reason: '', by: 'client' } },
    counters: { bytesSent: 60, bytesReceived: 0, framesSent: 2, framesReceived: chunks.length + 2 },
    ...extra,
  };
}

const ARRIVALS: Array<[number, number]> = [
  [100, 100],
  [150, 100],
  [400, 100],
  [420, 200],
];

describe('speech-generation metrics on hand-built timelines', () => {
  it('plays back with exact stalls: starts once the buffer is full, stalls whenever audio runs out', () => {
    const chunks = ARRIVALS.map(([t, ms]) => ({ t, ms }));
    assert.deepEqual(playback(chunks, 200), { startMs: 150, stalls: [{ t: 350, ms: 50 }], stallMs: 50, endMs: 700 });
    assert.deepEqual(playback(chunks, 100), { startMs: 100, stalls: [{ t: 300, ms: 100 }], stallMs: 100, endMs: 700 });
    // A buffer larger than the whole stream starts at its last chunk and never stalls.
    assert.deepEqual(playback(chunks, 10_000), { startMs: 420, stalls: [], stallMs: 0, endMs: 920 });
    assert.deepEqual(playback([], 200), { stalls: [], stallMs: 0 });
  });

  it('gives every TTS figure from its anchors, with the playback buffer the timeline names', () => {
    const [m] = computeSessionMetrics(spoken(ARRIVALS)).inputs;
    assert.deepEqual(m, {
      ttfb_ms: 20,
      ttfa_ms: 90,
      playback_start_ms: 140,
      stall_count: 1,
      stall_ms: 50,
      gen_rtf: (420 - 10) / 500,
      total_ms: 425 - 10,
      audio_out_ms: 500,
      chars: 20,
      chars_per_s: (20 * 1000) / 415,
    });
    const [small] = computeSessionMetrics(spoken(ARRIVALS, { playbackBufferMs: 100 })).inputs;
    assert.equal(small!.playback_start_ms, 90);
    assert.equal(small!.stall_ms, 100);
  });

  it('gives FTTS only for streamed text, and pools chunk gaps', () => {
    assert.equal(computeSessionMetrics(spoken(ARRIVALS, {}, true)).inputs[0]!.ftts_ms, 100);
    const record: SessionRecord = { index: 0, sampleIds: ['s'], split: 'default', timeline: spoken(ARRIVALS), outcome: { status: 'completed' } };
    const summary = summarizeBenchmark([record], ['measured'], [], { perReplicaHour: 3.6, replicas: 2 });
    assert.equal(summary.metrics.chunk_gap_ms!.max, 250);
    assert.equal(summary.metrics.chunk_gap_ms!.count, 3);
    // Throughput and cost count the audio generated and the characters sent.
    assert.equal(summary.throughput.audioS, 0.5);
    const wallS = 0.43;
    assert.equal(summary.throughput.wallS, wallS);
    assert.equal(summary.cost!.chars, 20);
    assert.ok(Math.abs(summary.cost!.perMillionChars! - (3.6 * 2 * wallS) / 3600 / (20 / 1e6)) < 1e-9);
  });
});
