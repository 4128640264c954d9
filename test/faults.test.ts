import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseFaults } from '../src/cli/faults.js';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { loadFolderDataset } from '../src/data/load.js';
import { seededRandom } from '../src/util/random.js';
import { renderSummary } from '../src/report/console.js';
import { renderCsv } from '../src/report/csv.js';
import { renderHtml } from '../src/report/html/index.js';
import { readReport } from '../src/report/recompute.js';
import type { HeldReport } from '../src/report/schema.js';
import { run, UsageError, type RunOptions } from '../src/run/run.js';
import { FAULT_CATALOGUE, MARKUP, MARKUP_CODE, parseFaultScenario } from '../src/server/faults/faults.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { DEFAULT_MODEL, OPENAI_MODELS, type ServerOptions } from '../src/server/server.js';
import { startServer } from '../src/simulator/start.js';
import type { Failure, SessionRecord } from '../src/timeline/types.js';
import { CLI, runNode, selfSignedCert, tempDir } from './helpers.js';
import { DEFAULT_VLLM_OMNI_TTS_MODEL } from '../src/dialects/vllm-omni-speech/spec.js';

const { samples } = await loadFolderDataset(BUNDLED_SAMPLES_DIR);
const TLS = await selfSignedCert();
/** A short final-transcript limit, for faults where the final never comes. */
const FINAL = { timeouts: { finalMs: 300 } };
const VAD = { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 } as const;
/** A server that answers at once, for many short sessions. */
const INSTANT = { ...DEFAULT_LATENCY, baseDelayMs: 0, jitterMs: 0, perWordMs: 0, finalizeMs: 0 };
const STACK = /\n\s+at \S/;

interface Row {
  fault: string;
  protocol?: 'openai' | 'vllm-omni-duplex' | 'openai-realtime' | 'vllm-omni-speech' | 'livepeer';
  /** Batch transcription (vllm-transcriptions) against the server's HTTP endpoint. */
  batch?: true;
  /** Over `wss://`: faults below the WebSocket layer must reach through TLS. */
  wss?: true;
  run?: Partial<RunOptions>;
  server?: Partial<ServerOptions>;
  /** Every session's outcome: completed, or a failure with these fields. */
  expect: 'completed' | Partial<Failure>;
  /** What else holds. */
  check?: (report: HeldReport) => void;
}

/** Runs two sessions at once against a server with the row's fault, and checks what every row must hold. */
async function runFault(row: Row): Promise<HeldReport> {
  const server = await startServer({ port: 0, references: samples, faults: [parseFaultScenario(row.fault)], ...(row.wss ? { tls: TLS } : {}), ...row.server });
  try {
    const { report, reportPath } = await run({
      // Livepeer's app opens its session over HTTP: its target is the origin too.
      target: row.batch || row.protocol === 'vllm-omni-speech' || row.protocol === 'livepeer' ? server.origin : server.url,
      protocol: row.batch ? 'vllm-transcriptions' : (row.protocol ?? 'vllm'),
      model: row.protocol
        ? {
            openai: OPENAI_MODELS[0],
            'vllm-omni-duplex': 'openbmb/MiniCPM-o-4_5',
            'openai-realtime': 'gpt-realtime',
            'vllm-omni-speech': DEFAULT_VLLM_OMNI_TTS_MODEL,
            livepeer: DEFAULT_MODEL,
          }[row.protocol]
        : DEFAULT_MODEL,
      profile: { kind: 'concurrent', concurrency: 2 },
      maxSessions: 2,
      // An HTTP dialect sends each input in one request: it has no pace.
      ...(row.batch || row.protocol === 'vllm-omni-speech' ? {} : { pace: { kind: 'realtime', speed: 8 } as const }),
      outputDir: await tempDir(),
      ...(row.wss ? { tls: { insecure: true } } : {}),
      ...row.run,
    });
    const { summary } = report.benchmarks[0]!;
    const { total, completed, failed, incomplete } = summary.sessions;
    assert.equal(total, 2);
    assert.equal(completed + failed + incomplete, total, 'the counts add up');
    assert.equal(
      summary.failures.reduce((n, f) => n + f.count, 0),
      failed,
      'every failure is in a class',
    );
    const back = await readReport(reportPath!);
    assert.deepEqual(back.benchmarks[0]!.summary, summary, 'the report reads back to the same figures');
    assert.doesNotMatch(renderSummary(report), STACK, 'no stack trace in the summary');
    return report;
  } finally {
    await server.close();
  }
}

