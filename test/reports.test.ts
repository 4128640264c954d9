import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionTimeline, WebSocketTransport } from '../src/timeline/types.js';
import { describe, it } from 'node:test';
import { costOf } from '../src/metrics/cost.js';
import { compareReports } from '../src/report/compare.js';
import { csvCell, renderCsv } from '../src/report/csv.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { mergeReports } from '../src/report/merge.js';
import { writeOutputs } from '../src/report/outputs.js';
import { readHeldReport, readReport, recompute } from '../src/report/recompute.js';
import { readReportHeader } from '../src/report/report-header.js';
import { parseMetaEntry } from '../src/report/meta-entry.js';
import { reportJsonChunks } from '../src/report/report-json.js';
import { IN_MEMORY_ONLY, type HeldReport, type Report } from '../src/report/schema.js';
import { StoredMetrics } from '../src/metrics/stored-metrics.js';
import { readLoggedAt, readSessionLog, SESSION_LOG, streamSessionLog, type LoggedSession, type LogPlace } from '../src/report/session-log.js';
import { run } from '../src/run/run.js';
import { DEFAULT_MODEL } from '../src/server/server.js';
import { DEFAULT_MODELS } from '../src/config/settings.js';
import { CLI, runNode, sharedTarget, tempDir, testServer } from './helpers.js';

const FAST = { kind: 'realtime', speed: 8 } as const;
// For what the checks read from a run's records whatever its pace: sessions send their audio as fast as the socket takes it.
const UNPACED = { kind: 'none' } as const;
// The report content checked here does not depend on where the server runs (see sharedTarget).
const LOCAL = await sharedTarget();
const readJson = async (path: string): Promise<Report> => JSON.parse(await readFile(path, 'utf8')) as Report;

