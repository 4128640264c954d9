import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AudioFormat, CommitStrategy, ElevenLabsClient, RealtimeEvents } from '@elevenlabs/elevenlabs-js';
import { run } from '../src/run/run.js';
import { recordingRelay, testServer } from './helpers.js';
import { assertTypes, exchange, harvardPcm16, wsOrigin } from './sdk-types.js';

/**
 * ElevenLabs Scribe v2 Realtime as `@elevenlabs/elevenlabs-js` 2.73 types it
 * (`wrapper/realtime/connection`): every message the built-in server sends is one of its
 * `WebSocketMessage`s, every message voxbench sends an `InputAudioChunk`, and the SDK's
 * own realtime client (with a token, sent as `?token=`) gets its committed transcript
 * from the built-in server. JSON carries an enum's value, so `Wire` reads the SDK's
 * `AudioFormat` and `CommitStrategy` enums as their string values.
 */
const PREAMBLE = `
import type { InputAudioChunk, WebSocketMessage } from '@elevenlabs/elevenlabs-js/wrapper/realtime/connection.js';
import type { AudioFormat, CommitStrategy } from '@elevenlabs/elevenlabs-js/wrapper/realtime/scribe.js';
type Wire<T> = T extends AudioFormat | CommitStrategy ? \`\${T}\` : T extends Array<infer E> ? Array<Wire<E>> : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;
type Received = Wire<WebSocketMessage>;
type Sent = InputAudioChunk;
`;
const PATH = '/v1/speech-to-text/realtime';

type Message = Record<string, unknown> & { message_type: string };

const chunk = (pcm: Buffer): string =>
  JSON.stringify({ message_type: 'input_audio_chunk', audio_base_64: pcm.toString('base64'), commit: false, sample_rate: 16_000 });

describe('elevenlabs-scribe in the shapes of @elevenlabs/elevenlabs-js', () => {
  it('the built-in server: session_started, partials, the committed transcript with its timestamps and an input error, in the SDK types', async () => {
    const server = await testServer();
    const query = 'model_id=scribe_v2_realtime&audio_format=pcm_16000&commit_strategy=manual&include_timestamps=true&language_code=en';
    const messages = await exchange<Message>(
      `${wsOrigin(server.url)}${PATH}?${query}`,
      [await harvardPcm16(), { message_type: 'input_audio_chunk', audio_base_64: '', commit: true, sample_rate: 16_000 }, { message_type: 'nonsense' }],
      {
        audio: chunk,
        enough: (seen) => seen.some((m) => m.message_type === 'committed_transcript_with_timestamps') && seen.some((m) => m.message_type === 'input_error'),
      },
    );
    assertTypes(
      PREAMBLE,
      messages.map((value) => ({ value, type: 'Received' })),
    );
    const kinds = new Set(messages.map((m) => m.message_type));
    for (const kind of ['session_started', 'partial_transcript', 'committed_transcript', 'committed_transcript_with_timestamps', 'input_error'])
      assert.ok(kinds.has(kind), kind);
    assert.match(String(messages.find((m) => m.message_type === 'committed_transcript')!.text), /birch canoe slid on the smooth planks/i);
  });

  it("voxbench's client: every message it sends is an InputAudioChunk", async () => {
    const server = await testServer();
    const relay = await recordingRelay(`${wsOrigin(server.url)}${PATH}`);
    const { report } = await run({
      protocol: 'elevenlabs-scribe',
      model: 'scribe_v2_realtime',
      target: relay.url,
      updateAtMs: 300,
      turnsPerSession: 2,
      maxSessions: 1,
      pace: { kind: 'realtime', speed: 8 },
    });
    assert.equal(report.benchmarks[0]!.sessions[0]!.outcome.status, 'completed');
    assertTypes(PREAMBLE, [...relay.sent.map((value) => ({ value, type: 'Sent' })), ...relay.received.map((value) => ({ value, type: 'Received' }))]);
    assert.ok(relay.sent.some((m) => m.commit === true));
  });

  it("the SDK's own realtime client, with a token (?token=), gets the committed transcript from `serve --api-key`; a wrong token is refused", async () => {
    const server = await testServer({ apiKey: 'secret' });
    const client = new ElevenLabsClient({ apiKey: 'unused', baseUrl: `http://${new URL(server.url).host}` });
    const options = { modelId: 'scribe_v2_realtime', audioFormat: AudioFormat.PCM_16000, sampleRate: 16_000, commitStrategy: CommitStrategy.MANUAL };
    const connection = await client.speechToText.realtime.connect({ ...options, token: 'secret' });
    const committed = new Promise<string>((resolve, reject) => {
      connection.on(RealtimeEvents.COMMITTED_TRANSCRIPT, (m) => resolve(m.text));
      connection.on(RealtimeEvents.ERROR, (e) => reject(e instanceof Error ? e : new Error(JSON.stringify(e))));
    });
    await new Promise<void>((resolve) => connection.on(RealtimeEvents.SESSION_STARTED, () => resolve()));
    const pcm = await harvardPcm16();
    for (let at = 0; at < pcm.length; at += 3_200) connection.send({ audioBase64: pcm.subarray(at, at + 3_200).toString('base64') });
    connection.commit();
    assert.match(await committed, /birch canoe slid on the smooth planks/i);
    connection.close();

    const refused = await client.speechToText.realtime.connect({ ...options, token: 'wrong' });
    const error = await new Promise<unknown>((resolve) => refused.on(RealtimeEvents.ERROR, resolve));
    assert.match(String(error instanceof Error ? error.message : JSON.stringify(error)), /401/);
    refused.close();
  });
});
