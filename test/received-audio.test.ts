import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { Base64Audio } from '../src/audio/base64-audio.js';
import { decodeReceivedAudio } from '../src/audio/received.js';
import { audioEvent } from '../src/dialects/tts-common.js';
import { AudioKeeper } from '../src/session/received-audio.js';

const pcm = readFileSync(`${BUNDLED_SAMPLES_DIR}/harvard-01.wav`).subarray(44, 44 + 4800);
const b64 = pcm.toString('base64');

describe('the audio kept for the after-run analysis', () => {
  it('keeps base64 audio as its bytes, off the JS heap, and takes it off the recorded event', () => {
    const keeper = new AudioKeeper(1024 * 1024);
    const recorded = keeper.take(audioEvent('speech.audio.delta', pcm.length, b64), 0);
    assert.ok(!('payload' in recorded));
    const kept = keeper.result()!.inputs[0]!.payloads[0]!;
    assert.ok(Buffer.isBuffer(kept), 'bytes, not a string');
    assert.deepEqual(kept, pcm);
  });

  it('keeps base64 found as bytes as a copy of them, off the frame, and decodes it only after the run', async () => {
    const frame = Buffer.from(`{"audio":"${b64}"}`);
    const keeper = new AudioKeeper(1024 * 1024);
    keeper.take(audioEvent('speech.audio.delta', pcm.length, new Base64Audio(frame.subarray(10, 10 + b64.length))), 0);
    frame.fill(0); // the socket's buffer is reused: what was kept must not be a view of it
    const kept = keeper.result()!;
    assert.equal(kept.bytes, b64.length, 'counted in base64 characters');
    const [payload] = kept.inputs[0]!.payloads;
    assert.ok(payload instanceof Base64Audio, 'still base64: not decoded while sessions stream');
    assert.deepEqual((await decodeReceivedAudio(kept.inputs[0]!.payloads, 24_000)).pcm, pcm);
  });

  it('counts the limit in base64 characters as sent, as before', () => {
    const keeper = new AudioKeeper(b64.length * 2);
    for (let k = 0; k < 3; k++) keeper.take(audioEvent('speech.audio.delta', pcm.length, b64), 0);
    const result = keeper.result()!;
    assert.equal(result.bytes, b64.length * 2);
    assert.equal(result.truncated, true);
    assert.equal(result.inputs[0]!.payloads.length, 2);
  });
});