function failureOf(session: SessionRecord): Failure {
  assert.equal(session.outcome.status, 'failed', JSON.stringify(session.outcome));
  return (session.outcome as { failure: Failure }).failure;
}

/** Each turn's word error rate against its reference. */
function wers(report: HeldReport): number[] {
  return report.benchmarks[0]!.sessions.flatMap((s) => s.metrics.inputs.map((m) => m.wer!));
}

const everyTurnRight = (report: HeldReport): void =>
  assert.deepEqual(
    wers(report),
    wers(report).map(() => 0),
  );
const closedByClient = (report: HeldReport): void => {
  for (const s of report.benchmarks[0]!.sessions) assert.equal(s.timeline.transport.kind === 'websocket' && s.timeline.transport.close?.by, 'client');
};
// eslint-disable-next-line no-control-regex -- the escape and bell characters are what the summary must not hold
const noEscapes = (report: HeldReport): void => assert.doesNotMatch(renderSummary(report), /[\u001b\u0007]/);

const ROWS: Row[] = [
  { fault: 'upgrade', expect: { class: 'upgrade_status', stage: 'connect', httpStatus: 503 } },
  { fault: 'upgrade:429', protocol: 'openai', expect: { class: 'upgrade_status', stage: 'connect', httpStatus: 429 } },
  { fault: 'upgrade-status=502', expect: { class: 'upgrade_status', stage: 'connect', httpStatus: 502 } },
  { fault: 'slow-accept:2000', run: { timeouts: { connectMs: 300 } }, expect: { class: 'timeout', stage: 'connect' } },
  { fault: 'silent', run: { timeouts: { readyMs: 300 } }, expect: { class: 'timeout', stage: 'ready' } },
  { fault: 'silent@streaming', run: FINAL, expect: { class: 'timeout', stage: 'final' } },
  { fault: 'silent@final', protocol: 'openai', run: FINAL, expect: { class: 'timeout', stage: 'final' } },
  // Paced audio fits in the socket buffers, so what the client sees is a final that never comes.
  { fault: 'stall-reads', run: FINAL, expect: { class: 'timeout', stage: 'final' } },
  {
    fault: 'stall-reads',
    run: { ...FINAL, pace: { kind: 'none' } },
    server: { progressAcks: true },
    expect: { class: 'timeout', stage: 'streaming', message: 'no acknowledgement of the audio sent for 300 ms' },
  },
  { fault: 'close', expect: { class: 'abnormal_close', stage: 'streaming', closeCode: 1011 } },
  {
    fault: 'close=1011',
    protocol: 'openai',
    expect: { class: 'abnormal_close', stage: 'streaming', closeCode: 1011, message: 'connection closed abnormally with code 1011 (injected fault)' },
  },
  { fault: 'close:1000@open', expect: { class: 'server_closed', stage: 'ready', closeCode: 1000 } },
  { fault: 'close:1005@final', expect: { class: 'server_closed', stage: 'final', closeCode: 1005 } },
  { fault: 'close:1006', expect: { class: 'abnormal_close', stage: 'streaming', closeCode: 1006 } },
  { fault: 'close:4000@final', protocol: 'openai', expect: { class: 'abnormal_close', stage: 'final', closeCode: 4000 } },
  { fault: 'close:1004', expect: { class: 'protocol_violation', stage: 'streaming', message: 'Invalid WebSocket frame: invalid status code 1004' } },
  { fault: 'close:2999@final', protocol: 'openai', expect: { class: 'protocol_violation', stage: 'final' } },
  { fault: 'close:1015', wss: true, expect: { class: 'protocol_violation', stage: 'streaming', message: 'Invalid WebSocket frame: invalid status code 1015' } },
  { fault: 'tcp-reset@open', protocol: 'openai', expect: { class: 'abnormal_close', stage: 'ready', closeCode: 1006 } },
  { fault: 'tcp-reset@final', expect: { class: 'abnormal_close', stage: 'final', closeCode: 1006 } },
  { fault: 'tcp-reset', wss: true, expect: { class: 'abnormal_close', stage: 'streaming', closeCode: 1006 } },
  { fault: 'error-event', expect: { class: 'server_error', stage: 'streaming', code: 'server_error', message: 'server error server_error: injected fault' } },
  { fault: 'error-event:rate_limit_exceeded@open', protocol: 'openai', expect: { class: 'server_error', stage: 'ready', code: 'rate_limit_exceeded' } },
  { fault: 'malformed-json', expect: { class: 'protocol_violation', stage: 'streaming' } },
  {
    fault: 'binary-frame@final',
    protocol: 'openai',
    expect: { class: 'protocol_violation', stage: 'final', message: 'server sent a binary frame (4 bytes); openai speaks JSON text frames' },
  },
  {
    fault: 'oversized-frame',
    expect: {
      class: 'answer_too_large',
      stage: 'streaming',
      message: 'server sent a WebSocket message of 134217728 bytes (128.0 MiB), over the limit of 16777216 bytes (16.0 MiB)',
    },
    // The client refuses the frame and closes with 1009 itself.
    check: (report) => {
      for (const s of report.benchmarks[0]!.sessions)
        assert.deepEqual(
          s.timeline.transport.kind === 'websocket' &&
            s.timeline.transport.close && { code: s.timeline.transport.close.code, by: s.timeline.transport.close.by },
          { code: 1009, by: 'client' },
        );
    },
  },
  // Under ws's own 100 MiB limit, over the client's 16 MiB: refused on the frame's header, never buffered (a 90 MB frame took the client to 470 MB).
  {
    fault: 'oversized-frame:20000000@final',
    protocol: 'openai',
    expect: {
      class: 'answer_too_large',
      stage: 'final',
      message: 'server sent a WebSocket message of 20000000 bytes (19.1 MiB), over the limit of 16777216 bytes (16.0 MiB)',
    },
  },
  {
    fault: 'oversized-frame:1048576',
    protocol: 'openai',
    wss: true,
    // Taken whole, but longer than the text an event keeps: a cut text is never scored.
    expect: { class: 'answer_too_large', stage: 'final' },
    check: (report) => {
      for (const s of report.benchmarks[0]!.sessions) assert.ok(s.timeline.counters.bytesReceived > 1024 * 1024, 'the whole frame arrived');
    },
  },
  // A flood of N given mid-stream (the default, 10,000, at the open: next row); five batches of the server's 1,000 are flood enough to skip.
  {
    fault: 'flood:5000',
    expect: 'completed',
    check: (report) => {
      for (const s of report.benchmarks[0]!.sessions) assert.ok(s.timeline.counters.framesReceived > 5000);
      everyTurnRight(report);
    },
  },
  {
    fault: 'flood@open',
    protocol: 'openai',
    expect: 'completed',
    check: (report) => {
      for (const s of report.benchmarks[0]!.sessions) assert.ok(s.timeline.counters.framesReceived > 10_000);
    },
  },
  {
    fault: 'ping-flood',
    expect: { class: 'protocol_violation' },
    // The client gives up with 60 pongs owed: its own close, not the server's. The server floods at the first
    // append; a client the loaded machine kept from running sends its overdue chunks before it reads the pings,
    // so which stage it fails in depends on the load: the stage must be the one its own frames put it in.
    check: (report) => {
      closedByClient(report);
      for (const s of report.benchmarks[0]!.sessions) {
        const ended = s.timeline.sent.some((f) => f.kind === 'control' && f.control === 'input_end');
        assert.equal(failureOf(s).stage, ended ? 'final' : 'streaming', 'the stage of the last frame the client sent');
      }
    },
  },
  { fault: 'never-finalize', run: FINAL, expect: { class: 'timeout', stage: 'final', message: 'timed out after 300 ms waiting for the final transcript' } },
  // A second final for a turn, and a final before the commit, are anomalies: each turn keeps the final that answers its commit.
  { fault: 'duplicate-final', expect: 'completed', check: everyTurnRight },
  { fault: 'duplicate-final', protocol: 'openai', expect: 'completed', check: everyTurnRight },
  { fault: 'early-final', expect: 'completed', check: everyTurnRight },
  // OpenAI without server VAD transcribes after the commit, so the early final answers it: it is the turn's final, and
  // its WER shows what was lost (the session is done before the full final, a duplicate of the item, arrives).
  {
    fault: 'early-final',
    protocol: 'openai',
    expect: 'completed',
    check: (report) => {
      for (const s of report.benchmarks[0]!.sessions) assert.ok(s.metrics.inputs[0]!.wer! > 0, 'the early, partial final is what the turn got');
    },
  },
  {
    fault: 'out-of-order-finals',
    protocol: 'openai',
    // Unpaced, every item is committed before the first final is due.
    run: { pace: { kind: 'none' }, turnDetection: VAD, turnsPerSession: 3, padding: { gapMs: 700, trailMs: 700 } },
    server: { latency: { ...DEFAULT_LATENCY, finalizeMs: 500 } },
    expect: 'completed',
    check: (report) => {
      for (const s of report.benchmarks[0]!.sessions) {
        const order = (kind: string): string[] => s.timeline.received.filter((e) => e.kind === kind).map((e) => e.itemId!);
        assert.notDeepEqual(order('text_final'), order('committed'), 'the finals came out of order');
      }
      everyTurnRight(report);
    },
  },
  // Speech to speech: an answer that never comes, one cut off, acknowledgements lost, a fatal resume error.
  {
    fault: 'never-respond',
    protocol: 'vllm-omni-duplex',
    run: FINAL,
    expect: { class: 'timeout', stage: 'final', message: 'timed out after 300 ms waiting for the answer' },
  },
  { fault: 'cut-mid-response', protocol: 'openai-realtime', expect: { class: 'abnormal_close', stage: 'final', closeCode: 1011 } },
  { fault: 'drop-acks', protocol: 'vllm-omni-duplex', expect: { class: 'server_error', stage: 'final', code: 'event_ack_timeout' } },
  // Livepeer's app: a Trickle segment its reader never reads goes unacknowledged, which is how the client knows it was lost.
  { fault: 'drop-segment', protocol: 'livepeer', run: FINAL, expect: { class: 'audio_lost', stage: 'streaming' } },
  // An app that reads but never acknowledges is named for that, not for a loss.
  { fault: 'no-progress', protocol: 'livepeer', run: FINAL, expect: { class: 'no_backpressure', stage: 'streaming' } },
  // One after the other, each session ends its channel before the next opens: the app never hands out one in use (two at once: livepeer.test.ts).
  {
    fault: 'shared-session',
    protocol: 'livepeer',
    run: { profile: { kind: 'concurrent', concurrency: 1 } },
    expect: 'completed',
    check: (report) => {
      for (const s of report.benchmarks[0]!.sessions) assert.equal(s.metrics.inputs[0]?.wer, 0, 'each scored on its own audio alone');
    },
  },
  {
    fault: 'error-event:session_resume_expired',
    protocol: 'vllm-omni-duplex',
    expect: { class: 'server_error', stage: 'streaming', code: 'session_resume_expired' },
  },
  {
    fault: 'markup-strings',
    protocol: 'openai',
    expect: 'completed',
    check: (report) => {
      for (const s of report.benchmarks[0]!.sessions) assert.ok(s.timeline.received.find((e) => e.kind === 'text_final')!.text!.startsWith(MARKUP));
      noEscapes(report);
      assert.match(renderCsv(report)['turns.csv']!, /,"'=HYPERLINK/, 'the formula is defused in the CSV');
      assert.ok(!renderHtml(report).includes('<img src=x'), 'the HTML is escaped');
    },
  },
  { fault: 'markup-strings', expect: 'completed', check: noEscapes },
  { fault: 'status', batch: true, expect: { class: 'http_status', stage: 'status', httpStatus: 500, code: '500' } },
  { fault: 'status:413', batch: true, expect: { class: 'http_status', stage: 'status', httpStatus: 413, code: '413' } },
  { fault: 'cut-stream', batch: true, run: { transcription: { stream: true } }, expect: { class: 'stream_cut', stage: 'body' } },
  { fault: 'malformed-json', batch: true, expect: { class: 'protocol_violation', stage: 'body' } },
  {
    fault: 'error-event:overloaded',
    batch: true,
    run: { transcription: { stream: true } },
    expect: { class: 'server_error', stage: 'body', code: 'overloaded' },
  },
  // Speech generation's own faults (more in test/speech-http.test.ts).
  { fault: 'stall-after:200,300', protocol: 'vllm-omni-speech', expect: 'completed' },
  { fault: 'slow-chunks:2', protocol: 'vllm-omni-speech', expect: 'completed' },
  { fault: 'cut-stream:300', protocol: 'vllm-omni-speech', expect: { class: 'stream_cut', stage: 'body' } },
  {
    fault: 'markup-strings+error-event',
    expect: { class: 'server_error', stage: 'streaming', code: `server_error${MARKUP_CODE}` },
    check: noEscapes,
  },
  {
    fault: 'markup-strings+close:4001@final',
    protocol: 'openai',
    expect: { class: 'abnormal_close', stage: 'final', closeCode: 4001, message: `connection closed abnormally with code 4001 (${MARKUP})` },
    check: noEscapes,
  },
];

// Rows run a few at once: each has its own server and output folder, and most of a row's time is spent waiting (its pace, its timeouts).
describe('fault matrix: every fault of voxbench serve, and how voxbench classifies it', { concurrency: 4 }, () => {
  it('covers every fault in the catalogue', () => {
    const covered = new Set(ROWS.flatMap((row) => parseFaultScenario(row.fault).map((f) => f.name)));
    assert.deepEqual([...covered].sort(), Object.keys(FAULT_CATALOGUE).sort());
  });

  for (const row of ROWS) {
    const outcome = row.expect === 'completed' ? 'completed' : `${row.expect.class ?? 'failed'} at ${row.expect.stage}`;
    it(`${row.fault} (${row.protocol ?? 'vllm'}${row.wss ? ', wss' : ''}): ${outcome}`, async () => {
      const report = await runFault(row);
      for (const session of report.benchmarks[0]!.sessions) {
        if (row.expect === 'completed') {
          assert.deepEqual(session.outcome, { status: 'completed' });
          continue;
        }
        const failure = failureOf(session);
        const fields = Object.keys(row.expect) as (keyof Failure)[];
        assert.deepEqual(Object.fromEntries(fields.map((k) => [k, failure[k]])), row.expect);
        assert.doesNotMatch(failure.message, STACK);
      }
      row.check?.(report);
    });
  }

  it('stall-reads, unpaced, with more audio than the socket buffers hold: timeout at streaming', async () => {
    const data = await tempDir();
    await writeFile(join(data, 'tone.wav'), toneWav(200));
    const server = await startServer({ port: 0, faults: [parseFaultScenario('stall-reads')] });
    try {
      const { report } = await run({
        target: server.url,
        model: DEFAULT_MODEL,
        data,
        maxSessions: 1,
        pace: { kind: 'none' },
        maxSeconds: 3,
        timeouts: { finalMs: 1000 },
      });
      const failure = failureOf(report.benchmarks[0]!.sessions[0]!);
      assert.deepEqual([failure.class, failure.stage], ['timeout', 'streaming']);
    } finally {
      await server.close();
    }
  });
});

describe('--fault-rate', () => {
  it('faults the sessions its seeded draw picks, spread over the scenarios', async () => {
    const scenarios = ['upgrade:503', 'close:4001@open'];
    const rate = 0.4;
    const total = 40;
    const server = await startServer({ port: 0, references: samples, latency: INSTANT, faults: scenarios.map(parseFaultScenario), faultRate: rate });
    try {
      const { report } = await run({
        target: server.url,
        model: DEFAULT_MODEL,
        profile: { kind: 'concurrent', concurrency: 4 },
        maxSessions: total,
        pace: { kind: 'none' },
      });
      // The documented draw: u < rate faults a session, with scenario floor(u / rate × 2).
      const draw = seededRandom(DEFAULT_LATENCY.seed);
      const expected = { completed: 0, upgrade_status: 0, abnormal_close: 0 };
      for (let i = 0; i < total; i++) {
        const u = draw();
        if (u >= rate) expected.completed++;
        else if (u < rate / 2) expected.upgrade_status++;
        else expected.abnormal_close++;
      }
      const { sessions, failures } = report.benchmarks[0]!.summary;
      const actual = { completed: sessions.completed, upgrade_status: 0, abnormal_close: 0 };
      for (const f of failures) actual[f.class as 'upgrade_status' | 'abnormal_close'] += f.count;
      assert.deepEqual(actual, expected);
      assert.ok(expected.upgrade_status > 0 && expected.abnormal_close > 0 && expected.completed > 0, 'a mix');
      assert.equal(sessions.completed + sessions.failed + sessions.incomplete, total);
    } finally {
      await server.close();
    }
  });
});

describe('voxbench serve --fault', () => {
  it('documents every fault in serve --help and docs/simulated-server.md', async () => {
    const help = (await runNode([CLI, 'serve', '--help'])).stdout;
    const readme = await readFile(new URL('../../docs/simulated-server.md', import.meta.url), 'utf8');
    for (const { usage } of Object.values(FAULT_CATALOGUE)) {
      assert.ok(help.includes(usage), `${usage} is missing from serve --help`);
      assert.ok(readme.includes(`\`${usage}\``), `${usage} is missing from docs/simulated-server.md`);
    }
  });

  it('refuses a bad fault with one line that says why, and exit code 2', async () => {
    for (const [fault, message] of [
      ['nope', /^--fault nope: unknown fault "nope"; faults: upgrade, slow-accept, /],
      ['close:99', /^--fault close:99: close\[:CODE\]\[@POINT\]: expected a whole number from 1000 to 4999, not "99"$/],
      ['silent@later', /^--fault silent@later: silent\[@POINT\]: POINT is one of open, streaming, final$/],
      ['never-finalize:1', /^--fault never-finalize:1: never-finalize takes no argument$/],
      ['upgrade+flood:x', /^--fault upgrade\+flood:x: flood\[:N\]\[@POINT\]: expected a whole number from 1 to 10000000, not "x"$/],
    ] as const) {
      assert.throws(
        () => parseFaults([fault]),
        (err: Error) => err instanceof UsageError && message.test(err.message),
      );
    }
    const result = await runNode([CLI, 'serve', '--port', '0', '--fault', 'close:99']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr, 'voxbench: error: --fault close:99: close[:CODE][@POINT]: expected a whole number from 1000 to 4999, not "99"\n');
  });

  it('serves a mix of faults that voxbench run reports without a stack trace', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--fault', 'upgrade:503', '--fault', 'malformed-json@open', '--fault-rate', '0.5'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve) => child.stdout.once('data', (d) => resolve(String(d))));
      assert.match(line, /; faults upgrade:503, malformed-json@open in 50% of sessions\)$/m);
      const target = /listening on (\S+)/.exec(line)![1]!;
      const result = await runNode([
        CLI,
        'run',
        '--target',
        target,
        '--model',
        DEFAULT_MODEL,
        '--max-sessions',
        '6',
        '--pace',
        'none',
        '--output-dir',
        await tempDir(),
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stdout + result.stderr, STACK);
      assert.match(result.stdout, /^failed ×\d+: upgrade_status \(HTTP 503\) at connect: /m);
      assert.match(result.stdout, /^failed ×\d+: protocol_violation at ready: server sent a frame that is not JSON: /m);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

/** A WAV of `seconds` of a loud tone at 16 kHz, audio no reference matches. */
function toneWav(seconds: number): Buffer {
  const rate = 16_000;
  const bytes = rate * seconds * 2;
  const wav = Buffer.alloc(44 + bytes);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + bytes, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(bytes, 40);
  for (let i = 0; i < rate * seconds; i++) wav.writeInt16LE(Math.round(8000 * Math.sin(i / 5)), 44 + i * 2);
  return wav;
}
