import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RealtimeClient, type RealtimeServerMessage } from '@speechmatics/real-time-client';
import { run } from '../src/run/run.js';
import { recordingRelay, testServer } from './helpers.js';
import { assertTypes, exchange, harvardPcm16, wsOrigin } from './sdk-types.js';

/**
 * Speechmatics' real-time v2 as `@speechmatics/real-time-client` 8.5 types it: every
 * message the built-in server sends is a `RealtimeServerMessage`, every message voxbench
 * sends a `RealtimeClientMessage`, and the SDK's own client (its key as `?jwt=`) gets
 * its transcripts and speakers from the built-in server.
 */
const PREAMBLE = `import type { RealtimeClientMessage, RealtimeServerMessage } from '@speechmatics/real-time-client';`;
const RAW = { type: 'raw', encoding: 'pcm_s16le', sample_rate: 16_000 } as const;

type Message = Record<string, unknown> & { message: string };

describe('speechmatics in the shapes of @speechmatics/real-time-client', () => {
  it('the built-in server: melia-1 accepted, GetSpeakers answered with SpeakersResult (now, and with final: true at the end), every message in the SDK types', async () => {
    const server = await testServer();
    const messages = await exchange<Message>(`${wsOrigin(server.url)}/v2`, [
      {
        message: 'StartRecognition',
        audio_format: RAW,
        transcription_config: { language: 'en', model: 'melia-1', enable_partials: true, diarization: 'speaker' },
      },
      await harvardPcm16(),
      { message: 'GetSpeakers' },
      { message: 'ForceEndOfUtterance' },
      { message: 'GetSpeakers', final: true },
      { message: 'EndOfStream', last_seq_no: 0 },
    ]);
    assertTypes(
      PREAMBLE,
      messages.map((value) => ({ value, type: 'RealtimeServerMessage' })),
    );
    const kinds = messages.map((m) => m.message);
    assert.ok(!kinds.includes('Error'), `no Error: ${JSON.stringify(messages.find((m) => m.message === 'Error'))}`);
    assert.ok(kinds.includes('AddTranscript') && kinds.includes('EndOfUtterance'));
    assert.equal(kinds.filter((k) => k === 'SpeakersResult').length, 2, 'one SpeakersResult per GetSpeakers');
    assert.equal(kinds.at(-2), 'SpeakersResult', 'the final one just before EndOfTranscript');
    assert.equal(kinds.at(-1), 'EndOfTranscript');
    const words = messages
      .filter((m) => m.message === 'AddTranscript')
      .flatMap((m) => (m.results as Array<{ alternatives: Array<{ speaker?: string }> }>).map((r) => r.alternatives[0]!.speaker));
    const labels = (messages.filter((m) => m.message === 'SpeakersResult').at(-1)!.speakers as Array<{ label: string }>).map((s) => s.label);
    assert.deepEqual(labels, [...new Set(words)].filter((s) => s !== 'UU').sort(), 'the speakers the words were labelled with');
  });

  it('the built-in server refuses a model its SDK does not name, and model and operating_point that disagree', async () => {
    const server = await testServer();
    for (const config of [{ model: 'turbo' }, { model: 'melia-1', operating_point: 'enhanced' }]) {
      const messages = await exchange<Message>(`${wsOrigin(server.url)}/v2`, [
        { message: 'StartRecognition', audio_format: RAW, transcription_config: { language: 'en', ...config } },
      ]);
      assert.equal(messages[0]!.message, 'Error', JSON.stringify(config));
    }
  });

  it("voxbench's client: its messages in the SDK types, the model as transcription_config.model", async () => {
    const server = await testServer();
    const relay = await recordingRelay(`${wsOrigin(server.url)}/v2`);
    const { report } = await run({
      protocol: 'speechmatics',
      target: relay.url,
      model: 'melia-1',
      updateAtMs: 300,
      turnsPerSession: 2,
      maxSessions: 1,
      pace: { kind: 'realtime', speed: 8 },
    });
    assert.equal(report.benchmarks[0]!.sessions[0]!.outcome.status, 'completed');
    assertTypes(PREAMBLE, [
      ...relay.sent.map((value) => ({ value, type: 'RealtimeClientMessage' })),
      ...relay.received.map((value) => ({ value, type: 'RealtimeServerMessage' })),
    ]);
    const start = relay.sent.find((m) => m.message === 'StartRecognition')!.transcription_config as Record<string, unknown>;
    assert.equal(start.model, 'melia-1');
    assert.equal(start.operating_point, undefined, 'the deprecated name is not sent');
    for (const message of ['StartRecognition', 'SetRecognitionConfig', 'ForceEndOfUtterance', 'EndOfStream'])
      assert.ok(
        relay.sent.some((m) => m.message === message),
        message,
      );
  });

  it("the SDK's own RealtimeClient, its key as ?jwt=, gets the transcript and the speakers from `serve --api-key`", async () => {
    const server = await testServer({ apiKey: 'secret' });
    const client = new RealtimeClient({ url: `${wsOrigin(server.url)}/v2`, connectionTimeout: 10_000 });
    const received: RealtimeServerMessage[] = [];
    client.addEventListener('receiveMessage', ({ data }) => void received.push(data));
    await client.start('secret', {
      audio_format: RAW,
      transcription_config: { language: 'en', model: 'melia-1', enable_partials: true, diarization: 'speaker' },
    });
    const pcm = await harvardPcm16();
    for (let at = 0; at < pcm.length; at += 3_200) client.sendAudio(pcm.subarray(at, at + 3_200));
    const speakers = await client.getSpeakers({ timeout: 10_000 });
    client.forceEndOfUtterance();
    await client.stopRecognition();
    assert.ok(Array.isArray(speakers.speakers));
    const text = received
      .flatMap((m) => (m.message === 'AddTranscript' ? [m.metadata.transcript] : []))
      .join(' ')
      .trim();
    assert.match(text, /birch canoe slid on the smooth planks/i);
    assert.ok(received.some((m) => m.message === 'EndOfTranscript'));
  });

  it('`serve --api-key` refuses the SDK a wrong ?jwt=', async () => {
    const server = await testServer({ apiKey: 'secret' });
    const client = new RealtimeClient({ url: `${wsOrigin(server.url)}/v2`, connectionTimeout: 5_000 });
    await assert.rejects(client.start('wrong', { audio_format: RAW, transcription_config: { language: 'en' } }));
  });
});
