import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
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

  it('counts the limit in base64 characters as sent, as before', () => {
    const keeper = new AudioKeeper(b64.length * 2);
    for (let k = 0; k < 3; k++) keeper.take(audioEvent('speech.audio.delta', pcm.length, b64), 0);
    const result = keeper.result()!;
    assert.equal(result.bytes, b64.length * 2);
    assert.equal(result.truncated, true);
    assert.equal(result.inputs[0]!.payloads.length, 2);
  });
});
