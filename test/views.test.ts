import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SessionTimeline } from '../src/timeline/types.js';
import { playback } from '../src/views/playback.js';
import { sessionView } from '../src/views/session-view.js';

/** A speech-generation session as a dialect would record it: one text in, one response of three audio chunks. */
function ttsTimeline(): SessionTimeline {
  return {
    task: 'tts',
    turnDetection: 'client',
    plannedStartMs: 0,
    startMs: 0,
    inputs: [{ kind: 'text', index: 0, sampleId: 's', split: 'default', text: 'Hello there.', chars: 12 }],
    sent: [
      { t: 5, input: 0, bytes: 30, kind: 'text', charStart: 0, charEnd: 12, plannedMs: 5 },
      { t: 6, input: 0, bytes: 20, kind: 'control', control: 'input_end' },
    ],
    received: [
      { t: 100, type: 'audio.start', kind: 'response_started', input: 0, responseId: 'r1' },
      { t: 150, type: 'audio', kind: 'audio', input: 0, responseId: 'r1', audioBytes: 9600, audioMs: 200 },
      { t: 300, type: 'audio', kind: 'audio', input: 0, responseId: 'r1', audioBytes: 9600, audioMs: 200 },
      { t: 700, type: 'audio', kind: 'audio', input: 0, responseId: 'r1', audioBytes: 4800, audioMs: 100 },
      { t: 710, type: 'audio.done', kind: 'response_done', input: 0, responseId: 'r1' },
    ],
    transport: { kind: 'websocket', openMs: 2, readyMs: 3, close: { t: 720, code: 1000, reason: '', by: 'client' } },
    counters: { bytesSent: 50, bytesReceived: 24_000, framesSent: 2, framesReceived: 5 },
  };
}

describe('views', () => {
  it('are computed once per timeline', () => {
    const timeline = ttsTimeline();
    assert.equal(sessionView(timeline), sessionView(timeline));
    assert.notEqual(sessionView(timeline), sessionView(ttsTimeline()));
  });

  it('group a response with its audio stream and the input it answers', () => {
    const view = sessionView(ttsTimeline());
    assert.equal(view.responses.length, 1);
    const response = view.responses[0]!;
    assert.equal(response.id, 'r1');
    assert.equal(response.status, 'done');
    assert.equal(response.started!.t, 100);
    assert.deepEqual(response.audio, {
      chunks: [
        { t: 150, ms: 200, bytes: 9600 },
        { t: 300, ms: 200, bytes: 9600 },
        { t: 700, ms: 100, bytes: 4800 },
      ],
      totalMs: 500,
      emittedMs: 500,
    });
    assert.equal(view.inputs[0]!.responses[0], response);
    assert.equal(view.inputs[0]!.endControl!.t, 6);
    assert.equal(view.inputs[0]!.media.length, 1);
  });

  it('find the audio frame holding a stream position, start exclusive and end inclusive', () => {
    const timeline: SessionTimeline = {
      ...ttsTimeline(),
      task: 'stt',
      received: [],
      inputs: [
        {
          kind: 'audio',
          index: 0,
          sampleId: 's',
          split: 'default',
          reference: null,
          audioStartMs: 0,
          speechStartMs: 0,
          speechEndMs: 150,
          eosSource: 'vad',
          audioEndMs: 300,
        },
      ],
      sent: [0, 1, 2].map((i) => ({
        t: 10 + i,
        input: 0,
        bytes: 10,
        kind: 'audio' as const,
        plannedMs: 10 + i,
        audioStartMs: i * 100,
        audioEndMs: (i + 1) * 100,
      })),
    };
    const input = sessionView(timeline).inputs[0]!;
    assert.equal(input.frameAt(100)!.t, 10);
    assert.equal(input.frameAt(100.5)!.t, 11);
    assert.equal(input.frameAt(300)!.t, 12);
    assert.equal(input.frameAt(0), undefined);
    assert.equal(input.frameAt(301), undefined);
    assert.equal(input.eosFrame!.t, 11);
  });

  it('with server turn detection place finals by item, and take a second final for an item as a duplicate', () => {
    const audio = { kind: 'audio' as const, split: 'default', reference: null, eosSource: 'vad' as const };
    const timeline: SessionTimeline = {
      ...ttsTimeline(),
      task: 'stt',
      turnDetection: 'server',
      inputs: [
        { ...audio, index: 0, sampleId: 'a', audioStartMs: 0, speechStartMs: 0, speechEndMs: 900, audioEndMs: 1000 },
        { ...audio, index: 1, sampleId: 'b', audioStartMs: 1000, speechStartMs: 1000, speechEndMs: 1900, audioEndMs: 2000 },
      ],
      sent: [0, 1].map((i) => ({
        t: 10 + i,
        input: i,
        bytes: 10,
        kind: 'audio' as const,
        plannedMs: 10 + i,
        audioStartMs: i * 1000,
        audioEndMs: (i + 1) * 1000,
      })),
      received: [
        { t: 20, type: 'speech_started', kind: 'speech_started', input: 0, itemId: 'i1', audioStartMs: 100 },
        { t: 30, type: 'speech_stopped', kind: 'speech_stopped', input: 0, itemId: 'i1', audioEndMs: 900 },
        { t: 40, type: 'completed', kind: 'text_final', input: 1, itemId: 'i1', channel: 'input_transcript', text: 'one' },
        { t: 50, type: 'speech_started', kind: 'speech_started', input: 1, itemId: 'i2', audioStartMs: 1100 },
        { t: 60, type: 'speech_stopped', kind: 'speech_stopped', input: 1, itemId: 'i2', audioEndMs: 1900 },
        { t: 70, type: 'completed', kind: 'text_final', input: 1, itemId: 'i1', channel: 'input_transcript', text: 'one again' },
        { t: 80, type: 'completed', kind: 'text_final', input: 1, itemId: 'i2', channel: 'input_transcript', text: 'two' },
      ],
    };
    const view = sessionView(timeline);
    assert.deepEqual(
      view.inputs.map((i) => i.transcript.text),
      ['one', 'two'],
    );
    assert.deepEqual(
      view.anomalies.map((a) => [a.reason, a.event.t, a.input]),
      [['duplicate', 70, 0]],
    );
    assert.deepEqual(view.inputs[0]!.anomalies, view.anomalies);
  });
});

