import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { WebSocketServer } from 'ws';
import { inspectDataset } from '../src/data/inspect.js';
import { frameTap } from '../src/proxy/frame-tap.js';
import { run } from '../src/run/run.js';
import { parseFaultScenario } from '../src/server/faults/faults.js';
import { DEFAULT_MODEL, OPENAI_MODELS } from '../src/server/server.js';
import { toneWav } from './data-fixtures.js';
import { CLI, runNode, tempDir, testServer } from './helpers.js';

/** Sets the window title, rings the bell and clears the screen; then C0, DEL, C1 and bidi overrides, and a line break. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u0000\u0008\u007f\u0085\u009b31m\u202eevil\u2066\u200fx\r\nnext';
/** The same, as every text output shows it. */
const SHOWN = '\\x1b]0;pwned\\x07\\x1b[2J\\x00\\x08\\x7f\\x85\\x9b31m\\u202eevil\\u2066\\u200fx next';

/** Characters a terminal acts on, other than the line ends and tabs a file's own layout holds. */
// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const TEXT_OUTPUTS = ['summary.md', 'sessions.csv', 'turns.csv', 'levels.csv', 'report.html'];

async function outputsOf(dir: string): Promise<Record<string, string>> {
  return Object.fromEntries(await Promise.all(TEXT_OUTPUTS.map(async (name) => [name, await readFile(join(dir, name), 'utf8')] as const)));
}

function noRawControl(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) assert.doesNotMatch(text, RAW_CONTROL, `${name} holds a raw control character`);
}

describe('server text in the text outputs', () => {
  it('an error code, message and model with escapes, C1 and bidi characters are shown as escapes in summary.md, the CSVs and report.html', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => wss.once('listening', resolve));
    after(() => new Promise((resolve) => wss.close(resolve)));
    wss.on('connection', (ws) => ws.send(JSON.stringify({ type: 'error', error: `boom${HOSTILE}`, code: `bad${HOSTILE}` })));
    const { port } = wss.address() as { port: number };
    const dir = await tempDir();
    await run({
      target: `ws://127.0.0.1:${port}/v1/realtime`,
      model: `m${HOSTILE}`,
      maxSessions: 1,
      pace: { kind: 'none' },
      outputDir: dir,
      outputs: ['json', 'csv', 'md', 'html'],
    });
    const files = await outputsOf(dir);
    noRawControl(files);
    const session = files['sessions.csv']!.split('\r\n')[1]!;
    assert.ok(session.includes(`,bad${SHOWN},`), session);
    assert.ok(session.includes(`: boom${SHOWN},`), session);
    // In Markdown the escapes' backslashes and the brackets are escaped too, so it renders as the CSV shows it.
    const markdown = SHOWN.replace(/[\\[\]]/g, '\\$&');
    assert.ok(files['summary.md']!.includes(`## voxbench: vllm · m${markdown}\n`), files['summary.md']);
    assert.ok(files['summary.md']!.includes(`| bad${markdown} |`), files['summary.md']);
    assert.ok(files['report.html']!.includes('bad\\x1b]0;pwned\\x07\\x1b[2J'), 'report.html shows the escapes');
  });

  for (const [fault, file, column] of [
    ['markup-strings', 'turns.csv', 'a transcript'],
    ['markup-strings+close:4001@final', 'sessions.csv', 'a close reason'],
  ] as const) {
    it(`${column} with escapes is shown as escapes in ${file} (${fault})`, async () => {
      const server = await testServer({ faults: [parseFaultScenario(fault)] });
      const dir = await tempDir();
      await run({
        target: server.url,
        protocol: 'openai',
        model: OPENAI_MODELS[0],
        maxSessions: 1,
        pace: { kind: 'none' },
        outputDir: dir,
        outputs: ['json', 'csv', 'md', 'html'],
      });
      const files = await outputsOf(dir);
      noRawControl(files);
      assert.ok(files[file]!.split('\r\n')[1]!.includes('<img src=x onerror=alert(1)>\\x1b[31m\\x1b]0;pwned\\x07\\x1b[2J'), files[file]);
    });
  }
});

