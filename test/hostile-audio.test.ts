import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { WebSocketServer } from 'ws';
import { decodeReceivedAudio } from '../src/audio/received.js';
import { renderCsv } from '../src/report/csv.js';
import { renderSummary } from '../src/report/console.js';
import { renderMarkdown } from '../src/report/markdown.js';
import type { HeldReport } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run/run.js';
import type { SessionRecord } from '../src/timeline/types.js';
import { CLI, tempDir, messageText } from './helpers.js';

/** 0.3 s of a 440 Hz tone, PCM16 mono at 24 kHz: the good answer. */
const RATE = 24_000;
const PCM = Buffer.alloc(RATE * 0.3 * 2);
for (let i = 0; i < PCM.length / 2; i++) PCM.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / RATE)), i * 2);

/** A PCM16 WAV file of PCM with the header fields given, and any chunk before 'data'. */
function wav({ rate = RATE, channels = 1, before = Buffer.alloc(0) }: { rate?: number; channels?: number; before?: Buffer } = {}): Buffer {
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(1, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE(rate * channels * 2, 16);
  fmt.writeUInt16LE(channels * 2, 20);
  fmt.writeUInt16LE(16, 22);
  const data = Buffer.alloc(8);
  data.write('data', 0, 'latin1');
  data.writeUInt32LE(PCM.length, 4);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(4 + fmt.length + before.length + data.length + PCM.length, 4);
  riff.write('WAVE', 8, 'latin1');
  return Buffer.concat([riff, fmt, before, data, PCM]);
}

/** A LIST chunk that claims 2^31 bytes and holds four. */
const HUGE_LIST = Buffer.concat([Buffer.from('LIST', 'latin1'), Buffer.from([0, 0, 0, 0x80]), Buffer.from('INFO', 'latin1')]);
const HTML = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>';
const JSON_ERROR = '{"error":{"message":"model overloaded","type":"server_error"}}';

interface Answer {
  type: string;
  body: Buffer;
}

/** An HTTP speech server whose first answer is `hostile` and the rest good WAV; closed when the file ends. */
async function httpServer(hostile: Answer): Promise<string> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = requests++ === 0 ? hostile : { type: 'audio/wav', body: wav() };
      res.writeHead(200, { 'content-type': answer.type });
      res.end(answer.body);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  after(() => new Promise((ok) => server.close(ok)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A vLLM-Omni speech WebSocket whose first session gets `hostile` as its binary frame, the rest good WAV. */
async function wsServer(hostile: Buffer): Promise<string> {
  let sessions = 0;
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await new Promise((ok) => wss.once('listening', ok));
  after(() => new Promise((ok) => wss.close(ok)));
  wss.on('connection', (ws) => {
    const frame = sessions++ === 0 ? hostile : wav();
    ws.on('message', (data) => {
      if ((JSON.parse(messageText(data)) as { type: string }).type !== 'input.done') return;
      ws.send(frame);
      ws.send(JSON.stringify({ type: 'session.done' }));
    });
  });
  return `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
}

async function runOn(target: string, options: Partial<RunOptions>): Promise<HeldReport> {
  const { report } = await run({ target, model: 'tts', maxSessions: 2, ...options });
  return report;
}

/** Every output a person or a spreadsheet reads: the console summary, the markdown and the CSV files. */
function outputs(report: HeldReport): string {
  return [renderSummary(report), renderMarkdown(report), ...Object.values(renderCsv(report))].join('\n');
}

function assertFinite(report: HeldReport): void {
  const text = outputs(report);
  assert.doesNotMatch(text, /Infinity|NaN/, text);
}

const failure = (s: SessionRecord) => (s.outcome.status === 'failed' ? s.outcome.failure : undefined);

const HTTP = { protocol: 'openai-speech', speech: { streamFormat: 'audio', responseFormat: 'wav' } } as const;

describe('hostile received audio', () => {
  for (const [name, header] of [
    ['sample rate 0', { rate: 0 }],
    ['0 channels', { channels: 0 }],
  ] as const) {
    it(`a WAV header with ${name} over HTTP fails its session in one line; the run goes on, with the check after it, and no figure is Infinity`, async () => {
      const report = await runOn(await httpServer({ type: 'audio/wav', body: wav(header) }), HTTP);
      const [bad, good] = report.benchmarks[0]!.sessions;
      assert.equal(failure(bad!)?.class, 'protocol_violation');
      assert.match(
        failure(bad!)!.message,
        new RegExp(`^the WAV header declares ${name === 'sample rate 0' ? 'a sample rate of 0 Hz' : '0 channels'}: its audio has no duration$`),
      );
      assert.deepEqual(good!.outcome, { status: 'completed' });
      assert.equal(bad!.timeline.received.filter((f) => f.kind === 'audio').length, 0, 'no audio counted');
      assert.deepEqual(good!.timeline.analysis![0]!.formatProblems, []);
      assertFinite(report);
    });

    it(`a binary WAV frame with ${name} over WebSocket fails its session in one line; the run goes on`, async () => {
      const report = await runOn(await wsServer(wav(header)), { protocol: 'vllm-omni-speech-ws' });
      const [bad, good] = report.benchmarks[0]!.sessions;
      assert.equal(failure(bad!)?.class, 'protocol_violation');
      assert.match(failure(bad!)!.message, /^the WAV header declares (a sample rate of 0 Hz|0 channels): its audio has no duration$/);
      assert.deepEqual(good!.outcome, { status: 'completed' });
      assertFinite(report);
    });
  }

  it('a LIST chunk claiming 2^31 bytes: the audio behind it is kept, timed, and the header named as a format problem', async () => {
    for (const report of [
      await runOn(await httpServer({ type: 'audio/wav', body: wav({ before: HUGE_LIST }) }), HTTP),
      await runOn(await wsServer(wav({ before: HUGE_LIST })), { protocol: 'vllm-omni-speech-ws' }),
    ]) {
      const [bad] = report.benchmarks[0]!.sessions;
      assert.deepEqual(bad!.outcome, { status: 'completed' });
      assert.equal(
        bad!.timeline.received.filter((f) => f.kind === 'audio').reduce((n, f) => n + f.audioBytes!, 0),
        PCM.length,
      );
      assert.ok(bad!.metrics.inputs[0]!.ttfa_ms! > 0);
      assert.equal(bad!.metrics.inputs[0]!.audio_out_ms, 300);
      const [analysis] = bad!.timeline.analysis!;
      assert.equal(analysis!.audioMs, 300);
      assert.deepEqual(analysis!.formatProblems, ["the WAV header's 'LIST' chunk claims 2147483648 bytes, more than the file holds; it was stepped over"]);
      assertFinite(report);
    }
  });

  for (const [what, answer, responseFormat, came] of [
    [
      'an HTML error page',
      { type: 'text/html; charset=utf-8', body: Buffer.from(HTML) },
      'wav',
      /^the server answered 200 with content type "text\/html; charset=utf-8" and a body starting "<!DOCTYPE html><html><head><titl", not wav audio$/,
    ],
    [
      'a JSON error object',
      { type: 'application/json', body: Buffer.from(JSON_ERROR) },
      'pcm',
      /^the server answered 200 with content type "application\/json" and a body starting "\{\\"error\\":\{\\"message\\":\\"model overl", not pcm audio$/,
    ],
    [
      'an HTML page labelled audio/pcm',
      { type: 'audio/pcm', body: Buffer.from(`\r\n${HTML}`) },
      'pcm',
      /^the server answered 200 with content type "audio\/pcm" and a body starting "\.\.<!DOCTYPE html>/,
    ],
  ] as const) {
    it(`a 200 answer that is ${what} fails not_audio, naming what came, and is never scored as audio`, async () => {
      const report = await runOn(await httpServer(answer), { protocol: 'openai-speech', speech: { streamFormat: 'audio', responseFormat } });
      const [bad, good] = report.benchmarks[0]!.sessions;
      assert.equal(failure(bad!)?.class, 'not_audio');
      assert.match(failure(bad!)!.message, came);
      assert.equal(bad!.timeline.received.filter((f) => f.kind === 'audio').length, 0, 'no audio counted');
      assert.deepEqual(good!.outcome, { status: 'completed' });
      assertFinite(report);
    });
  }

  it('the after-run decode keeps no audio of a format with no duration, and steps over a chunk that claims too much', async () => {
    for (const header of [{ rate: 0 }, { channels: 0 }]) {
      const decoded = await decodeReceivedAudio([wav(header)], RATE);
      assert.equal(decoded.pcm.length, 0);
      assert.match(decoded.formatProblems.join('; '), /^the WAV header declares (a sample rate of 0 Hz|0 channels): its audio has no duration$/);
    }
    const listed = await decodeReceivedAudio([wav({ before: HUGE_LIST })], RATE);
    assert.deepEqual([listed.pcm.length, listed.sampleRate], [PCM.length, RATE]);
  });

  it('the CLI, its quality check off or on, ends on a WAV header with sample rate 0, printing no Infinity', async () => {
    for (const quality of ['0', '20']) {
      const target = await httpServer({ type: 'audio/wav', body: wav({ rate: 0 }) });
      const args = [
        CLI,
        'run',
        '--target',
        target,
        '--protocol',
        'openai-speech',
        '--model',
        'tts',
        '--response-format',
        'wav',
        '--max-sessions',
        '2',
        '--quality-sessions',
        quality,
        '--output-dir',
        await tempDir(),
      ];
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const [code, signal] = await new Promise<[number | null, string | null]>((ok) => child.on('close', (c, s) => ok([c, s])));
      clearTimeout(killer);
      assert.equal(signal, null, `the CLI hung and was killed:\n${output}`);
      assert.doesNotMatch(output, /Infinity|NaN|internal error/, output);
      assert.match(output, /1 completed · 1 failed/, output);
      assert.ok(code !== null && code !== 1, `exit ${code}:\n${output}`);
    }
  });
});
