import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { WebSocketServer } from 'ws';
import { printable } from '../src/util/printable.js';
import { renderComparison } from '../src/report/compare-console.js';
import { compareReports } from '../src/report/compare.js';
import { renderSummary } from '../src/report/console.js';
import type { Report } from '../src/report/schema.js';
import { run } from '../src/run/run.js';
import { toneWav } from './data-fixtures.js';
import { CLI, runNode, sharedTarget, tempDir } from './helpers.js';

// What these tests check of a run's report does not depend on where the server runs (see sharedTarget).
const LOCAL = await sharedTarget();

/** Clears the screen, sets the window title, and rings the bell: what a hostile server or file would send. */
const ESCAPES = '\u001b[2J\u001b]0;pwned\u0007\u009b31m';

/** Characters a terminal acts on, other than the newlines between lines. */
// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const UNPRINTABLE_IN_LINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('printable', () => {
  it('shows control and bidi characters as escapes, turns each run of line breaks and tabs into one space, and keeps other text', () => {
    assert.equal(printable(`code${ESCAPES}end`), 'code\\x1b[2J\\x1b]0;pwned\\x07\\x9b31mend');
    assert.equal(printable('a\r\nb\tc\u2028d\u202eevil\u2066e\u0000\u007f'), 'a b c d\\u202eevil\\u2066e\\x00\\x7f');
    assert.equal(printable('naïve 🎙 日本語 — ok'), 'naïve 🎙 日本語 — ok');
  });
});

describe('server- and file-supplied strings reach the console only through printable', () => {
  it('the summary: failure codes and messages, levels, model, target and SLOs', async () => {
    const { report } = await run({ ...LOCAL, maxSessions: 1, pace: { kind: 'none' } });
    const benchmark = report.benchmarks[0]!;
    const withText = (bad: string): Report => ({
      ...report,
      config: { ...report.config, model: `m${bad}`, target: `ws://x/${bad}`, data: `d${bad}` },
      benchmarks: [
        {
          ...benchmark,
          label: `level${bad}`,
          summary: {
            ...benchmark.summary,
            failures: [{ class: 'server_error', stage: 'ready', code: `bad${bad}`, message: `closed\nreason${bad}`, count: 1 }],
            slos: [{ slo: `p95(ttft_ms)<1${bad}`, pass: true, value: 1 }] as typeof benchmark.summary.slos,
          },
        },
      ],
    });
    const hostile = withText(`\n${ESCAPES}`);
    const text = renderSummary(hostile, { definitions: true });
    assert.equal(text.split('\n').length, renderSummary(withText(''), { definitions: true }).split('\n').length, 'no line was split');
    assert.doesNotMatch(text, UNPRINTABLE_IN_LINE);
    assert.match(text, /^failed ×1: server_error \(bad \\x1b\[2J\\x1b\]0;pwned\\x07\\x9b31m\) at ready: closed reason \\x1b\[2J\\x1b\]0;pwned\\x07\\x9b31m$/m);
    assert.match(text, /^model m \\x1b\[2J\\x1b\]0;pwned\\x07\\x9b31m · data d \\x1b\[2J\\x1b\]0;pwned\\x07\\x9b31m /m);
  });

  it('the compare table: labels, models and targets from report files', async () => {
    const { report } = await run({ ...LOCAL, maxSessions: 1, pace: { kind: 'none' } });
    const hostile: Report = {
      ...report,
      config: { ...report.config, model: `m\n${ESCAPES}` },
      benchmarks: report.benchmarks.map((b) => ({ ...b, label: `l${ESCAPES}` })),
    };
    const text = renderComparison(compareReports(hostile, hostile));
    assert.doesNotMatch(text, UNPRINTABLE_IN_LINE);
    assert.match(text, /^A: l\\x1b\[2J\\x1b\]0;pwned\\x07\\x9b31m · m \\x1b\[2J\\x1b\]0;pwned\\x07\\x9b31m · /m);
  });

  it('dataset inspect: file names, labels and the file content a problem quotes', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'a.wav'), toneWav(0.5));
    const manifest = join(dir, 'set.jsonl');
    await writeFile(
      manifest,
      [
        JSON.stringify({ id: 'a', audio: 'a.wav', language: `en${ESCAPES}`, split: `test${ESCAPES}` }),
        JSON.stringify({ id: 'b', audio: `missing${ESCAPES}.wav` }),
        `{"id": "${ESCAPES}`,
      ].join('\n'),
    );
    const { code, stdout, stderr } = await runNode([CLI, 'dataset', 'inspect', manifest]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^languages +en\\x1b\[2J\\x1b\]0;pwned\\x07\\x9b31m 1$/m);
    assert.match(stdout, /^ {2}.*set\.jsonl line 2: .*missing\\x1b\[2J\\x1b\]0;pwned\\x07\\x9b31m\.wav/m);
    assert.match(stdout, /^ {2}.*set\.jsonl line 3: not valid JSON/m);
    assert.doesNotMatch(stdout, UNPRINTABLE_IN_LINE);
  });

  it('a spawned run against a server whose error code and message hold escapes prints them defused', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => wss.once('listening', resolve));
    after(() => new Promise((resolve) => wss.close(resolve)));
    wss.on('connection', (ws) => ws.send(JSON.stringify({ type: 'error', error: `boom\n${ESCAPES}`, code: `model_not_found${ESCAPES}` })));
    const { port } = wss.address() as { port: number };
    const { code, stdout, stderr } = await runNode([
      CLI,
      'run',
      '--target',
      `ws://127.0.0.1:${port}/v1/realtime`,
      '--model',
      'm',
      '--max-sessions',
      '1',
      '--output-dir',
      await tempDir(),
    ]);
    assert.equal(code, 3, stderr);
    assert.match(
      stdout,
      /^failed ×1: server_error \(model_not_found\\x1b\[2J\\x1b\]0;pwned\\x07\\x9b31m\) at ready: server error model_not_found\\x1b\[2J\\x1b\]0;pwned\\x07\\x9b31m: boom \\x1b\[2J\\x1b\]0;pwned\\x07\\x9b31m$/m,
    );
    assert.doesNotMatch(stdout + stderr, UNPRINTABLE_IN_LINE);
  });
});
