import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import OpenAI, { toFile } from 'openai';
import WebSocket from 'ws';
import { decodeAudio } from '../src/audio/decode.js';
import { toPcm16 } from '../src/audio/pcm.js';
import { resample } from '../src/audio/resample.js';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { testServer, messageText } from './helpers.js';
import { assertTypes as assertSdkTypes } from './sdk-types.js';

/**
 * Users point the official SDKs at `voxbench serve`, so what it sends is checked
 * against the SDKs' own TypeScript types (`sdk-types.ts`): the events a real session
 * produces are compiled as `<event> satisfies <SDK type>`. The streaming transcription
 * providers' have a file each (`sdk-shapes-<provider>.test.ts`).
 */
const WAV = join(BUNDLED_SAMPLES_DIR, 'harvard-01.wav');
/** Answers generated at 10 times real time, so the test waits little for them. */
const QUICK = { latency: { ...DEFAULT_LATENCY, generationRtf: 0.1 } };
const VAD = { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 };
const PCM24 = { type: 'audio/pcm', rate: 24_000 };

/**
 * The types checked against. The only fields allowed beyond the SDK's are named here,
 * because the APIs send them though the SDK's types leave them out: a session's `id`
 * and `object` (OpenAI's session.created and session.updated carry both), and
 * verbose JSON's `task` (OpenAI's whisper-1 answers with it). Cartesia has no
 * TypeScript SDK here: its `chunk` is its Python SDK's `WebsocketResponse` Chunk.
 */
const PREAMBLE = `
import type * as RT from 'openai/resources/realtime/realtime';
import type { TranscriptionVerbose } from 'openai/resources/audio/transcriptions';
type Session = (RT.RealtimeSessionCreateRequest | RT.RealtimeTranscriptionSessionCreateRequest) & { id: string; object: 'realtime.session' | 'realtime.transcription_session' };
type ServerEvent =
  | Exclude<RT.RealtimeServerEvent, RT.SessionCreatedEvent | RT.SessionUpdatedEvent>
  | (Omit<RT.SessionCreatedEvent, 'session'> & { session: Session })
  | (Omit<RT.SessionUpdatedEvent, 'session'> & { session: Session });
type Verbose = TranscriptionVerbose & { task: 'transcribe' };
interface CartesiaChunk { type: 'chunk'; data: string; done: boolean; status_code: number; step_time: number; context_id?: string; flush_id?: number }
interface CartesiaDone { type: 'done'; done: true; status_code: number; context_id?: string }
type CartesiaMessage = CartesiaChunk | CartesiaDone;
`;

type Event = Record<string, unknown> & { type: string };

