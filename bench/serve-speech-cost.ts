/**
 * CPU time `voxbench serve` spends on one streamed speech request before it writes a
 * frame: rendering the text's audio, planning its chunks and base64-encoding them, each
 * request on its own (as before) and with the renderings and encodings shared between
 * requests (as now). Median of five runs of 200 requests for one bundled-length text.
 *
 *   node dist/bench/serve-speech-cost.js
 */
import { base64Of, DEFAULT_SPEECH_LATENCY, renderedSpeech, SpeechLatencyModel, synthesizeSpeech } from '../src/server/models/speech-synth.js';
import { median } from './figures.js';

const TEXT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.';
const REQUESTS = 200;
const model = new SpeechLatencyModel({ ...DEFAULT_SPEECH_LATENCY, capacity: 1e5 });
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const ways = [
  ['each request on its own', synthesizeSpeech, (piece: Buffer) => piece.toString('base64')],
  ['shared renderings and encodings', renderedSpeech, base64Of],
] as const;
for (const [name, render, encode] of ways) {
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const started = cpuMs();
    for (let i = 0; i < REQUESTS; i++) for (const chunk of model.plan(render(TEXT, 24_000), 24_000, 1).chunks) encode(chunk.pcm);
    runs.push((cpuMs() - started) / REQUESTS);
  }
  process.stdout.write(`${name}: ${median(runs).toFixed(3)} CPU ms per request\n`);
}