describe('outputs', () => {
  it('writes CSV with units in the headers and one row per turn, session and level, and a Markdown summary', async () => {
    const dir = await tempDir();
    const { report } = await run({
      ...LOCAL,
      turnsPerSession: 2,
      maxSessions: 2,
      pace: UNPACED,
      outputDir: dir,
      outputs: ['json', 'csv', 'md'],
      pricing: { perReplicaHour: 3, replicas: 2 },
    });
    const turns = (await readFile(join(dir, 'turns.csv'), 'utf8')).trim().split('\r\n');
    assert.equal(turns.length, 1 + 4, 'a header and 2 sessions x 2 turns');
    assert.match(
      turns[0]!,
      /^level,session,phase,start,outcome,turn,sample_id,split,eos_source,finalized,transcript,reference,.*ttft_ms \[ms\].*,rtf \[ratio\]/,
    );
    assert.match(
      turns[1]!,
      /^synchronous,0,measured,cold,completed,0,harvard-01,default,label,yes, The birch canoe slid on the smooth planks\.,The birch canoe slid on the smooth planks\.,/,
    );
    const sessions = (await readFile(join(dir, 'sessions.csv'), 'utf8')).trim().split('\r\n');
    assert.equal(sessions.length, 3);
    assert.match(sessions[0]!, /bytes_sent \[bytes\]/);
    const levels = (await readFile(join(dir, 'levels.csv'), 'utf8')).trim().split('\r\n');
    assert.equal(levels.length, 2);
    assert.match(levels[0]!, /ttft_ms p95 \[ms\]/);
    const markdown = await readFile(join(dir, 'summary.md'), 'utf8');
    assert.match(markdown, /^\| synchronous \| 2 \| 2 \| 0 \| 0\.0% \|/m);
    const { cost } = report.benchmarks[0]!.summary;
    assert.equal(cost!.total, (3 * 2 * cost!.intervalS) / 3600);
    assert.equal(cost!.perAudioHour, cost!.total / (cost!.audioS / 3600));
  });

  it('quotes CSV fields and defuses formulas from server text; escapes Markdown cells', async () => {
    let { report } = await run({ ...LOCAL, maxSessions: 1, pace: { kind: 'none' } });
    const final = report.benchmarks[0]!.sessions[0]!.timeline.received.find((e) => e.kind === 'text_final')!;
    final.text = '=HYPERLINK("x"), "quoted"\nline';
    // What the outputs read of a timeline is taken when its figures are: measured again from the changed one.
    report = recompute(JSON.parse(JSON.stringify(report)) as typeof report);
    const row = renderCsv(report)['turns.csv']!.split('\r\n')[1]!;
    assert.ok(row.includes(`"'=HYPERLINK(""x""), ""quoted"" line"`), row);
    assert.doesNotMatch(renderMarkdown(report), /<script/);
  });

  it('writes text a cell holds as it is only where nothing needs defusing, escaping or quoting', () => {
    const cells: Array<[unknown, string]> = [
      ['plain words, é 中文', '"plain words, é 中文"'],
      ['plain words é 中文', 'plain words é 中文'],
      ['', ''],
      ['=1+1', "'=1+1"],
      ['+1', "'+1"],
      ['-1', "'-1"],
      ['@SUM', "'@SUM"],
      ['a-b=c', 'a-b=c'],
      ['say "hi"', '"say ""hi"""'],
      ['two\nlines\r\tend', 'two lines end'],
      ['\u001b[31mred', '\\x1b[31mred'],
      ['\u0085next', '\\x85next'],
      ['left\u202eright', 'left\\u202eright'],
      ['\u2028', ' '],
      [true, 'true'],
      [{ a: 1 }, '"{""a"":1}"'],
      [1.5, '1.5'],
      [NaN, ''],
      [undefined, ''],
    ];
    for (const [value, cell] of cells) assert.equal(csvCell(value), cell, JSON.stringify(value));
  });

  it('computes cost per audio hour from achieved throughput, idle time included', () => {
    assert.deepEqual(costOf({ perReplicaHour: 4, replicas: 2 }, 1800, 3600), {
      perReplicaHour: 4,
      replicas: 2,
      intervalS: 1800,
      audioS: 3600,
      total: 4,
      perAudioHour: 4,
    });
    assert.equal(costOf({ perReplicaHour: 4, replicas: 1 }, 60, 0).perAudioHour, null);
  });

  it('fills the reproducibility record and lays --meta entries over it', async () => {
    const { report } = await run({ ...LOCAL, maxSessions: 1, pace: FAST, meta: { deployment: { gpu: 'H100' }, client: { location: 'eu-west' } } });
    assert.equal(report.record.deployment.gpu, 'H100');
    assert.equal(report.record.client.location, 'eu-west');
    assert.equal(report.record.client.chunk_ms, 100);
    assert.equal(report.record.input.fingerprint, report.dataset.fingerprint);
    assert.match(String(report.record.results.quality), /^corpus WER 0\.00% \(95% CI 0\.00% to 0\.00%\), CER 0\.00% \(whisper-english-1, 1 turns\)$/);
    assert.deepEqual(parseMetaEntry('gpu=A100'), { section: 'deployment', key: 'gpu', value: 'A100' });
    assert.deepEqual(parseMetaEntry('deployment.replicas=4'), { section: 'deployment', key: 'replicas', value: 4 });
    assert.equal(parseMetaEntry('no equals sign'), null);
  });
});

