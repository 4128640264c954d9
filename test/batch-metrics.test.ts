import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeSessionMetrics, corpusValues, summarizeBenchmark } from '../src/metrics/compute.js';
import { parseSlo } from '../src/metrics/slo.js';
import type { SessionRecord, SessionTimeline } from '../src/timeline/types.js';
import { sessionView } from '../src/views/session-view.js';

/**
 * One request for 3 s of audio: started at `start`, its body written 10 ms later, the
 * headers at +200, an empty first delta, text at +250 and +350, the final at +500.
 */
function request(start: number, reused: boolean): SessionTimeline {
  return {
    task: 'batch_stt',
    turnDetection: 'client',
    plannedStartMs: start,
    startMs: start,
    inputs: [
      {
        kind: 'audio',
        index: 0,
        sampleId: 's',
        split: 'test',
        reference: 'hello world',
        audioStartMs: 0,
        speechStartMs: 100,
        speechEndMs: 2900,
        eosSource: 'audio_end',
        audioEndMs: 3000,
      },
    ],
    sent: [{ t: start + 1, input: 0, bytes: 96_000, kind: 'control', control: 'request' }],
    received: [
      { t: start + 220, type: 'transcription.chunk', kind: 'text_delta', channel: 'input_transcript', input: 0, text: '' },
      { t: start + 250, type: 'transcription.chunk', kind: 'text_delta', channel: 'input_transcript', input: 0, text: 'hello' },
      { t: start + 350, type: 'transcription.chunk', kind: 'text_delta', channel: 'input_transcript', input: 0, text: ' world' },
      { t: start + 500, type: '[DONE]', kind: 'text_final', channel: 'input_transcript', input: 0, text: 'hello world' },
    ],
    transport: {
      kind: 'http',
      requests: [
        {
          input: 0,
          startMs: start,
          uploadEndMs: start + 10,
          headersMs: start + 200,
          status: 200,
          endMs: start + 500,
          reusedConnection: reused,
          serverTiming: { inference: 420, queue: 30 },
        },
      ],
    },
    counters: { bytesSent: 96_000, bytesReceived: 400, framesSent: 1, framesReceived: 4 },
  };
}

const record = (index: number, timeline: SessionTimeline): SessionRecord => ({
  index,
  sampleIds: ['s'],
  split: 'test',
  timeline,
  outcome: { status: 'completed' },
});

describe('batch transcription metrics', () => {
  it('are exact on a hand-built request timeline', () => {
    const { inputs } = computeSessionMetrics(request(1000, false));
    const m = inputs[0]!;
    assert.equal(m.upload_ms, 10);
    assert.equal(m.processing_ms, 500);
    assert.equal(m.ttft_ms, 250, 'from the request start to the first non-empty text');
    assert.equal(m.audio_ms, 3000);
    assert.equal(m.rtf, 500 / 3000);
    assert.equal(m.rtfx, 6);
    assert.equal(m.server_processing_ms, 420, 'the longest Server-Timing duration');
    assert.deepEqual(sessionView(request(0, false)).inputs[0]!.transcript.text, 'hello world');
    assert.equal(m.wer, 0);
    for (const streamOnly of ['finalization_ms', 'commit_to_flush_ms', 'turn_ms'])
      assert.equal(m[streamOnly], undefined, `${streamOnly} is not a batch figure`);
  });

  it("take OpenAI's processing header over Server-Timing", () => {
    const timeline = request(0, false);
    if (timeline.transport.kind === 'http') timeline.transport.requests[0]!.serverTiming = { inference: 420, 'openai-processing-ms': 380 };
    assert.equal(computeSessionMetrics(timeline).inputs[0]!.server_processing_ms, 380);
  });

  it('pool corpus RTFx, connection reuse, cost and SLOs over a benchmark', () => {
    // Two requests at once from 0 and one after: 9 s of audio in 1000 ms of wall time.
    const records = [record(0, request(0, false)), record(1, request(0, false)), record(2, request(500, true))];
    const views = records.map((r) => sessionView(r.timeline));
    const corpus = corpusValues(views);
    assert.equal(corpus.corpus_rtfx, 9000 / 1000);
    assert.equal(corpus.connection_reuse, 1 / 3);
    assert.equal(corpus.corpus_wer, 0);
    const summary = summarizeBenchmark(records, ['measured', 'measured', 'measured'], [parseSlo('p95(processing_ms)<2000'), parseSlo('p50(upload_ms)<5')], {
      perReplicaHour: 3.6,
      replicas: 1,
    });
    assert.equal(summary.throughput.audioS, 9);
    assert.equal(summary.throughput.audioSPerWallS, 9, 'audio hours per hour: the corpus RTFx');
    assert.deepEqual(
      summary.slos.map((s) => [s.slo, s.pass]),
      [
        ['p95(processing_ms)<2000', true],
        ['p50(upload_ms)<5', false],
      ],
    );
    // 3.60 per hour for 1 s is 0.001, for 9 s of audio (0.0025 h): 0.4 per audio hour.
    assert.ok(Math.abs(summary.cost!.perAudioHour! - 0.4) < 1e-12, String(summary.cost!.perAudioHour));
  });
});
