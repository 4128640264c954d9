import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { renderSummary } from '../src/report/console.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import type { HeldReport, Report } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run/run.js';
import type { ServerOptions } from '../src/server/server.js';
import type { Failure } from '../src/timeline/types.js';
import { CLI, runNode, selfSignedCert, tempDir, testServer } from './helpers.js';

/** The simulated server answering fast: 5 ms, plus the audio at 200 times real time. */
const QUICK = { latency: { ...DEFAULT_LATENCY, baseDelayMs: 5, jitterMs: 0, batchSpeed: 200 } };
/** One server for the runs that need no faults (`run` without a target, its own thread, is tested in batch-load.test.ts). */
const shared = await testServer(QUICK);

/** A run against the shared server, or one of its own with `server` options (faults). */
async function batchRun(options: RunOptions & { server?: Partial<ServerOptions> }): Promise<HeldReport> {
  const { server: own, ...rest } = options;
  const server = own ? await testServer({ ...QUICK, ...own }) : shared;
  const model = rest.protocol === 'openai-transcriptions' ? 'gpt-4o-transcribe' : 'openai/whisper-large-v3';
  const { report } = await run({ maxSessions: 3, target: server.origin, model, ...rest });
  return report;
}

const wireTypes = (report: HeldReport): Set<string> => new Set(report.benchmarks[0]!.sessions.flatMap((s) => s.timeline.received.map((e) => e.type)));

describe('batch transcription end to end against the built-in server', () => {
  const modes: Array<{ mode: string; transcription: RunOptions['transcription']; model?: string; types: string[] }> = [
    { mode: 'json', transcription: {}, types: ['transcription'] },
    { mode: 'verbose_json', transcription: { responseFormat: 'verbose_json' }, types: ['transcription'] },
    { mode: 'text', transcription: { responseFormat: 'text' }, types: ['text'] },
    { mode: "vLLM's transcription.chunk stream", transcription: { stream: true }, model: 'openai/whisper-large-v3', types: ['transcription.chunk', '[DONE]'] },
    {
      mode: "OpenAI's transcript.text stream",
      transcription: { stream: true },
      model: 'gpt-4o-transcribe',
      types: ['transcript.text.delta', 'transcript.text.done'],
    },
  ];
  for (const protocol of ['vllm-transcriptions', 'openai-transcriptions'] as const) {
    for (const { mode, transcription, model, types } of modes) {
      it(`${protocol}: ${mode}`, async () => {
        const report = await batchRun({ protocol, transcription, ...(model ? { model } : {}) });
        const { summary, sessions } = report.benchmarks[0]!;
        assert.equal(report.config.task, 'batch_stt');
        assert.deepEqual(summary.sessions, { total: 3, completed: 3, failed: 0, incomplete: 0 }, JSON.stringify(summary.failures));
        assert.equal(summary.quality.wer, 0, 'the recognizer knows the bundled samples: every transcript is exact');
        for (const type of types) assert.ok(wireTypes(report).has(type), `${type} among ${[...wireTypes(report)].join(', ')}`);
        for (const name of ['upload_ms', 'processing_ms', 'ttft_ms', 'rtf', 'rtfx', 'audio_ms', 'server_processing_ms'])
          assert.ok(summary.metrics[name], `${name} measured`);
        assert.ok(summary.corpus.corpus_rtfx! > 0);
        assert.ok(summary.throughput.audioS > 0, 'audio counts toward throughput');
        assert.match(renderSummary(report), /^corpus: corpus_rtfx [\d.]+ · connection_reuse 0\.6667 · connection_retries 0$/m);
        const metrics = sessions[0]!.metrics.inputs[0]!;
        assert.ok(metrics.upload_ms! <= metrics.processing_ms!);
        if (transcription?.stream) {
          assert.ok(metrics.ttft_ms! < metrics.processing_ms!, 'a stream shows text before the response is complete');
          // vLLM's shape has usage when asked for it (vllm-transcriptions does); OpenAI's always.
          const usage = protocol === 'vllm-transcriptions' || model === 'gpt-4o-transcribe';
          assert.equal(
            sessions[0]!.timeline.received.some((e) => e.usage),
            usage,
            'usage kept as received',
          );
        }
      });
    }
  }

  it('sends the dataset file as it is, or re-encoded as FLAC, to the same transcripts', async () => {
    const own = await batchRun({ protocol: 'vllm-transcriptions', maxSessions: 1 });
    const flac = await batchRun({ protocol: 'vllm-transcriptions', maxSessions: 1, transcription: { uploadFormat: 'flac' } });
    assert.equal(own.config.transcription?.upload, 'dataset');
    assert.equal(flac.config.transcription?.upload, 'flac');
    assert.equal(flac.benchmarks[0]!.summary.quality.wer, 0);
    assert.ok(
      flac.benchmarks[0]!.sessions[0]!.timeline.counters.bytesSent < own.benchmarks[0]!.sessions[0]!.timeline.counters.bytesSent,
      'FLAC at 16 kHz is smaller than the bundled WAV',
    );
  });

  it('translates at /v1/audio/translations', async () => {
    const report = await batchRun({ protocol: 'openai-transcriptions', maxSessions: 1, transcription: { translate: true } });
    assert.equal(report.benchmarks[0]!.summary.sessions.completed, 1);
    assert.equal(report.config.transcription?.translate, true);
  });

  it('reuses kept-alive connections across sequential requests', async () => {
    const report = await batchRun({ protocol: 'vllm-transcriptions', maxSessions: 4 });
    assert.equal(report.benchmarks[0]!.summary.corpus.connection_reuse, 3 / 4);
  });
});

