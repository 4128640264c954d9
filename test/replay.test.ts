import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { planReplay, type ReplayOptions } from '../src/load/replay.js';
import { parseShape, SHAPE_FORMAT, SHAPE_VERSION, shapeText, type ShapeHeader, type ShapeSession } from '../src/load/traffic-shape.js';
import { mergeReports } from '../src/report/merge.js';
import { renderHtml } from '../src/report/html/index.js';
import { escapeHtml } from '../src/report/html/markup.js';
import { jsonSummary } from '../src/report/json-summary.js';
import { summarize } from '../src/metrics/stats.js';
import { startProxy } from '../src/proxy/proxy.js';
import { renderSummary } from '../src/report/console.js';
import type { HeldSession } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import { DEFAULT_MODEL, type RunningServer } from '../src/server/server.js';
import { startServer } from '../src/simulator/start.js';
import { DEFAULT_SPEECH_LATENCY } from '../src/server/models/speech-synth.js';
import { DEFAULT_MODELS } from '../src/config/settings.js';
import { CLI, runNode, tempDir, testServer, until } from './helpers.js';
import { launchChromium, NO_CHROMIUM, openOffline, type PageFlags } from './browser.js';
import { extractShapeFrom } from '../src/cli/replay-command.js';
import { flagMessage } from '../src/cli/option-flags.js';
import { OptionsError } from '../src/config/errors.js';
import type { RunOptions } from '../src/config/options.js';
import { ReportError } from '../src/report/report-error.js';
import { UsageError } from '../src/util/errors.js';
import { audioSeconds } from '../src/audio/decode.js';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { loadFolderDataset } from '../src/data/load.js';
import { DEFAULT_LATENCY } from '../src/server/models/latency-model.js';
import { soundingSince } from '../src/timeline/responses.js';

const origin = (url: string): string => new URL(url).origin.replace(/^http/, 'ws');
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
/** How far a session's actual start or a frame's cadence may stray from its schedule on a loaded machine (2 cores shared by many builds). */
const START_SLACK_MS = 150;
const VAD = { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 } as const;
const handHeader = (sessions: number): ShapeHeader => ({
  format: SHAPE_FORMAT,
  version: SHAPE_VERSION,
  source: { kind: 'run', file: 'hand.jsonl', startedAt: '' },
  sessions,
  spanMs: 0,
  keepText: false,
});
const CADENCE_SLACK_MS = 15;

/** The inner timing of a session as the replay checks it: per input, audio sent, median chunk and cadence, commits. */
function innerTiming(s: HeldSession): Array<{ audioMs: number; chunkMs: number; cadenceMs: number; commits: number }> {
  return s.timeline.inputs.map((input) => {
    const audio = s.timeline.sent.filter((f) => f.input === input.index && f.kind === 'audio' && !f.silence);
    const lengths = audio.map((f) => f.audioEndMs! - f.audioStartMs!);
    return {
      audioMs: lengths.reduce((a, b) => a + b, 0),
      chunkMs: median(lengths),
      cadenceMs: median(audio.slice(1).map((f, i) => f.t - audio[i]!.t)),
      commits: s.timeline.sent.filter((f) => f.input === input.index && f.control === 'input_end').length,
    };
  });
}

let shared: string | undefined;
/** Unpaced runs against one built-in server that the file's tests share (a run without a target starts a server thread of its own). */
function unpaced() {
  return { target: shared!, model: DEFAULT_MODEL, pace: { kind: 'none' } } as const;
}

/** A recording of six unpaced sessions (a run's folder is a recording too), to replay unpaced: cheap, and every session playable. */
async function recordUnpaced(): Promise<{ file: string; header: ShapeHeader; sessions: ShapeSession[] }> {
  const dir = await recordingDir;
  await run({ ...unpaced(), maxSessions: 6, profile: { kind: 'constant', rate: 50 }, outputDir: dir, outputs: ['json'] });
  return { file: join(dir, 'shape.jsonl'), ...(await extractShapeFrom(dir, false)) };
}
// Its folder made at the top level, so that it lasts until the file ends (a test's tempDir is removed when that test ends).
const recordingDir = tempDir();
let recording: Awaited<ReturnType<typeof recordUnpaced>> | undefined;
/**
 * The recording, made once for the tests that only read it. Kept as a value, not a promise: where a test awaited the promise an
 * earlier test made, node:test never ran the after() hooks it registered next (its browser left open, the file never ended).
 */