describe('playback simulation', () => {
  const chunks = [
    { t: 150, ms: 200 },
    { t: 300, ms: 200 },
    { t: 700, ms: 100 },
  ];

  it('starts once the buffer is filled and stalls when audio runs out before the next chunk', () => {
    // Plays from 150: the first 400 ms last until 550; the third chunk arrives at 700: a 150 ms stall.
    assert.deepEqual(playback(chunks, 0), { startMs: 150, stalls: [{ t: 550, ms: 150 }], stallMs: 150, endMs: 800 });
  });

  it('waits for a larger buffer, which can hide the stall', () => {
    // 400 ms buffered at 300; plays until 700, exactly when the last chunk arrives.
    assert.deepEqual(playback(chunks, 400), { startMs: 300, stalls: [], stallMs: 0, endMs: 800 });
  });

  it('starts at the last chunk when the stream is shorter than the buffer, and has nothing to play without audio', () => {
    assert.equal(playback(chunks, 10_000).startMs, 700);
    assert.deepEqual(playback([], 100), { stalls: [], stallMs: 0 });
  });
});

describe('stale text', () => {
  it('text before any audio of the turn in progress is an anomaly, not its first text', async () => {
    const { fromV1 } = await import('../src/timeline/v1.js');
    const { computeSessionMetrics } = await import('../src/metrics/compute.js');
    const turn = (n: number, startMs: number) => ({
      turn: n,
      sampleId: `s${n}`,
      split: 'default',
      reference: 'hello',
      audioStartMs: startMs,
      speechStartMs: startMs,
      speechEndMs: startMs + 100,
      eosSource: 'label' as const,
      audioEndMs: startMs + 100,
    });
    const timeline = fromV1({
      turnDetection: 'client',
      turns: [turn(0, 0), turn(1, 100)],
      plannedStartMs: 0,
      connectStartMs: 0,
      openMs: 1,
      readyMs: 2,
      chunks: [
        { seq: 0, turn: 0, plannedMs: 10, sentMs: 10, audioStartMs: 0, audioEndMs: 100, bytes: 10 },
        { seq: 1, turn: 1, plannedMs: 300, sentMs: 300, audioStartMs: 100, audioEndMs: 200, bytes: 10 },
      ],
      commits: [
        { turn: 0, kind: 'final', sentMs: 11 },
        { turn: 1, kind: 'final', sentMs: 301 },
      ],
      updates: [],
      events: [
        { t: 50, type: 'transcription.delta', kind: 'transcript_delta', turn: 0, text: 'hello' },
        { t: 60, type: 'transcription.done', kind: 'transcript_final', turn: 0, text: 'hello' },
        // A late piece of turn 0's answer, after turn 1 began but before its audio.
        { t: 70, type: 'transcription.delta', kind: 'transcript_delta', turn: 1, text: 'hello' },
        { t: 350, type: 'transcription.delta', kind: 'transcript_delta', turn: 1, text: 'hello' },
        { t: 360, type: 'transcription.done', kind: 'transcript_final', turn: 1, text: 'hello' },
      ],
      close: { t: 400, code: 1000, reason: '', by: 'client' },
      bytesSent: 0,
      bytesReceived: 0,
      framesSent: 0,
      framesReceived: 0,
    });
    const view = sessionView(timeline);
    assert.deepEqual(
      view.anomalies.map((a) => [a.reason, a.input, a.event.t]),
      [['stale', 1, 70]],
    );
    const metrics = computeSessionMetrics(timeline);
    assert.deepEqual(
      metrics.inputs.map((m) => m.ttft_ms),
      [40, 50],
    );
    assert.equal(metrics.session.protocol_anomalies, 1);
  });
});