describe('render, merge, resume, compare', () => {
  it('render recomputes every figure from the stored timelines', async () => {
    const dir = await tempDir();
    const { report } = await run({ ...LOCAL, maxSessions: 2, pace: UNPACED, outputDir: dir });
    const onDisk = await readJson(join(dir, 'report.json'));
    onDisk.benchmarks[0]!.summary.metrics.ttft_ms!.p50 = -1;
    onDisk.benchmarks[0]!.sessions[0]!.metrics.inputs[0]!.ttft_ms = -1;
    await writeFile(join(dir, 'report.json'), JSON.stringify(onDisk));
    // What `report render` does, in this process (output-folder.test and cold-start.test spawn the command).
    await writeOutputs(await readReport(dir), dir, ['json', 'md']);
    const rendered = await readJson(join(dir, 'report.json'));
    assert.equal(rendered.benchmarks[0]!.summary.metrics.ttft_ms!.p50, report.benchmarks[0]!.summary.metrics.ttft_ms!.p50);
    assert.equal(rendered.benchmarks[0]!.sessions[0]!.metrics.inputs[0]!.ttft_ms, report.benchmarks[0]!.sessions[0]!.metrics.inputs[0]!.ttft_ms);
  });

  it('a killed run leaves its sessions in the log, and render rebuilds the report from them', async () => {
    const dir = await tempDir();
    // Against the file's server: what a crash leaves does not depend on where the server runs, and a built-in one costs a thread.
    const target = ['--target', LOCAL.target, '--model', LOCAL.model];
    const child = spawn(process.execPath, [CLI, 'run', ...target, '--pace', '4x', '--max-sessions', '6', '--output-dir', dir], { stdio: 'ignore' });
    // Kill it hard once two sessions are logged.
    for (let logged = 0; logged < 2; logged = (await readSessionLog(dir)).length) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const partial = await readJson(join(dir, 'report.json'));
    assert.equal(partial.stoppedBy, 'interrupted', 'what a crash leaves says so');
    const logged = (await readSessionLog(dir)).length;
    const rebuilt = await readReport(dir);
    assert.equal(rebuilt.benchmarks[0]!.summary.sessions.total, logged);
    assert.equal(rebuilt.benchmarks[0]!.summary.sessions.completed, logged);
  });

  it('resume keeps finished sessions on the new clock and runs only the rest', async () => {
    const dir = await tempDir();
    const first = await run({ ...LOCAL, maxSessions: 3, pace: UNPACED, outputDir: dir });
    await new Promise((r) => setTimeout(r, 300)); // a gap between the runs, which throughput must not count
    const { report } = await run({ ...LOCAL, maxSessions: 5, pace: UNPACED, resume: dir });
    const sessions = report.benchmarks[0]!.sessions;
    assert.deepEqual(
      sessions.map((s) => s.index),
      [0, 1, 2, 3, 4],
    );
    const shift = Date.parse(first.report.startedAt) - Date.parse(report.startedAt);
    for (const i of [0, 1, 2]) {
      const before = first.report.benchmarks[0]!.sessions[i]!;
      assert.equal(sessions[i]!.resumedFrom, first.report.startedAt, `session ${i} was kept, not run again`);
      assert.equal(sessions[i]!.timeline.startMs, before.timeline.startMs + shift, 'moved onto the new clock');
      assert.equal(sessions[i]!.metrics.inputs[0]!.ttft_ms, before.metrics.inputs[0]!.ttft_ms);
    }
    const spans = (ss: typeof sessions) => Math.max(...ss.map((s) => closeOf(s.timeline).t)) - Math.min(...ss.map((s) => s.timeline.startMs));
    assert.ok(
      Math.abs(report.benchmarks[0]!.summary.throughput.wallS * 1000 - (spans(sessions.slice(0, 3)) + spans(sessions.slice(3)))) < 1e-6,
      'each run counts its own span',
    );
    assert.equal((await readSessionLog(dir)).length, 5);
  });

  it('resume refuses other settings, naming the first that differs, and leaves the folder as it was', async () => {
    const dir = await tempDir();
    const first = await run({ ...LOCAL, maxSessions: 2, pace: UNPACED, turnsPerSession: 1, outputDir: dir });
    const { schema, version, voxbenchVersion, startedAt, environment, config, dataset } = first.report;
    assert.deepEqual(
      await readReportHeader(join(dir, 'report.json')),
      { schema, version, voxbenchVersion, startedAt, environment, config, dataset },
      'the header alone is read',
    );
    const before = await Promise.all(['report.json', SESSION_LOG].map((name) => readFile(join(dir, name), 'utf8')));
    const again = { ...LOCAL, maxSessions: 4, pace: UNPACED, turnsPerSession: 1, resume: dir } as const;
    await assert.rejects(
      run({ ...again, profile: { kind: 'concurrent', concurrency: 2 } }),
      /^OptionsError: resume .*: the run there has another plan\.profile\.kind \("synchronous" there, "concurrent" now\); resume with the same options, or start a new run$/,
    );
    await assert.rejects(run({ ...again, dataset: { maxSamples: 3 } }), /another dataset\.fingerprint /);
    // The CLI too, which finds chunkMs the first difference only if the rest of what its flags make matches what run() made.
    const flags = ['--target', LOCAL.target, '--model', LOCAL.model, '--max-sessions', '4', '--pace', 'none'];
    const cli = await runNode([CLI, 'run', ...flags, '--resume', dir, '--chunk-ms', '50']);
    assert.equal(cli.code, 2);
    assert.match(
      cli.stderr,
      /^voxbench: error: --resume .*: the run there has another chunkMs \(100 there, 50 now\); resume with the same flags, or start a new run\n$/,
    );
    assert.deepEqual(await Promise.all(['report.json', SESSION_LOG].map((name) => readFile(join(dir, name), 'utf8'))), before);
  });

  it('a new run into a used folder starts a new session log; --resume of a folder without one is refused', async () => {
    const dir = await tempDir();
    await run({ ...LOCAL, maxSessions: 2, pace: UNPACED, outputDir: dir });
    await run({ ...LOCAL, maxSessions: 1, pace: UNPACED, outputDir: dir });
    assert.equal((await readReport(dir)).benchmarks[0]!.summary.sessions.total, 1);
    await assert.rejects(
      run({ resume: join(dir, 'nope') }),
      /^OptionsError: resume .*nope: no sessions\.jsonl there; give the output folder of the run to continue$/,
    );
  });

  it('merge keys sessions by run, level and index: a sample used twice stays twice, the same session merged twice once', async () => {
    const twoSamples = { ...LOCAL, pace: UNPACED, turnsPerSession: 1, dataset: { maxSamples: 2 } } as const;
    const [a, b] = await Promise.all([run({ ...twoSamples, maxSessions: 3 }), run({ ...twoSamples, maxSessions: 2 })]);
    // a sent harvard-01 twice (2 samples, 3 sessions); b ran them again, as other sessions.
    const merged = mergeReports([a.report, b.report], ['a.json', 'b.json']);
    const sessions = merged.benchmarks[0]!.sessions;
    assert.deepEqual(
      sessions.map((s) => s.sampleIds[0]),
      [1, 2, 1, 1, 2].map((n) => `harvard-0${n}`),
    );
    assert.deepEqual(
      sessions.map((s) => s.index),
      [0, 1, 2, 3, 4],
    );
    assert.equal(merged.benchmarks[0]!.summary.metrics.ttft_ms!.count, 5, 'distributions recomputed from the merged rows');
    assert.deepEqual(merged.mergedFrom, ['a.json', 'b.json']);
    assert.equal(mergeReports([a.report], ['a.json']).benchmarks[0]!.sessions.length, 3, 'a run merged alone loses nothing');
    assert.equal(mergeReports([a.report, a.report], ['a.json', 'a.json']).benchmarks[0]!.sessions.length, 3, 'the same sessions twice are one row each');
  });

  it('merge of a run and its resumption counts each session once', async () => {
    const dir = await tempDir();
    const first = await run({ ...LOCAL, maxSessions: 2, pace: UNPACED, turnsPerSession: 1, outputDir: dir });
    const resumed = await run({ ...LOCAL, maxSessions: 4, pace: UNPACED, turnsPerSession: 1, resume: dir });
    const sessions = mergeReports([first.report, resumed.report], ['first', 'resumed']).benchmarks[0]!.sessions;
    assert.deepEqual(
      sessions.map((s) => s.sampleIds[0]),
      ['harvard-01', 'harvard-02', 'harvard-03', 'harvard-04'],
    );
  });

  it('merge refuses runs of different workloads, naming both and what differs, unless --allow-mixed, which keeps each part labelled', async () => {
    const [stt, tts, out] = await Promise.all([tempDir(), tempDir(), tempDir()]);
    // Both on the file's server (its speech endpoint is its origin on ws://): the workloads differ whoever serves them.
    const speechTarget = `ws://${new URL(LOCAL.target).host}`;
    await Promise.all([
      run({ ...LOCAL, maxSessions: 2, pace: UNPACED, turnsPerSession: 1, outputDir: stt }),
      run({ protocol: 'vllm-omni-speech-ws', target: speechTarget, model: DEFAULT_MODELS['vllm-omni-speech-ws'], maxSessions: 2, outputDir: tts }),
    ]);
    const refused = await runNode([CLI, 'report', 'merge', stt, tts, '--output-dir', out]);
    assert.equal(refused.code, 2, refused.stderr);
    const line = refused.stderr.trim();
    assert.equal(line.split('\n').length, 1, line);
    assert.ok(line.includes(`${stt} and ${tts} ran different workloads (task stt vs tts, protocol `), line);
    assert.match(line, /model .* vs .*\); .*--allow-mixed/);

    // The JSON report alone: what is checked here (the page of a mixed merge is html-mixed.test's).
    const mixed = await runNode([CLI, 'report', 'merge', stt, tts, '--allow-mixed', '--outputs', 'json', '--output-dir', out]);
    assert.equal(mixed.code, 0, mixed.stderr);
    const merged = await readHeldReport(out);
    assert.deepEqual(
      merged.benchmarks.map((b) => b.label),
      [`${stt}: synchronous`, `${tts}: synchronous`],
      'each part keeps its own level, labelled by its source',
    );
    const [sttLevel, ttsLevel] = merged.benchmarks;
    assert.ok(sttLevel!.sessions.every((s) => s.timeline.task === 'stt') && ttsLevel!.sessions.every((s) => s.timeline.task === 'tts'));
    assert.equal(sttLevel!.summary.metrics.ttft_ms!.count, 2);
    assert.equal(ttsLevel!.summary.metrics.ttfa_ms!.count, 2, "the speech part's figures stay");
    assert.ok(ttsLevel!.summary.throughput.audioS > 0, 'the audio generated counts');
  });

  it('merge of sequential runs takes throughput over their measured spans, not the gap between them', async () => {
    const a = await run({ ...LOCAL, maxSessions: 2, pace: UNPACED, turnsPerSession: 1 });
    await new Promise((resolve) => setTimeout(resolve, 300)); // a gap, which the merged span must leave out to the microsecond
    const b = await run({ ...LOCAL, maxSessions: 2, pace: UNPACED, turnsPerSession: 1 });
    const alone = [a, b].map((r) => r.report.benchmarks[0]!.summary.throughput);
    const { throughput } = mergeReports([a.report, b.report], ['a', 'b']).benchmarks[0]!.summary;
    assert.ok(Math.abs(throughput.wallS - (alone[0]!.wallS + alone[1]!.wallS)) < 1e-6, `${throughput.wallS} s against ${alone[0]!.wallS} + ${alone[1]!.wallS}`);
    assert.equal(throughput.audioS, alone[0]!.audioS + alone[1]!.audioS);
    const rates = alone.map((t) => t.audioSPerWallS);
    assert.ok(
      throughput.audioSPerWallS >= Math.min(...rates) * 0.999 && throughput.audioSPerWallS <= Math.max(...rates) * 1.001,
      `${throughput.audioSPerWallS} audio s/s merged, ${rates.join(' and ')} alone`,
    );
  });

  it('compare finds a real difference and none between a run and itself', async () => {
    const slow = await testServer({ latency: { baseDelayMs: 400, jitterMs: 10, perWordMs: 10, finalizeMs: 60, capacity: 16, seed: 1 } });
    const fast = await testServer({ latency: { baseDelayMs: 100, jitterMs: 10, perWordMs: 10, finalizeMs: 60, capacity: 16, seed: 1 } });
    const [a, b] = await Promise.all([
      run({ target: fast.url, model: DEFAULT_MODEL, maxSessions: 6, pace: UNPACED }),
      run({ target: slow.url, model: DEFAULT_MODEL, maxSessions: 6, pace: UNPACED }),
    ]);
    const ttft = compareReports(a.report, b.report).metrics.find((m) => m.metric === 'ttft_ms')!;
    assert.ok(ttft.deltaP50 > 250 && ttft.ci95[0] > 0, `Δ ${ttft.deltaP50} [${ttft.ci95.join(',')}]`);
    const same = compareReports(a.report, a.report).metrics.find((m) => m.metric === 'ttft_ms')!;
    assert.equal(same.deltaP50, 0);
    assert.ok(same.ci95[0] <= 0 && same.ci95[1] >= 0);
  });
});