describe('the simulated server in the shapes of the official SDKs', () => {
  it('a Realtime transcription session: the SDK types, one session id, the model asked, usage on each transcript', async () => {
    const server = await testServer(QUICK);
    const model = 'gpt-4o-mini-transcribe';
    const update = {
      type: 'session.update',
      session: { type: 'transcription', audio: { input: { format: PCM24, transcription: { model }, turn_detection: VAD } } },
    };
    const events = await converse(`${origin(server.url)}/v1/realtime?model=${model}`, [update, ...appends(await speech())], (seen) =>
      seen.some((e) => e.type === 'conversation.item.done'),
    );
    assertTypes(events.map((value) => ({ value, type: 'ServerEvent' })));
    assertOneSession(events);
    for (const type of ['session.created', 'session.updated']) {
      const session = events.find((e) => e.type === type)!.session as { audio: { input: { transcription: { model: string } } } };
      assert.equal(session.audio.input.transcription.model, model, `${type} reports the model asked`);
    }
    const completed = events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed')!;
    assert.match(String(completed.transcript), /canoe/);
    assert.equal((completed.usage as { type: string }).type, 'tokens');
  });

  it('a Realtime conversation with server VAD, audio in and out: the SDK types, one session id, every item and content part opened and closed', async () => {
    const server = await testServer(QUICK);
    const update = {
      type: 'session.update',
      session: {
        type: 'realtime',
        output_modalities: ['audio'],
        audio: { input: { format: PCM24, turn_detection: VAD, transcription: { model: 'gpt-4o-mini-transcribe' } }, output: { format: PCM24, voice: 'marin' } },
      },
    };
    const done = (seen: Event[]): boolean =>
      seen.some((e) => e.type === 'response.done') && seen.some((e) => e.type === 'conversation.item.done' && (e.item as { role: string }).role === 'user');
    const events = await converse(`${origin(server.url)}/v1/realtime?model=gpt-realtime`, [update, ...appends(await speech())], done);
    assertTypes(events.map((value) => ({ value, type: 'ServerEvent' })));
    assertOneSession(events);
    const types = events.map((e) => e.type);
    const order = [
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_audio.delta',
      'response.output_audio.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.done',
    ];
    const at = order.map((type) => types.indexOf(type));
    assert.ok(
      at.every((i) => i >= 0),
      `every step of a response is sent: ${order.filter((_, k) => at[k]! < 0).join(', ')} missing`,
    );
    assert.deepEqual(
      [...at].sort((a, b) => a - b),
      at,
      'in the order the API sends them',
    );
    const items = events.filter((e) => e.type === 'conversation.item.done').map((e) => e.item as { role: string; content: Array<{ transcript?: string }> });
    assert.deepEqual(items.map((i) => i.role).sort(), ['assistant', 'user'], 'the user item and the answer each end with conversation.item.done');
    const completed = events.find((e) => e.type === 'conversation.item.input_audio_transcription.completed')!;
    assert.ok(completed.usage, 'input_audio_transcription.completed carries usage');
    const answer = events.find((e) => e.type === 'response.done')!.response as { status: string; output: Array<{ content: Array<{ transcript: string }> }> };
    assert.equal(answer.status, 'completed');
    assert.match(answer.output[0]!.content[0]!.transcript, /^You said .*canoe/i, 'response.done lists the answer it spoke');
  });

  it('a Realtime answer the user speaks over: cancelled in the SDK types, its item closed incomplete', async () => {
    const server = await testServer(QUICK);
    const update = { type: 'session.update', session: { type: 'realtime', audio: { input: { format: PCM24, turn_detection: VAD } } } };
    const turn = appends(await speech());
    const cancelled = (seen: Event[]): boolean => seen.some((e) => e.type === 'response.done' && (e.response as { status: string }).status === 'cancelled');
    // The user speaks again as soon as the answer's audio starts.
    const reply = (event: Event, seen: Event[]): object[] =>
      event.type === 'response.output_audio.delta' && seen.filter((e) => e.type === event.type).length === 1 ? turn : [];
    const events = await converse(`${origin(server.url)}/v1/realtime?model=gpt-realtime`, [update, ...turn], cancelled, reply);
    assertTypes(events.map((value) => ({ value, type: 'ServerEvent' })));
    const done = events.find((e) => e.type === 'response.done')!.response as { status_details: { reason: string }; output: Array<{ status: string }> };
    assert.equal(done.status_details.reason, 'turn_detected');
    assert.equal(done.output[0]!.status, 'incomplete');
  });

  it('verbose_json through the openai SDK client, with word and segment timestamps', async () => {
    const server = await testServer(QUICK);
    const client = new OpenAI({ apiKey: 'unused', baseURL: `${origin(server.url).replace(/^ws/, 'http')}/v1`, maxRetries: 0, timeout: 20_000 });
    const verbose = await client.audio.transcriptions.create({
      file: await toFile(await readFile(WAV), 'harvard-01.wav'),
      model: 'whisper-1',
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
    });
    assertTypes([{ value: verbose, type: 'Verbose' }]);
    assert.match(verbose.text, /canoe/);
    assert.equal(verbose.words?.map((w) => w.word).join(' '), verbose.text, 'one timed word for each word of the text');
    assert.ok(verbose.words.every((w) => w.end >= w.start && w.end <= verbose.duration));
    assert.equal(verbose.segments?.length, 1, 'one segment per 30 s window');
    const words = await client.audio.transcriptions.create({
      file: await toFile(await readFile(WAV), 'harvard-01.wav'),
      model: 'whisper-1',
      response_format: 'verbose_json',
      timestamp_granularities: ['word'],
    });
    assert.ok(words.words!.length > 0 && words.segments === undefined, 'words alone when only words are asked for');
  });

  it('Cartesia: every chunk carries step_time', async () => {
    const server = await testServer(QUICK);
    const request = {
      context_id: 'c1',
      model_id: 'sonic-3',
      transcript: 'The birch canoe slid on the smooth planks.',
      voice: { mode: 'id', id: 'v' },
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24_000 },
      continue: false,
    };
    const events = await converse(`${origin(server.url)}/tts/websocket`, [request], (seen) => seen.some((e) => e.type === 'done'));
    assertTypes(events.map((value) => ({ value, type: 'CartesiaMessage' })));
    assert.ok(events.some((e) => e.type === 'chunk'));
  });
});

/** The server's scheme, host and port, without its Realtime path. */
function origin(url: string): string {
  return new URL(url).origin.replace(/^http/, 'ws');
}

/** The first bundled sample as OpenAI's PCM16 at 24 kHz, then 1.5 s of silence for the VAD to end the turn. */
async function speech(): Promise<Buffer> {
  const audio = await resample(await decodeAudio(await readFile(WAV), WAV), 24_000);
  return Buffer.concat([toPcm16(audio.samples), Buffer.alloc(24_000 * 3)]);
}

/** `input_audio_buffer.append` events of 100 ms each. */
function appends(pcm: Buffer): object[] {
  const size = 4_800;
  const out: object[] = [];
  for (let at = 0; at < pcm.length; at += size) out.push({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + size).toString('base64') });
  return out;
}

/** Opens a WebSocket, sends `messages` (and what `reply` answers each event with), and collects what the server sends until `enough` says so (or 20 s pass). */
function converse(
  url: string,
  messages: object[],
  enough: (seen: Event[]) => boolean,
  reply: (event: Event, seen: Event[]) => object[] = () => [],
): Promise<Event[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const seen: Event[] = [];
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`the server did not finish in 20 s; it sent ${seen.map((e) => e.type).join(', ')}`));
    }, 20_000);
    ws.on('open', () => messages.forEach((m) => ws.send(JSON.stringify(m))));
    ws.on('message', (data) => {
      const event = JSON.parse(messageText(data)) as Event;
      seen.push(event);
      reply(event, seen).forEach((m) => ws.send(JSON.stringify(m)));
      if (!enough(seen)) return;
      clearTimeout(timer);
      ws.close();
      resolve(seen);
    });
    ws.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

function assertOneSession(events: Event[]): void {
  const ids = new Set(events.filter((e) => e.type.startsWith('session.')).map((e) => (e.session as { id: string }).id));
  assert.equal(ids.size, 1, `one session id for the whole session: ${[...ids].join(', ')}`);
}

/** Compiles each value against the types the preamble names. */
function assertTypes(checks: Array<{ value: unknown; type: string }>): void {
  assertSdkTypes(PREAMBLE, checks);
}
