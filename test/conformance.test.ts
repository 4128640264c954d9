/**
 * Conformance with a client nobody here wrote: the official `openai` npm package's
 * realtime WebSocket client against `voxbench serve` (spawned as a real process).
 *
 * The SDK always connects with `wss://`; `createConnection: net.connect` makes its `ws`
 * socket speak plain TCP to the plaintext server, as protocols.md section B explains.
 * openai 6.x, the last line that installs on Node 20, opens `/v1/realtime?model=` (7.x
 * added `intent: 'transcription'` but needs Node 22); the first `session.update` with
 * `type: 'transcription'` makes the session a transcription, as the server reads it.
 * voxbench's own client, which opens `?intent=transcription`, is tested everywhere else.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { toPcm16 } from '../src/audio/pcm.js';
import { resample } from '../src/audio/resample.js';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { loadFolderDataset } from '../src/data/load.js';
import { CLI } from './helpers.js';

const { samples } = await loadFolderDataset(BUNDLED_SAMPLES_DIR);
const pcm24k = toPcm16((await resample(samples[0]!.audio, 24_000)).samples);
const silence24k = Buffer.alloc(24_000 * 2); // 1 s

let port = 0;
let server: ReturnType<typeof spawn>;

before(async () => {
  server = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) => server.stdout!.once('data', (d) => resolve(String(d))));
  port = Number(/:(\d+)\//.exec(line)![1]);
});
after(() => {
  server.kill('SIGTERM');
});

/** Opens an SDK transcription session, runs `drive` once open, and collects event types until `done`. */
function sdkSession(drive: (rt: OpenAIRealtimeWS) => void, done: (type: string) => boolean): Promise<{ types: string[]; transcript: string }> {
  const client = new OpenAI({ apiKey: 'sk-dummy', baseURL: `http://127.0.0.1:${port}/v1` });
  const rt = new OpenAIRealtimeWS({ model: 'gpt-4o-transcribe', options: { createConnection: (o) => connect(o as { port: number; host: string }) } }, client);
  const types: string[] = [];
  let transcript = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out; events: ${types.join(', ')}`)), 10_000);
    rt.on('error', (err) => reject(err));
    rt.socket.on('open', () => drive(rt));
    rt.on('event', (event) => {
      types.push(event.type);
      if (event.type === 'conversation.item.input_audio_transcription.completed') transcript = event.transcript;
      if (done(event.type)) {
        clearTimeout(timer);
        rt.close();
        resolve({ types, transcript });
      }
    });
  });
}

function appendAll(rt: OpenAIRealtimeWS, audio: Buffer): void {
  for (let i = 0; i < audio.length; i += 4800) {
    rt.send({ type: 'input_audio_buffer.append', audio: audio.subarray(i, i + 4800).toString('base64') });
  }
}

describe('openai SDK (OpenAIRealtimeWS, a transcription session) against voxbench serve', () => {
  it('completes a manual-commit transcription session', async () => {
    const { types, transcript } = await sdkSession(
      (rt) => {
        rt.send({
          type: 'session.update',
          session: {
            type: 'transcription',
            audio: {
              input: { format: { type: 'audio/pcm', rate: 24_000 }, transcription: { model: 'gpt-4o-transcribe', language: 'en' }, turn_detection: null },
            },
          },
        });
        appendAll(rt, pcm24k);
        rt.send({ type: 'input_audio_buffer.commit' });
      },
      (type) => type === 'conversation.item.input_audio_transcription.completed',
    );
    assert.equal(types[0], 'session.created');
    assert.ok(types.includes('session.updated'));
    assert.ok(types.indexOf('input_audio_buffer.committed') < types.indexOf('conversation.item.input_audio_transcription.completed'));
    assert.equal(transcript, samples[0]!.text);
  });

  it('completes a server-VAD transcription session', async () => {
    const { types, transcript } = await sdkSession(
      (rt) => {
        rt.send({
          type: 'session.update',
          session: {
            type: 'transcription',
            audio: {
              input: {
                format: { type: 'audio/pcm', rate: 24_000 },
                transcription: { model: 'gpt-4o-transcribe' },
                turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
              },
            },
          },
        });
        appendAll(rt, Buffer.concat([pcm24k, silence24k]));
      },
      (type) => type === 'conversation.item.input_audio_transcription.completed',
    );
    const order = [
      'input_audio_buffer.speech_started',
      'input_audio_buffer.speech_stopped',
      'input_audio_buffer.committed',
      'conversation.item.input_audio_transcription.completed',
    ];
    const positions = order.map((t) => types.indexOf(t));
    assert.ok(
      positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1]!)),
      `events in order: ${types.join(', ')}`,
    );
    assert.equal(transcript, samples[0]!.text);
  });
});