describe('a WebSocket message over the size limit', () => {
  it('fails the session with a message naming its size and the client’s limit', async () => {
    const server = await testServer({ faults: [parseFaultScenario('oversized-frame')] });
    const { report } = await run({ target: server.url, model: DEFAULT_MODEL, maxSessions: 1, pace: { kind: 'none' } });
    const { outcome } = report.benchmarks[0]!.sessions[0]!;
    assert.equal(
      outcome.status === 'failed' && outcome.failure.message,
      'server sent a WebSocket message of 134217728 bytes (128.0 MiB), over the limit of 16777216 bytes (16.0 MiB)',
    );
  });

  it('stops the proxy’s metering with a message naming its size and the limit', async () => {
    const stopped: string[] = [];
    const tap = frameTap(false, 1024, { message: () => undefined, close: () => undefined, unreadable: (_t, message) => stopped.push(message) });
    // A text frame header announcing 2000 bytes: refused on the header, before its payload.
    tap(0, Buffer.from([0x81, 126, 2000 >> 8, 2000 & 0xff]));
    await new Promise((resolve) => setImmediate(resolve)); // the parser reports errors on a later tick
    assert.deepEqual(stopped, ['the server sent a WebSocket message of 2000 bytes, over the limit of 1024 bytes']);
  });
});

describe('dataset inspect', () => {
  /** A folder's manifest with problems in lines 2, 4 and 5 (found while listing, and while reading audio) and a second manifest. */
  async function datasetWithProblems(): Promise<{ dir: string; manifest: string }> {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.wav'), toneWav(0.5));
    await writeFile(join(dir, 'bad.wav'), 'not audio');
    const manifest = join(dir, 'set.jsonl');
    await writeFile(
      manifest,
      [
        JSON.stringify({ id: 'a', audio: 'a.wav' }),
        JSON.stringify({ id: 'b', audio: 'bad.wav' }),
        JSON.stringify({ id: 'c', audio: 'a.wav' }),
        '{"id": ',
        JSON.stringify({ id: 'a', audio: 'a.wav' }),
        JSON.stringify({ id: 'e', audio: 'missing.wav' }),
      ].join('\n'),
    );
    return { dir, manifest };
  }

  it('lists every problem in line order, though listing finds some before the audio of earlier lines is read', async () => {
    const { manifest } = await datasetWithProblems();
    const { code, stdout, stderr } = await runNode([CLI, 'dataset', 'inspect', manifest]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^problems \(4\):$/m);
    const places = stdout
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) => l.match(/^ {2}.*?set\.jsonl (line \d+):/)?.[1]);
    assert.deepEqual(places, ['line 2', 'line 4', 'line 5', 'line 6'], stdout);
  });

  it('keeps line order when a seed shuffles the order audio is read in', async () => {
    const { manifest } = await datasetWithProblems();
    for (const seed of [1, 2, 3, 4, 5]) {
      const { problems } = await inspectDataset(manifest, { seed, maxSamples: 10 });
      assert.deepEqual(
        problems.map((p) => p.line),
        [2, 4, 5, 6],
        `seed ${seed}`,
      );
    }
  });

  it('lists every problem of a folder’s files in file order when none is usable, then refuses it in one line', async () => {
    const dir = await tempDir();
    for (const name of ['c.wav', 'a.wav', 'b.wav']) await writeFile(join(dir, name), `not audio ${name}`);
    const { code, stdout, stderr } = await runNode([CLI, 'dataset', 'inspect', dir]);
    assert.equal(code, 2);
    assert.deepEqual(
      stdout
        .split('\n')
        .filter((l) => l.startsWith('  '))
        .map((l) => l.slice(2 + dir.length + 1, 2 + dir.length + 6)),
      ['a.wav', 'b.wav', 'c.wav'],
      stdout,
    );
    assert.match(stderr, new RegExp(`^voxbench: error: ${dir}: no usable samples; 3 skipped \\(first: ${dir}/a\\.wav: [^\\n]*\\)\\n$`));
  });
});