describe('batch transcription failures, classified by stage', () => {
  const failuresOf = async (options: RunOptions): Promise<Failure[]> => {
    const report = await batchRun({ protocol: 'vllm-transcriptions', maxSessions: 1, ...options });
    return report.benchmarks[0]!.sessions.map((s) => {
      assert.equal(s.outcome.status, 'failed');
      return (s.outcome as { failure: Failure }).failure;
    });
  };

  it('an error status keeps the server error body and its code', async () => {
    for (const status of [500, 413]) {
      const [failure] = await failuresOf({ server: { faults: [[{ name: 'status', status }]] } });
      assert.equal(failure!.class, 'http_status');
      assert.equal(failure!.stage, 'status');
      assert.equal(failure!.httpStatus, status);
      assert.equal(failure!.code, String(status));
      assert.match(failure!.message, /"error":\{"message":"injected fault"/);
    }
  });

  it('a file over the size limit is 413', async () => {
    const [failure] = await failuresOf({ server: { maxAudioMb: 0.01 } });
    assert.equal(failure!.httpStatus, 413);
    assert.match(failure!.message, /Maximum file size exceeded/);
  });

  it('a stream cut before [DONE], or a body cut halfway, is stream_cut in the body', async () => {
    for (const transcription of [{ stream: true }, {}, { responseFormat: 'text' as const }]) {
      const [failure] = await failuresOf({ transcription, server: { faults: [[{ name: 'cut-stream', afterMs: 0 }]] } });
      assert.equal(failure!.class, 'stream_cut', JSON.stringify(transcription));
      assert.equal(failure!.stage, 'body');
    }
  });

  it('a body or an event that is not JSON is a protocol violation', async () => {
    for (const transcription of [{ stream: true }, {}]) {
      const [failure] = await failuresOf({ transcription, server: { faults: [[{ name: 'malformed-json', at: 'streaming' }]] } });
      assert.equal(failure!.class, 'protocol_violation', JSON.stringify(transcription));
      assert.equal(failure!.stage, 'body');
      assert.match(failure!.message, /not JSON/);
    }
  });

  it('a refused connection fails at connect, and an untrusted certificate with its TLS class', async () => {
    const [refused] = await failuresOf({ target: 'http://127.0.0.1:9' });
    assert.deepEqual([refused!.class, refused!.stage], ['connect_refused', 'connect']);
    const tls = await selfSignedCert();
    const [untrusted] = await failuresOf({ server: { tls } });
    assert.equal(untrusted!.class, 'tls', untrusted!.message);
    const trusted = await batchRun({ protocol: 'vllm-transcriptions', maxSessions: 1, server: { tls }, tls: { insecure: true } });
    assert.equal(trusted.config.target.startsWith('https://'), true);
    assert.equal(trusted.benchmarks[0]!.summary.sessions.completed, 1);
  });

  it('a model the server does not serve is 404 with its error body', async () => {
    const [failure] = await failuresOf({ model: 'nope' });
    assert.equal(failure!.httpStatus, 404);
    assert.match(failure!.message, /The model `nope` does not exist/);
  });
});

describe('the built-in batch endpoint', () => {
  it('answers a form without a file, or with a string for it, with 422', async () => {
    const server = shared;
    for (const form of [[['model', 'x']], [['file', 'not a file']]]) {
      const body = new FormData();
      for (const [name, value] of form) body.append(name!, value!);
      const res = await fetch(`${server.origin}/v1/audio/transcriptions`, { method: 'POST', body });
      assert.equal(res.status, 422);
      const error = ((await res.json()) as { error: { message: string; code: number } }).error;
      assert.equal(error.code, 422);
      assert.match(error.message, /file/);
    }
  });

  it('refuses a body that is not a multipart form, and stream options without stream', async () => {
    const server = shared;
    const plain = await fetch(`${server.origin}/v1/audio/transcriptions`, { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } });
    assert.equal(plain.status, 422);
    const body = new FormData();
    body.append('file', new Blob([new Uint8Array(8)]), 'a.wav');
    body.append('stream_include_usage', 'true');
    const options = await fetch(`${server.origin}/v1/audio/transcriptions`, { method: 'POST', body });
    assert.equal(options.status, 400);
  });
});

describe('voxbench run with the batch flags', () => {
  it('passes them to the requests and records them; refuses them for streaming dialects', async () => {
    const flags = [
      '--protocol',
      'vllm-transcriptions',
      '--stream',
      '--upload-format',
      'flac',
      '--temperature',
      '0',
      '--translate',
      '--max-sessions',
      '1',
      '--json',
      '--quiet',
    ];
    const dir = await tempDir();
    const result = await runNode([CLI, 'run', ...flags, '--output-dir', dir]);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Report;
    assert.deepEqual(report.config.transcription, { responseFormat: 'json', stream: true, translate: true, temperature: 0, upload: 'flac' });
    assert.equal(report.benchmarks[0]!.summary.sessions.completed, 1);
    const refused = await runNode([CLI, 'run', '--protocol', 'vllm', '--stream']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--stream is for the batch transcription dialects/);
  });
});
