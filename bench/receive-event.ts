/**
 * CPU time per received speech event on the client's receive path, for the dialects the
 * speech-out scale bench measures: the frame as the wire carries it (100 ms of 24 kHz
 * PCM16, base64, the bundled sample's audio) is stamped, parsed by the dialect's codec,
 * its payload kept, the event bounded and recorded as the runners do, and shown to the
 * dialect's policy; `analyse` is the after-run audio analysis (decode the kept base64,
 * speech levels) per event. CPU time (process.cpuUsage), the median of repeated runs, so
 * a loaded machine skews it far less than wall time; compare before/after in one sitting.
 *
 *   npm run bench:receive            # prints one row per dialect
 *   node --cpu-prof dist/bench/receive-event.js   # where the time goes
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { decodeReceivedAudio, speechLevels } from '../src/audio/received.js';
import type { CompletionPolicy, DecodedEvent } from '../src/dialects/dialect.js';
import { elevenlabsDialect } from '../src/dialects/elevenlabs/client.js';
import { vllmOmniDuplexDialect } from '../src/dialects/vllm-omni-duplex/client.js';
import { vllmOmniSpeechDialect } from '../src/dialects/vllm-omni-speech/client.js';
import { vllmOmniSpeechWsDialect } from '../src/dialects/vllm-omni-speech-ws/client.js';
import { monotonicClock } from '../src/runtime/clock.js';
import { TextBudget } from '../src/session/bounds.js';
import { AudioKeeper } from '../src/session/received-audio.js';
import { CappedReceived } from '../src/session/session-caps.js';
import type { ReceivedFrame } from '../src/timeline/types.js';
import { median, tableRow } from './figures.js';

/** Events per session (a 40 s answer at 100 ms), sessions per run, runs. */
const EVENTS = 400;
const SESSIONS = Number(process.argv[2] ?? 50);
const RUNS = Number(process.argv[3] ?? 7);
const CHUNK_BYTES = 4800; // 100 ms of 24 kHz PCM16

const wav = readFileSync(fileURLToPath(new URL('../../samples/harvard-01.wav', import.meta.url)));
/** The sample's PCM (after its 44-byte header), cycled into chunks: the audio analysed is speech. */
const chunks = Array.from({ length: 32 }, (_, k) => {
  const start = 44 + ((k * CHUNK_BYTES) % (wav.length - 44 - CHUNK_BYTES));
  return wav.subarray(start, start + CHUNK_BYTES).toString('base64');
});

interface Case {
  name: string;
  /** One session's receive step: the wire frame of chunk k in, events out. */
  session(): { receive(k: number): DecodedEvent[]; end(): DecodedEvent[]; policy: CompletionPolicy };
  keepsAudio: boolean;
}

const sseFrame = (b64: string): Buffer => Buffer.from(`data: ${JSON.stringify({ type: 'speech.audio.delta', audio: b64 })}\n\n`);
const sseFrames = chunks.map(sseFrame);
/** vllm-omni-speech-ws sends its audio as binary frames of PCM16. */
const binaryFrames = chunks.map((b64) => Buffer.from(b64, 'base64'));
const elevenFrames = chunks.map((b64) => Buffer.from(JSON.stringify({ audio: b64, isFinal: null, normalizedAlignment: null, alignment: null })));
const duplexFrames = chunks.map((b64, k) =>
  Buffer.from(JSON.stringify({ type: 'response.output_audio.delta', response_id: 'resp_1', item_id: 'item_1', delta: b64, server_event_seq: k })),
);

const CASES: Case[] = [
  {
    name: 'vllm-omni-speech (SSE)',
    keepsAudio: true,
    session() {
      const dialect = vllmOmniSpeechDialect({ model: 'm', responseFormat: 'pcm', streamFormat: 'sse', outputRate: 24_000 });
      const decoder = dialect.bodyDecoder(200, 'text/event-stream');
      return { receive: (k) => decoder.chunk(sseFrames[k % sseFrames.length]!), end: () => decoder.end(), policy: dialect.policy() };
    },
  },
  {
    name: 'vllm-omni-speech-ws (binary PCM)',
    keepsAudio: true,
    session() {
      const dialect = vllmOmniSpeechWsDialect({ model: 'm' });
      return { receive: (k) => dialect.decode(binaryFrames[k % binaryFrames.length]!, true), end: () => [], policy: dialect.policy() };
    },
  },
  {
    name: 'elevenlabs (WebSocket TTS)',
    keepsAudio: true,
    session() {
      const dialect = elevenlabsDialect({ model: 'eleven_flash_v2_5' });
      return { receive: (k) => dialect.decode(elevenFrames[k % elevenFrames.length]!, false), end: () => [], policy: dialect.policy() };
    },
  },
  {
    name: 'vllm-omni-duplex (answer audio)',
    keepsAudio: false,
    session() {
      const dialect = vllmOmniDuplexDialect({ model: 'm', turnDetection: { type: 'none' } });
      return { receive: (k) => dialect.decode(duplexFrames[k % duplexFrames.length]!, false), end: () => [], policy: dialect.policy() };
    },
  },
];

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** One run: SESSIONS sessions of EVENTS events each, received (stamp, decode, keep, record, observe) then analysed. */
async function once(c: Case): Promise<{ receiveUs: number; analyseUs: number }> {
  const clock = monotonicClock();
  const kept: AudioKeeper[] = [];
  const started = cpuMs();
  for (let s = 0; s < SESSIONS; s++) {
    const codec = c.session();
    const { policy } = codec;
    const received: ReceivedFrame[] = [];
    const capped = new CappedReceived(received);
    const text = new TextBudget();
    const audio = new AudioKeeper(c.keepsAudio ? 16 * 1024 * 1024 : 0);
    const record = (t: number, events: DecodedEvent[]): void => {
      for (const event of events) {
        const frame = { t, input: 0, ...text.bound(audio.take(event, 0)) };
        capped.record(frame, event.text);
        policy.observe(frame);
      }
    };
    for (let k = 0; k < EVENTS; k++) record(clock.now(), codec.receive(k));
    record(clock.now(), codec.end());
    kept.push(audio);
  }
  const received = cpuMs();
  for (const audio of kept) {
    const payloads = audio.result()?.inputs[0]?.payloads;
    if (!payloads) continue;
    const speech = await decodeReceivedAudio(payloads, 24_000);
    speechLevels(speech.pcm, speech.sampleRate);
  }
  const analysed = cpuMs();
  const events = SESSIONS * EVENTS;
  return { receiveUs: ((received - started) * 1000) / events, analyseUs: ((analysed - received) * 1000) / events };
}

process.stdout.write(
  `${SESSIONS} sessions × ${EVENTS} events (100 ms of 24 kHz PCM16 each, base64), median of ${RUNS} runs, CPU µs per received event\n\n` +
    '| dialect | receive (stamp, parse, keep, record) µs | after-run analysis µs | spread of receive (min–max) µs |\n|---|---:|---:|---:|\n',
);
for (const c of CASES) {
  await once(c); // warm the JIT
  const runs = [];
  for (let r = 0; r < RUNS; r++) runs.push(await once(c));
  const receive = runs.map((r) => r.receiveUs);
  process.stdout.write(
    `${tableRow([
      c.name,
      median(receive).toFixed(2),
      c.keepsAudio ? median(runs.map((r) => r.analyseUs)).toFixed(2) : 'not kept',
      `${Math.min(...receive).toFixed(2)}–${Math.max(...receive).toFixed(2)}`,
    ])}\n`,
  );
}
