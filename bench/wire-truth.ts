/**
 * Measured truth: how far voxbench's own stamps are from the wire. A real-time run
 * against the built-in server (in its own process) while tcpdump captures the loopback
 * traffic; every WebSocket frame is rebuilt from the capture with the kernel's time for
 * its last byte, and matched with the session's sent and received records (the
 * connection by the client port the session recorded, frames by order). For each frame
 * the stamp delay is the stamp minus its wire time; for each turn, each latency metric is
 * computed once from the stamps and once from the wire times, and the error is their
 * difference.
 *
 * The two clocks (the run's monotonic clock, the capture's wall clock) are aligned by
 * the send stamps: each is taken right after the write, so none precedes its frame on
 * the wire, and the offset is the one that makes the fastest send's delay zero (an error
 * of the few microseconds a write takes). Needs tcpdump and the right to capture on the
 * loopback interface; where it has neither it says so and exits.
 *
 *   npm run bench:wire -- "LABEL"             # 1, 100 and 1,000 sessions; writes the rows into BENCHMARKS.md
 *   npm run bench:wire -- "" 1 50             # other session counts; prints only
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setTimeout } from 'node:timers/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { computeSessionMetrics } from '../src/metrics/compute.js';
import { percentile } from '../src/metrics/stats.js';
import { run } from '../src/run/run.js';
import type { HeldSession } from '../src/report/schema.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import type { ReceivedFrame, SessionTimeline } from '../src/timeline/types.js';
import { readConnections, type Connection } from './pcap.js';
import { NODE_FLAGS } from '../src/cli/node-flags.js';
import { measuredOn, tableRow, upsertRow } from './figures.js';

const [label, ...counts] = process.argv.slice(2);
const SESSIONS = counts.length > 0 ? counts.map(Number) : [1, 100, 1000];
const METRICS = ['ttft_ms', 'ttlt_ms', 'avg_rtt_ms', 'commit_to_flush_ms', 'finalization_ms'];
/**
 * Each level runs at least this many sessions (at N concurrent, one after another in each
 * lane), so a single session's p99 is over some 800 frames rather than its worst few.
 */
const MIN_SESSIONS = 20;
/** WebSocket data frames; pings, pongs and closes are not in a session's records. */
const DATA_OPCODES = new Set([1, 2]);
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