async function unpacedRecording(): Promise<Awaited<ReturnType<typeof recordUnpaced>>> {
  return (recording ??= await recordUnpaced());
}

describe('voxbench replay', () => {
  // Started here and closed when the suite ends (testServer's own closing hook would be this hook's, run as it returns).
  let server: RunningServer | undefined;
  before(async () => {
    server = await startServer({ port: 0, references: (await loadFolderDataset(BUNDLED_SAMPLES_DIR)).samples });
    shared = server.url;
  });
  after(() => server?.close());

  it('records mixed traffic through the proxy, extracts its shape, and replays it at 2x: arrivals halved, inner timing kept, what it cannot play counted', async () => {
    const server = await testServer({ speechLatency: { ...DEFAULT_SPEECH_LATENCY, firstAudioMs: 40, rtf: 0.1, jitterMs: 0, chunkMs: 100 } });
    const dir = await tempDir();
    const observed = join(dir, 'observed');
    const proxy = await startProxy({ listen: { host: '127.0.0.1', port: 0 }, upstream: origin(server.url), outputDir: observed });
    // Mixed traffic: transcription arriving at 2/s with two turns each, sent at four times real time (a 50 ms cadence of 200 ms chunks:
    // the frames and cadence of twice real time in 100 ms chunks, in half the time);
    // one transcription whose audio no sample matches (2 s of lead-in); one speech generation; and one connection cut when the proxy stops (a gap).
    const tts = { protocol: 'vllm-omni-speech-ws', model: DEFAULT_MODELS['vllm-omni-speech-ws'] } as const;
    const stt = { target: `${proxy.url}/v1/realtime`, model: DEFAULT_MODEL, pace: { kind: 'realtime', speed: 4 } as const, chunkMs: 200 };
    const cut = new WebSocket(`${proxy.url}/v1/realtime`);
    await new Promise((resolve) => cut.once('open', resolve));
    cut.on('error', () => {});
    await Promise.all([
      run({ ...stt, profile: { kind: 'constant', rate: 2 }, maxSessions: 3, turnsPerSession: 2, updateAtMs: 1000 }),
      run({ ...stt, maxSessions: 1, padding: { leadMs: 2000 } }),
      run({ ...tts, target: `${proxy.url}/`, maxSessions: 1, textDelivery: { kind: 'stream', tokensPerS: 20, firstTokenMs: 0 } }),
    ]);
    // Until the proxy has seen every run's session end (its closing handshake, late on a loaded machine), leaving only the cut
    // connection open: closing before would record another session as cut short, a gap.
    await until(() => proxy.open() === 1);
    await proxy.close();

    // The command spawned once, for its exit code, its line and --keep-text; the shape without text extracted in-process, as the command does.
    const withText = await runNode([CLI, 'replay', 'extract', observed, '--output', join(dir, 'text.jsonl'), '--keep-text']);
    assert.equal(withText.code, 0, withText.stderr);
    assert.match(withText.stdout, /6 sessions, 1 recorded with a gap/);
    assert.match(await readFile(join(dir, 'text.jsonl'), 'utf8'), /"text":/);
    const shapeFile = join(dir, 'shape.jsonl');
    const extracted = await extractShapeFrom(observed, false);
    const text = shapeText(extracted.header, extracted.sessions);
    await writeFile(shapeFile, text);
    const shape = parseShape(text, shapeFile);
    assert.equal(shape.header.version, 1);
    assert.equal(shape.header.source.kind, 'proxy');
    assert.ok(shape.header.recorded?.stt?.metrics.ttft_ms, "the recorded traffic's own figures travel in the header");
    assert.doesNotMatch(text, /birch canoe|glue the sheet/i, 'no transcript or prompt is kept without --keep-text');
    const byTask = (task: string) => shape.sessions.filter((s) => s.task === task && !s.gap);
    assert.equal(byTask('tts').length, 1);
    assert.equal(byTask('tts')[0]!.protocol, 'vllm-omni-speech-ws');
    const recordedStt = byTask('stt');
    assert.equal(recordedStt.length, 4);
    const twoTurns = recordedStt.filter((s) => s.inputs.length === 2);
    assert.equal(twoTurns.length, 3);
    for (const s of twoTurns) {
      for (const input of s.inputs) {
        assert.equal(input.kind, 'audio');
        if (input.kind !== 'audio') continue;
        assert.equal(input.chunkMs, 200);
        assert.ok(Math.abs(input.cadenceMs - 50) <= CADENCE_SLACK_MS, `recorded cadence ${input.cadenceMs} ms`);
        assert.ok(input.commitMs !== undefined, 'each turn was committed');
      }
      assert.equal(s.updatesMs.length, 1, 'the mid-stream session.update is recorded');
    }

    // Replayed against the built-in server (vLLM transcription) at twice the arrivals.
    const { report } = await run({ replay: { file: shapeFile, ...shape, speed: 2 } });
    const replay = report.config.replay!;
    assert.equal(replay.recorded, 6);
    assert.equal(replay.played, 3);
    assert.deepEqual(replay.skipped, { dialect: 1, unmatched: 1, gap: 1 });
    assert.deepEqual(replay.skippedSessions.map((s) => s.reason).sort(), ['dialect', 'gap', 'unmatched']);
    assert.deepEqual(
      replay.plays.map((p) => p.session),
      twoTurns.map((s) => s.session),
      'each played session names the recorded one it plays',
    );
    assert.match(renderSummary(report), /chunks, pace and turns as recorded/);
    const [level] = report.benchmarks;
    assert.equal(level!.profile.kind, 'replay');
    const played = [...level!.sessions].sort((a, b) => a.timeline.plannedStartMs - b.timeline.plannedStartMs);
    assert.deepEqual(
      played.map((s) => s.outcome.status),
      ['completed', 'completed', 'completed'],
    );
    // Arrivals: the recording's, halved, on the schedule and in fact.
    const recordedStarts = twoTurns.map((s: ShapeSession) => s.startMs);
    const planned = played.map((s) => s.timeline.plannedStartMs - played[0]!.timeline.plannedStartMs);
    const actual = played.map((s) => s.timeline.startMs - played[0]!.timeline.startMs);
    recordedStarts.forEach((t, i) => {
      const due = (t - recordedStarts[0]!) / 2;
      assert.ok(Math.abs(planned[i]! - due) < 1, `session ${i} planned at ${planned[i]} ms, recorded at ${t} ms (due ${due})`);
      assert.ok(Math.abs(actual[i]! - due) <= START_SLACK_MS, `session ${i} started at ${actual[i]} ms, due ${due}`);
    });
    // Inner timing: each input's audio length (from a matched sample), chunk size, cadence and commit, as recorded.
    played.forEach((s, i) => {
      const recorded = twoTurns[i]!.inputs;
      const timing = innerTiming(s);
      assert.equal(timing.length, recorded.length);
      timing.forEach((t, k) => {
        const r = recorded[k]!;
        assert.ok(r.kind === 'audio');
        assert.ok(Math.abs(t.audioMs - r.audioMs) <= 300, `input ${k}: ${t.audioMs} ms sent, ${r.audioMs} ms recorded`);
        assert.equal(t.chunkMs, r.chunkMs);
        assert.ok(Math.abs(t.cadenceMs - r.cadenceMs) <= CADENCE_SLACK_MS, `input ${k}: cadence ${t.cadenceMs} ms, recorded ${r.cadenceMs} ms`);
        assert.equal(t.commits, 1);
      });
      // The settings change comes as long after the first frame as it did in the recording.
      const firstFrame = (x: { t: number; kind: string }[]) => x.find((f) => f.kind === 'audio')!.t;
      const update = s.timeline.sent.find((f) => f.control === 'session_update');
      assert.ok(update, `session ${i} replays its session.update`);
      const recordedAfter = twoTurns[i]!.updatesMs[0]! - recorded[0]!.firstMs;
      const replayedAfter = update.t - firstFrame(s.timeline.sent);
      assert.ok(
        Math.abs(replayedAfter - recordedAfter) <= 2 * CADENCE_SLACK_MS,
        `update ${replayedAfter} ms after the first frame, recorded ${recordedAfter} ms`,
      );
    });
    // Two windows, a level each: the first holds the first arrival (and every skipped session), the second the other two.
    // Unpaced, on this test's server (a run with no target would start a server thread of its own): what is checked is
    // which sessions each window plays and the figures it sets beside them.
    const split = twoTurns[1]!.startMs;
    const windowed = await run({
      target: server.url,
      model: DEFAULT_MODEL,
      pace: { kind: 'none' },
      replay: {
        file: shapeFile,
        ...shape,
        speed: 4,
        windows: [
          { fromMs: 0, toMs: split },
          { fromMs: split, toMs: Infinity },
        ],
      },
    });
    assert.deepEqual(
      windowed.report.benchmarks.map((b) => [b.label, b.sessions.map((x) => x.index).sort()]),
      [
        [`replay 0s-${Math.round(split / 100) / 10}s 4x`, [0]],
        [`replay ${Math.round(split / 100) / 10}s-end 4x`, [1, 2]],
      ],
    );
    const plays = windowed.report.config.replay!.plays;
    assert.deepEqual(
      plays.map((p) => p.session),
      twoTurns.map((x) => x.session),
      "a session's index names the recorded session it plays, across levels",
    );
    assert.ok(windowed.report.config.replay!.skippedSessions.every((x) => x.level === windowed.report.benchmarks[0]!.label));
    // Each window's replay beside the recorded figures of the same sessions, not of the whole recording.
    const [early, late] = windowed.report.config.replay!.levels;
    const recordedP95 = (sessions: ShapeSession[]) => summarize(sessions.flatMap((x) => x.figures?.ttft_ms ?? []))!.p95;
    assert.deepEqual([early!.figures?.of, early!.figures?.sessions, late!.figures?.sessions], ['window', 1, 2]);
    assert.equal(early!.figures!.metrics.ttft_ms!.p95, recordedP95([twoTurns[0]!]));
    assert.equal(late!.figures!.metrics.ttft_ms!.p95, recordedP95(twoTurns.slice(1)));
    assert.deepEqual(
      [early!.skipped, late!.skipped],
      [
        { dialect: 1, unmatched: 1, gap: 1 },
        { dialect: 0, unmatched: 0, gap: 0 },
      ],
    );
    const windowedSummary = renderSummary(windowed.report);
    for (const b of windowed.report.benchmarks) assert.ok(windowedSummary.includes(`p95, ${b.label}: connect_ms`), windowedSummary);
    // What was not played is named and counted in the compact JSON and on the page too.
    const json = jsonSummary(report);
    assert.deepEqual(json.replay?.skipped, { dialect: 1, unmatched: 1, gap: 1 });
    assert.equal(json.replay?.skippedSessions.length, 3);
    assert.ok(!('plays' in json.replay), 'the compact summary leaves the per-session plays to report.json');
    const page = renderHtml(report);
    for (const skip of replay.skippedSessions) assert.ok(page.includes(escapeHtml(skip.detail)), `the page names ${skip.detail}`);
    // The speech generation session, replayed against a speech server (this test's): its prompt streamed at the recorded characters per second.
    const spoken = await run({ ...tts, target: `${origin(server.url)}/`, replay: { file: shapeFile, ...shape } });
    assert.deepEqual(spoken.report.config.replay!.skipped, { dialect: 4, unmatched: 0, gap: 1 });
    const recordedText = byTask('tts')[0]!.inputs[0]!;
    assert.ok(recordedText.kind === 'text' && recordedText.charsPerS !== null);
    const textFrames = spoken.report.benchmarks[0]!.sessions[0]!.timeline.sent.filter((f) => f.kind === 'text');
    const chars = textFrames.reduce((n, f) => n + f.charEnd! - f.charStart!, 0);
    const rate = (chars * 1000) / (textFrames[textFrames.length - 1]!.t - textFrames[0]!.t);
    assert.ok(Math.abs(rate - recordedText.charsPerS) <= recordedText.charsPerS * 0.25, `replayed ${rate} chars/s, recorded ${recordedText.charsPerS}`);
    const summary = renderSummary(report);
    assert.match(
      summary,
      /6 recorded sessions, 3 played at 2x; 3 not played: 1 another task than the target's dialect, 1 without matching corpus audio, 1 recorded with a gap/,
    );
    assert.match(summary, /p95, replay 2x: connect_ms \d+(\.\d)? ms recorded, \d+(\.\d)? ms replayed/);
  });

  it('bad input gets a one-line error naming the file or flag and what to do', async () => {
    const dir = await tempDir();
    const notShape = join(dir, 'not-a-shape.jsonl');
    await writeFile(notShape, '{"schema":"voxbench.report"}\n');
    const ttsOnly = join(dir, 'tts-only.jsonl');
    await writeFile(
      ttsOnly,
      shapeText(
        { format: SHAPE_FORMAT, version: SHAPE_VERSION, source: { kind: 'proxy', file: 'x', startedAt: '' }, sessions: 1, spanMs: 0, keepText: false },
        [{ session: 0, startMs: 0, task: 'tts', turnDetection: 'client', outcome: 'completed', inputs: [], updatesMs: [], bargeIns: 0, durationMs: 0 }],
      ),
    );
    // A proxy that saw no traffic leaves a report of nothing.
    const quiet = join(dir, 'quiet');
    await (await startProxy({ listen: { host: '127.0.0.1', port: 0 }, upstream: 'ws://127.0.0.1:9', outputDir: quiet })).close();
    // The refusals the CLI words itself (reading --replay, the flags that go with it), spawned for the exit code and the one line.
    const cases: Array<[string[], RegExp]> = [
      [['run', '--replay', notShape], /not-a-shape\.jsonl is not a traffic shape .*voxbench replay extract/],
      [['run', '--replay', join(dir, 'missing.jsonl')], /--replay .*missing\.jsonl: cannot read the file \(ENOENT\)/],
      [['run', '--speed', '2'], /--speed plays a recorded shape: it needs --replay/],
      [['run', '--replay', notShape, '--concurrency', '4'], /--replay is the load: leave out --concurrency/],
    ];
    const spawned = await Promise.all(cases.map(([args]) => runNode([CLI, ...args])));
    cases.forEach(([args, message], i) => {
      const { code, stderr } = spawned[i]!;
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
      assert.match(stderr, message);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
    });
    // The refusals run() words, checked in-process in the words the CLI prints (flagMessage), as --window and --replay give them.
    const given = { file: ttsOnly, ...parseShape(await readFile(ttsOnly, 'utf8'), ttsOnly) };
    const refusals: Array<[NonNullable<RunOptions['replay']>, RegExp]> = [
      [
        { ...given, windows: [{ fromMs: 10_000, toMs: 70_000 }] },
        /^--replay .*tts-only\.jsonl in the window 10s-70s holds none of the shape's 1 recorded sessions/,
      ],
      [given, /^--replay .*tts-only\.jsonl: none of its 1 recorded sessions can be played \(1 dialect\)/],
    ];
    for (const [replay, message] of refusals) {
      await assert.rejects(run({ ...unpaced(), replay }), (err: Error) => {
        assert.ok(err instanceof OptionsError, err.message);
        assert.match(flagMessage(err), message);
        return true;
      });
    }
    // What the extract command is given, refused by the reading it calls (the CLI prints its message on one line, like any usage error).
    await assert.rejects(extractShapeFrom(quiet, false), (err: Error) => {
      assert.ok(err instanceof UsageError, err.message);
      assert.match(err.message, /quiet holds no sessions: nothing was recorded there/);
      return true;
    });
    await assert.rejects(extractShapeFrom(join(dir, 'nowhere'), false), (err: Error) => {
      assert.ok(err instanceof ReportError, err.message);
      assert.match(err.message, /nowhere.*cannot read the report \(ENOENT\)/);
      return true;
    });
  });

  it('the same seed fills inputs the same way; --scale spreads copies over the gap to the next arrival; --window keeps the sessions that started in it', () => {
    const session = (index: number, startMs: number): ShapeSession => ({
      session: index,
      startMs,
      task: 'stt',
      turnDetection: 'client',
      outcome: 'completed',
      inputs: [{ kind: 'audio', audioMs: 2800, chunkMs: 100, cadenceMs: 100, frames: 28, firstMs: 10, lastMs: 2800, pauseMs: 10 }],
      updatesMs: [],
      bargeIns: 0,
      durationMs: 3000,
    });
    const sessions = [session(0, 0), session(1, 1000), session(2, 4000)];
    const candidates = Array.from({ length: 6 }, (_, i) => ({ id: `s${i}`, size: 2790 + i }));
    const options: ReplayOptions = { speed: 1, scale: 1, seed: 7 };
    assert.deepEqual(planReplay(sessions, 'stt', candidates, options), planReplay(sessions, 'stt', candidates, options));
    const scaled = planReplay(sessions, 'stt', candidates, { ...options, scale: 3 });
    assert.deepEqual(
      scaled.sessions.map((s) => Math.round(s.startMs)),
      [0, 333, 667, 1000, 2000, 3000, 4000, 4667, 5333],
      'three per recorded session, spread over the gap to the next (the last over the mean gap)',
    );
    const windowed = planReplay(sessions, 'stt', candidates, { ...options, speed: 2, window: { fromMs: 500, toMs: 5000 } });
    assert.deepEqual(
      windowed.sessions.map((s) => [s.session, s.startMs]),
      [
        [1, 250],
        [2, 1750],
      ],
    );
    assert.equal(windowed.recorded.length, 2);
    // A session that failed before it sent anything has nothing to fill: named, not played as an empty session.
    const silent = planReplay([{ ...session(3, 0), outcome: 'failed', inputs: [] }], 'stt', candidates, options);
    assert.deepEqual(
      silent.skipped.map((x) => x.reason),
      ['unmatched'],
    );
  });

  it('--workers and --shard split a replay as they split any open-loop level: together they play exactly what one thread plays', async () => {
    const replay = await unpacedRecording();
    const played = (report: { benchmarks: Array<{ sessions: HeldSession[] }> }) =>
      report.benchmarks[0]!.sessions.map((s) => [s.index, s.sampleIds.join()] as const).sort((a, b) => a[0] - b[0]);
    const one = await run({ ...unpaced(), replay });
    const expected = one.report.config.replay!.plays.map((p, i) => [i, p.sampleIds.join()] as const);
    assert.equal(expected.length, 6);
    assert.deepEqual(played(one.report), expected);
    const threads = await run({ ...unpaced(), replay, workers: 2 });
    assert.deepEqual(played(threads.report), expected, 'two worker threads play every planned session once, each with its planned samples');
    const base = unpaced();
    const shards = await Promise.all([0, 1].map((index) => run({ ...base, replay, shard: { index, count: 2 }, runId: 'replay-shards' })));
    for (const shard of shards) assert.equal(shard.report.benchmarks[0]!.sessions.length, 3);
    assert.deepEqual(
      played(
        mergeReports(
          shards.map((s) => s.report),
          ['0', '1'],
        ),
      ),
      expected,
      'the shards merge into the replay one process plays',
    );
  });

  it('barge-ins and every later session.update are played at their recorded offsets: due within 1 ms of the recording, sent on time', async () => {
    // Answers at their real pace, so the user can speak over one; audio streamed at 4x, so the test waits little.
    const server = await testServer({ latency: DEFAULT_LATENCY });
    const dir = await tempDir();
    const observed = join(dir, 'observed');
    const proxy = await startProxy({ listen: { host: '127.0.0.1', port: 0 }, upstream: origin(server.url), outputDir: observed });
    const target = `${proxy.url}/v1/realtime`;
    const duplex = { protocol: 'openai-realtime', model: 'gpt-realtime', turnDetection: VAD, pace: { kind: 'realtime', speed: 4 } } as const;
    // The traffic: a conversation whose user speaks over the first answer; and a transcription that changes its settings
    // three times (played from a shape of one session: --update-at-ms sends one).
    const { samples } = await loadFolderDataset(BUNDLED_SAMPLES_DIR);
    const audioMs = audioSeconds(samples[0]!.audio) * 1000;
    const threeUpdates: ShapeSession = {
      session: 0,
      startMs: 0,
      task: 'stt',
      turnDetection: 'client',
      outcome: 'completed',
      inputs: [{ kind: 'audio', audioMs, chunkMs: 100, cadenceMs: 25, frames: Math.ceil(audioMs / 100), firstMs: 0, lastMs: audioMs / 4, pauseMs: 0 }],
      updatesMs: [60, 230, 410],
      bargeIns: 0,
      durationMs: audioMs / 4,
    };
    await Promise.all([
      run({ ...duplex, target, maxSessions: 1, turnsPerSession: 2, padding: { trailMs: 700 }, bargeInAtMs: 400 }),
      run({ target, model: DEFAULT_MODEL, replay: { file: 'hand.jsonl', header: handHeader(1), sessions: [threeUpdates] } }),
    ]);
    // Until the proxy has seen both sessions end: closed before, it records one as cut short, a gap the replay cannot play.
    await until(() => proxy.open() === 0);
    await proxy.close();
    const shape = await extractShapeFrom(observed, false);
    const conversation = shape.sessions.find((x) => x.task === 's2s')!;
    const transcription = shape.sessions.find((x) => x.task === 'stt')!;
    assert.equal(conversation.bargeIns, 1, 'the recording knows the user spoke over the answer');
    const spokenOver = conversation.inputs[1]!;
    assert.ok(spokenOver.kind === 'audio' && spokenOver.bargeInMs !== undefined);
    assert.ok(Math.abs(spokenOver.bargeInMs - 100) <= START_SLACK_MS, `recorded ${spokenOver.bargeInMs} ms into the answer (400 ms of audio at 4x)`);
    assert.equal(transcription.updatesMs.length, 3, 'every update the client sent is recorded');

    // Replayed at --speed 1, each against a server that serves its task.
    const replay = { file: 'shape.jsonl', ...shape };
    // On this test's server, whose latency model is the built-in one's: a run with no target would start a server thread of its own.
    const [talked, transcribed] = await Promise.all([
      run({ ...duplex, target: server.url, replay }),
      run({ target: server.url, model: DEFAULT_MODEL, replay }),
    ]);
    const updatesOf = (s: HeldSession) => s.timeline.sent.filter((f) => f.control === 'session_update');
    const firstFrame = (s: HeldSession, input = 0) => s.timeline.sent.find((f) => f.kind === 'audio' && !f.silence && f.input === input)!;
    for (const [result, recorded] of [
      [talked, conversation],
      [transcribed, transcription],
    ] as const) {
      const played = result.report.benchmarks[0]!.sessions[0]!;
      assert.equal(played.outcome.status, 'completed', JSON.stringify(played.outcome));
      const updates = updatesOf(played);
      const first = firstFrame(played);
      assert.equal(updates.length, recorded.updatesMs.length, 'every recorded update is played');
      updates.forEach((update, i) => {
        const due = recorded.updatesMs[i]! - recorded.inputs[0]!.firstMs;
        assert.ok(
          Math.abs(update.plannedMs! - first.plannedMs! - due) <= 1,
          `update ${i} due ${update.plannedMs! - first.plannedMs!} ms after the first frame, recorded ${due}`,
        );
        assert.ok(update.t - update.plannedMs! <= START_SLACK_MS, `update ${i} sent ${update.t - update.plannedMs!} ms after it was due`);
      });
    }
    // The barge-in: the second utterance's first frame due as long after the answer began to sound as it was recorded.
    const played = talked.report.benchmarks[0]!.sessions[0]!;
    const bargeIn = firstFrame(played, 1);
    const sounding = soundingSince(played.timeline.received, bargeIn.t);
    assert.ok(sounding !== undefined, 'the replayed user spoke over an answer');
    assert.ok(
      Math.abs(bargeIn.plannedMs! - sounding - spokenOver.bargeInMs) <= 1,
      `due ${bargeIn.plannedMs! - sounding} ms into the answer, recorded ${spokenOver.bargeInMs}`,
    );
    assert.ok(bargeIn.t - bargeIn.plannedMs! <= START_SLACK_MS, `sent ${bargeIn.t - bargeIn.plannedMs!} ms after it was due`);
    assert.equal(played.metrics.inputs[1]!.barge_in_cancelled, 1, 'the server stopped the answer it was spoken over');
  });

  it('records the voice, format and sample rate each session asked for, and a replayed speech session asks for its recorded voice', async () => {
    const server = await testServer({ speechLatency: { ...DEFAULT_SPEECH_LATENCY, firstAudioMs: 20, rtf: 0.05, jitterMs: 0, chunkMs: 100 } });
    const dir = await tempDir();
    const proxyTo = (name: string) => startProxy({ listen: { host: '127.0.0.1', port: 0 }, upstream: origin(server.url), outputDir: join(dir, name) });
    const tts = { protocol: 'vllm-omni-speech-ws', model: DEFAULT_MODELS['vllm-omni-speech-ws'] } as const;
    const recording = await proxyTo('recorded');
    await Promise.all([
      run({ ...tts, target: `${recording.url}/`, maxSessions: 1, speech: { voice: 'vivian' } }),
      run({ target: `${recording.url}/v1/realtime`, model: DEFAULT_MODEL, maxSessions: 1, pace: { kind: 'none' } }),
    ]);
    await recording.close();
    const shape = await extractShapeFrom(join(dir, 'recorded'), false);
    const spoken = shape.sessions.find((x) => x.task === 'tts')!;
    const heard = shape.sessions.find((x) => x.task === 'stt')!;
    assert.deepEqual(spoken.asked, { voice: 'vivian', format: 'pcm', sampleRate: 24_000 }, 'the voice and format as the client asked, the rate it was read at');
    assert.deepEqual(heard.asked, { sampleRate: 16_000 }, 'the rate of the audio sent');
    // Replayed through a second proxy by a run of the server's default voice: what went on the wire asked for the recorded one.
    const replaying = await proxyTo('replayed');
    const { report } = await run({ ...tts, target: `${replaying.url}/`, replay: { file: 'shape.jsonl', ...shape } });
    const { report: seen } = await replaying.close();
    assert.equal(report.config.replay!.played, 1);
    assert.equal(report.benchmarks[0]!.sessions[0]!.timeline.asked?.voice, 'vivian');
    assert.equal(seen!.benchmarks[0]!.sessions[0]!.timeline.asked?.voice, 'vivian');
  });

  describe('the replay block in headless Chromium', { skip: NO_CHROMIUM }, () => {
    it("shows each window's recorded and replayed figures and names what was not played, markup in a recording inert", async () => {
      const recording = await unpacedRecording();
      // A recorded session of another task, its dialect's name made of markup: the page names it as text.
      const hostile = '<img src=x onerror="window.__xss = 2">';
      const other: ShapeSession = { ...recording.sessions[0]!, session: 99, task: 'tts', protocol: hostile };
      const { report } = await run({ ...unpaced(), replay: { ...recording, sessions: [...recording.sessions, other] } });
      const dir = await tempDir();
      const file = join(dir, 'replay.html');
      await writeFile(file, renderHtml(report));
      const browser = await launchChromium();
      after(() => browser.close());
      const { page, context, problems } = await openOffline(browser, file);
      const block = page.locator('#replay');
      const text = await block.innerText();
      assert.match(text, /recorded sessions[\s\S]*7\s+6\s+1\s+0\s+0\s+the 6 sessions it plays/, `counts per window: ${text}`);
      assert.match(text, /ttft_ms\s+[\d.]+ ms\s+[\d.]+ ms/, `a recorded figure beside its replayed one: ${text}`);
      assert.ok(text.includes(hostile), 'the session not played is named, its markup shown as text');
      assert.equal(await page.locator('#replay img').count(), 0);
      assert.equal(await page.evaluate(() => (globalThis as PageFlags).__xss), undefined);
      assert.deepEqual(problems, []);
      await context.close();
    });
  });
});
