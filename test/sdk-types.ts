import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import WebSocket from 'ws';
import { decodeAudio } from '../src/audio/decode.js';
import { toPcm16 } from '../src/audio/pcm.js';
import { resample } from '../src/audio/resample.js';
import { BUNDLED_SAMPLES_DIR } from '../src/data/bundled.js';
import { messageText } from './helpers.js';

/**
 * Holds values captured at run time to an official SDK's TypeScript types: each is
 * written into a TypeScript file as `<value> satisfies <type>` after `preamble` (the
 * imports and aliases it names) and compiled. A missing field, a field of the wrong type,
 * a `null` the type does not allow, a field the type does not know or a message type the
 * SDK does not have are compile errors, so a drift on either side fails the test.
 */
export function assertTypes(preamble: string, checks: Array<{ value: unknown; type: string }>): void {
  const errors = typeErrors(preamble, checks);
  assert.deepEqual(errors, [], errors.join('\n'));
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The files a check reads besides its own (TypeScript's libs, the SDKs' declarations), parsed once per test file and
 * shared by its checks' programs, as an editor's language service shares them: they never change while the tests
 * run, and parsing them again was most of each check's CPU.
 */
const parsed = new Map<string, ts.SourceFile | undefined>();

export function typeErrors(preamble: string, checks: Array<{ value: unknown; type: string }>): string[] {
  // In the repository's root, so the SDKs resolve from its node_modules; never written to disk.
  const file = join(ROOT, '__sdk_shapes_check__.ts');
  const head = preamble.split('\n').length;
  const source = [preamble, ...checks.map((c, i) => `export const check${i} = ${JSON.stringify(shortened(c.value))} satisfies ${c.type};`)].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const read = host.readFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    if (name === file) return ts.createSourceFile(name, source, language);
    if (!parsed.has(name)) parsed.set(name, getSourceFile(name, language, ...rest));
    return parsed.get(name);
  };
  host.fileExists = (name) => name === file || fileExists(name);
  host.readFile = (name) => (name === file ? source : read(name));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    const check = checks[line - head];
    const value = check?.value as { type?: unknown; message?: unknown; message_type?: unknown } | undefined;
    const named = [value?.type, value?.message, value?.message_type].find((n): n is string => typeof n === 'string');
    const what = check ? (named ?? check.type) : (d.file?.fileName ?? 'options');
    return `${what}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

/** Base64 audio cut short (every literal the types name is far shorter): the same types, a smaller file to compile. */
function shortened(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 256 ? value.slice(0, 16) : value;
  if (Array.isArray(value)) return value.map(shortened);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortened(v)]));
  return value;
}

/** A server's `ws://` scheme, host and port, from its URL. */
export function wsOrigin(url: string): string {
  return new URL(url).origin.replace(/^http/, 'ws');
}

/** The first bundled sample (the birch canoe) as PCM16 at `rate`. */
export async function harvardPcm16(rate = 16_000): Promise<Buffer> {
  const wav = join(BUNDLED_SAMPLES_DIR, 'harvard-01.wav');
  return toPcm16((await resample(await decodeAudio(await readFile(wav), wav), rate)).samples);
}

/** One JSON message as a provider sent it. */
export type WireMessage = Record<string, unknown>;

/**
 * Opens a WebSocket, sends `steps` at once (audio as binary frames of 100 ms at 16 kHz, or
 * as `audio` frames them where the wire wants otherwise; messages as JSON) and gathers
 * every message the server sends until it closes, or until `enough` says so (20 s at most).
 */
export function exchange<T extends WireMessage = WireMessage>(
  url: string,
  steps: Array<Buffer | object>,
  { audio = (pcm) => pcm, enough = () => false }: { audio?: (pcm: Buffer) => Buffer | string; enough?: (seen: T[]) => boolean } = {},
): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const seen: T[] = [];
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`the server did not close in 20 s; it sent ${JSON.stringify(seen).slice(0, 400)}`));
    }, 20_000);
    ws.on('open', () => {
      for (const step of steps) {
        if (!Buffer.isBuffer(step)) ws.send(JSON.stringify(step));
        else for (let at = 0; at < step.length; at += 3_200) ws.send(audio(step.subarray(at, at + 3_200)));
      }
    });
    ws.on('message', (data) => {
      seen.push(JSON.parse(messageText(data)) as T);
      if (enough(seen)) ws.close();
    });
    ws.on('close', () => {
      clearTimeout(timer);
      resolve(seen);
    });
    ws.on('error', reject);
  });
}