// The run measured is this process's: on the heap the `voxbench` command runs with.
if (!NODE_FLAGS.every((flag) => process.execArgv.includes(flag))) {
  process.exit(spawnSync(process.execPath, [...NODE_FLAGS, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' }).status ?? 1);
}

if (spawnSync('tcpdump', ['--version']).error) {
  console.log('wire-truth: tcpdump is not installed (Debian: apt-get install tcpdump); nothing measured');
  process.exit(0);
}

const server = spawn(process.execPath, [...NODE_FLAGS, CLI, 'serve', '--port', '0', '--capacity', '100000'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve) => server.stdout.once('data', (d) => resolve(/ws:\/\/\S+/.exec(String(d))![0])));
const port = Number(new URL(url).port);
const dir = await mkdtemp(join(tmpdir(), 'voxbench-wire-'));

try {
  for (const sessions of SESSIONS) {
    const capture = join(dir, `${sessions}.pcap`);
    const { sessionsRun, dropped } = await captured(capture, () =>
      run({ target: url, model: DEFAULT_MODEL, profile: { kind: 'concurrent', concurrency: sessions }, maxSessions: Math.max(sessions, MIN_SESSIONS) }).then(
        ({ report }) => report.benchmarks[0]!.sessions,
      ),
    );
    const row = compare(sessionsRun, await readConnections(capture, port), sessions, dropped);
    console.log(row);
    if (label) await upsertRow('wire-truth', row, 2);
    await rm(capture);
  }
} finally {
  server.kill();
  await rm(dir, { recursive: true, force: true });
}

/** Runs `work` while tcpdump writes the loopback traffic to `file`; the packets the kernel dropped, as tcpdump counts them. */
async function captured<T>(file: string, work: () => Promise<T>): Promise<{ sessionsRun: T; dropped: number }> {
  const dump = spawn(
    'tcpdump',
    ['-i', 'lo', '-s', '0', '-B', '262144', '-U', '--immediate-mode', '--time-stamp-precision=nano', '-w', file, 'tcp', 'port', String(port)],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let log = '';
  dump.stderr.on('data', (d) => (log += String(d)));
  await new Promise<void>((resolve, reject) => {
    dump.stderr.on('data', () => log.includes('listening on') && resolve());
    dump.once('exit', () => reject(new Error(`tcpdump could not capture: ${log.trim()}`)));
  });
  const sessionsRun = await work();
  // The last packets may still be in the kernel's buffer, unread: give tcpdump time to write them.
  await setTimeout(500);
  const exited = new Promise((resolve) => dump.once('exit', resolve));
  dump.kill('SIGINT');
  await exited;
  return { sessionsRun, dropped: Number(/(\d+) packets? dropped by kernel/.exec(log)?.[1] ?? 0) };
}

/** The table row: stamp delays per direction, and each metric's error, over every session whose frames all matched. */
function compare(sessions: HeldSession[], connections: Map<number, Connection>, count: number, dropped: number): string {
  const matched: Array<{ session: HeldSession; sentWire: number[]; receivedWire: number[] }> = [];
  for (const session of sessions) {
    const { timeline } = session;
    const connection =
      timeline.transport.kind === 'websocket' && timeline.transport.localPort !== undefined ? connections.get(timeline.transport.localPort) : undefined;
    if (!connection) continue;
    const sentWire = connection.fromClient.filter((f) => DATA_OPCODES.has(f.opcode)).map((f) => f.t);
    const receivedWire = connection.fromServer.filter((f) => DATA_OPCODES.has(f.opcode)).map((f) => f.t);
    if (sentWire.length !== timeline.sent.length || receivedWire.length !== messages(timeline.received).length) continue;
    matched.push({ session, sentWire, receivedWire });
  }
  // The offset from the run's clock to the capture's: the one that gives the fastest send no delay.
  let offset = -Infinity;
  for (const { session, sentWire } of matched) session.timeline.sent.forEach((frame, i) => (offset = Math.max(offset, sentWire[i]! - frame.t)));

  const sendDelay: number[] = [];
  const receiveDelay: number[] = [];
  const errors = new Map(METRICS.map((name) => [name, [] as number[]]));
  for (const { session, sentWire, receivedWire } of matched) {
    const { timeline } = session;
    timeline.sent.forEach((frame, i) => sendDelay.push(frame.t - (sentWire[i]! - offset)));
    messages(timeline.received).forEach((message, i) => receiveDelay.push(message[0]!.t - (receivedWire[i]! - offset)));
    const onWire: SessionTimeline = {
      ...timeline,
      sent: timeline.sent.map((frame, i) => ({ ...frame, t: sentWire[i]! - offset })),
      received: messages(timeline.received).flatMap((message, i) => message.map((frame) => ({ ...frame, t: receivedWire[i]! - offset }))),
    };
    const stamped = computeSessionMetrics(timeline).inputs;
    const wire = computeSessionMetrics(onWire).inputs;
    for (const [name, values] of errors) {
      stamped.forEach((input, k) => {
        const a = input[name];
        const b = wire[k]?.[name];
        if (a !== undefined && b !== undefined) values.push(Math.abs(a - b));
      });
    }
  }
  const spread = (values: number[]): string => {
    if (values.length === 0) return 'n/a';
    const sorted = values.sort((a, b) => a - b);
    return `${percentile(sorted, 50).toFixed(3)} / ${percentile(sorted, 99).toFixed(3)} / ${sorted.at(-1)!.toFixed(2)}`;
  };
  return tableRow([
    count,
    label ?? '',
    measuredOn(),
    `${matched.length}/${sessions.length}${dropped > 0 ? ` (${dropped} packets dropped)` : ''}`,
    sendDelay.length + receiveDelay.length,
    spread(sendDelay),
    spread(receiveDelay),
    ...METRICS.map((name) => spread(errors.get(name)!)),
  ]);
}

/** Received records grouped by the frame they came from: the events one frame decoded into share its stamp. */
function messages(received: ReceivedFrame[]): ReceivedFrame[][] {
  const groups: ReceivedFrame[][] = [];
  for (const frame of received) {
    const last = groups.at(-1);
    if (last && last[0]!.t === frame.t) last.push(frame);
    else groups.push([frame]);
  }
  return groups;
}