function closeOf(timeline: SessionTimeline): NonNullable<WebSocketTransport['close']> {
  return (timeline.transport as WebSocketTransport).close!;
}

describe('reports of many sessions', () => {
  it('report.json is written session by session, byte for byte what JSON.stringify writes', async () => {
    const dir = await tempDir();
    const { report } = await run({ ...LOCAL, maxSessions: 2, pace: UNPACED, outputDir: dir });
    // What report.json stores: every session without its timeline (in the log it names) and what was taken from it.
    const stored = (value: object): string => JSON.stringify(value, (key, v: unknown) => (IN_MEMORY_ONLY.has(key) ? undefined : v), 1) + '\n';
    assert.equal(await readFile(join(dir, 'report.json'), 'utf8'), stored({ ...report, sessionLog: SESSION_LOG }));
    const final = report.benchmarks[0]!.sessions[0]!.timeline.received.find((e) => e.kind === 'text_final')!;
    final.text = 'line\nbreak, "quotes", tab\t, and 🎙';
    const variants: HeldReport[] = [
      report,
      { ...report, benchmarks: [] },
      { ...report, stoppedBy: undefined, benchmarks: [...report.benchmarks, { ...report.benchmarks[0]!, label: 'empty', sessions: [] }] },
    ];
    for (const variant of variants) assert.equal([...reportJsonChunks(variant)].join(''), stored(variant));
    // Rendered from the session log, sessions keep their metrics where the values lie, written by their layout's template.
    const rendered = await readReport(dir);
    const [first, second] = rendered.benchmarks[0]!.sessions as Array<Report['benchmarks'][number]['sessions'][number] & { metrics: StoredMetrics }>;
    assert.ok(first!.metrics instanceof StoredMetrics && second!.metrics.layout === first!.metrics.layout, 'both sessions share a layout');
    const { chunk, at, size } = first!.metrics;
    [NaN, -0, Infinity, 1e308, 5e-324].forEach((value, k) => (chunk[at + ((k * 3) % size)] = value));
    assert.equal([...reportJsonChunks(rendered)].join(''), stored(rendered));
    // A session whose metrics are not its last field written, or its only one, is written whole.
    const only = Object.fromEntries(Object.keys(first!).map((key) => [key, key === 'metrics' ? first!.metrics : undefined]));
    for (const odd of [{ ...first!, metrics: first!.metrics, extra: 'last' }, { ...first!, extra: undefined }, only]) {
      const variant = { ...rendered, benchmarks: [{ ...rendered.benchmarks[0]!, sessions: [odd as NonNullable<typeof first>] }] };
      assert.equal([...reportJsonChunks(variant)].join(''), stored(variant));
    }
  });

  it('the session log is read line by line across read boundaries, and a torn last line is ignored', async () => {
    const dir = await tempDir();
    await run({ ...LOCAL, maxSessions: 2, pace: UNPACED, outputDir: dir });
    const [entry] = await readSessionLog(dir);
    // Multi-byte text in every line, over several of the stream's 1 MiB reads.
    const entries = Array.from({ length: 600 }, (_, index) => ({ ...entry!, record: { ...entry!.record, index, sampleIds: [`🎙 é ${index}`] } }));
    const lines = entries.map((e) => JSON.stringify(e) + '\n').join('');
    const torn = JSON.stringify(entries[0]).slice(0, 100);
    assert.ok(Buffer.byteLength(lines) > 2 * 2 ** 20, 'lines across two read boundaries at least');
    await writeFile(join(dir, SESSION_LOG), lines + torn);
    assert.deepEqual(await readSessionLog(dir), entries);
    // Streamed one entry at a time, each with its place in bytes, from which it reads back alone.
    const streamed: LoggedSession[] = [];
    const places: LogPlace[] = [];
    for await (const { entry: logged, at } of (await streamSessionLog(join(dir, SESSION_LOG)))!) {
      streamed.push(logged);
      places.push(at);
    }
    assert.deepEqual(streamed, entries);
    for (const i of [0, 123, 599]) assert.deepEqual(await readLoggedAt(places[i]!), entries[i], `entry ${i} read back at its place`);
  });
});
