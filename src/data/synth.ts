import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { promisify } from 'node:util';
import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import { decodeAudio, type MonoAudio } from '../audio/decode.js';
import { resample } from '../audio/resample.js';
import type { WordTiming } from './dataset.js';
import { DatasetError } from './errors.js';

const run = promisify(execFile);

/** Text-to-speech programs from Debian that write a WAV file, in order of preference. */
export const SYNTH_ENGINES = {
  'espeak-ng': { defaultVoice: 'en-us', args: (voice: string, text: string, out: string) => ['-v', voice, '-w', out, text] },
  flite: { defaultVoice: 'slt', args: (voice: string, text: string, out: string) => ['-voice', voice, '-t', text, '-o', out] },
} as const;

export type SynthEngine = keyof typeof SYNTH_ENGINES;

export interface SynthOptions {
  /** Folder to write the dataset into (created if missing). */
  out: string;
  /** Default: espeak-ng if installed, else flite. */
  engine?: SynthEngine;
  /** The engine's voice (espeak-ng: `en-us`, `en-gb`, …; flite: `slt`, `rms`, `awb`, `kal16`, …). */
  voice?: string;
  /** Silence between words, ms. */
  wordGapMs?: number;
}

export interface SynthResult {
  engine: SynthEngine;
  voice: string;
  ids: string[];
}

/** The engine is not installed; the message names the Debian package. */
export class SynthesizerMissingError extends DatasetError {
  override name = 'SynthesizerMissingError';
}

const SYNTH_RATE = 16_000;
export const DEFAULT_WORD_GAP_MS = 80;
const LEAD_SILENCE_S = 0.2;
const TRAIL_SILENCE_S = 0.4;
/** A synthesized word starts and ends where its audio first and last exceeds about -60 dBFS. */
const WORD_EDGE = 1 / 1024;

/**
 * Writes a folder dataset from a text file, one utterance per non-empty line:
 * `<name>-<line>.wav` (16 kHz, 16-bit mono), `.txt`, and `.words.json`. Each word is
 * synthesized on its own, trimmed to its audible edges and placed after a fixed gap,
 * so the word timings are exact by construction rather than estimated.
 */
export async function synthesizeDataset(textFile: string, options: SynthOptions): Promise<SynthResult> {
  let text: string;
  try {
    text = await readFile(textFile, 'utf8');
  } catch (err) {
    throw new DatasetError(`${textFile}: cannot read the text file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const lines = text
    .split(/\r?\n/)
    .map((line, i) => ({ line: line.trim(), number: i + 1 }))
    .filter((l) => l.line !== '');
  if (lines.length === 0) throw new DatasetError(`${textFile}: has no lines of text to speak`);
  const engine = options.engine ?? (await firstInstalled());
  await requireInstalled(engine);
  const voice = options.voice ?? SYNTH_ENGINES[engine].defaultVoice;
  await checkVoice(engine, voice);
  const gapS = (options.wordGapMs ?? DEFAULT_WORD_GAP_MS) / 1000;
  const stem = basename(textFile, extname(textFile));
  const width = Math.max(3, String(lines[lines.length - 1]!.number).length);
  const work = await mkdtemp(join(tmpdir(), 'voxbench-synth-'));
  try {
    await mkdir(options.out, { recursive: true });
    const ids: string[] = [];
    for (const { line, number } of lines) {
      const id = `${stem}-${String(number).padStart(width, '0')}`;
      const { audio, words } = await speakLine(line, { engine, voice, gapS, work });
      await writeFile(join(options.out, `${id}.wav`), encodeWaveFromFloat32Channels([audio.samples], audio.sampleRate, 16));
      await writeFile(join(options.out, `${id}.txt`), `${line}\n`);
      await writeFile(join(options.out, `${id}.words.json`), wordsJson(words));
      ids.push(id);
    }
    return { engine, voice, ids };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

interface Speaker {
  engine: SynthEngine;
  voice: string;
  gapS: number;
  work: string;
}

async function speakLine(line: string, speaker: Speaker): Promise<{ audio: MonoAudio; words: WordTiming[] }> {
  const clips: Array<{ word: string; samples: Float32Array }> = [];
  let rate = 0;
  for (const token of line.split(/\s+/)) {
    // The label drops surrounding punctuation ("planks." → "planks"); the engine hears the token.
    const word = token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (word === '') continue;
    const audio = await speakWord(token, speaker);
    rate = audio.sampleRate;
    clips.push({ word, samples: audibleSpan(audio.samples) });
  }
  if (clips.length === 0) throw new DatasetError(`"${line}" has no words to speak`);
  const gap = Math.round(speaker.gapS * rate);
  const lead = Math.round(LEAD_SILENCE_S * rate);
  const length = lead + clips.reduce((n, c) => n + c.samples.length, 0) + gap * (clips.length - 1) + Math.round(TRAIL_SILENCE_S * rate);
  const samples = new Float32Array(length);
  const words: WordTiming[] = [];
  let at = lead;
  for (const clip of clips) {
    samples.set(clip.samples, at);
    words.push({ word: clip.word, start: round(at / rate), end: round((at + clip.samples.length) / rate) });
    at += clip.samples.length + gap;
  }
  return { audio: await resample({ samples, sampleRate: rate }, SYNTH_RATE), words };
}

async function speakWord(token: string, { engine, voice, work }: Speaker): Promise<MonoAudio> {
  const out = join(work, 'word.wav');
  await run(engine, SYNTH_ENGINES[engine].args(voice, token, out));
  const audio = await decodeAudio(await readFile(out), `${engine} output for "${token}"`);
  if (audibleSpan(audio.samples).length === 0) throw new DatasetError(`${engine} produced no audible speech for "${token}"`);
  return audio;
}

/** The samples from the first to the last one above the word-edge level. */
function audibleSpan(samples: Float32Array): Float32Array {
  const loud = (s: number): boolean => Math.abs(s) > WORD_EDGE;
  const first = samples.findIndex(loud);
  return first < 0 ? new Float32Array(0) : samples.subarray(first, samples.findLastIndex(loud) + 1);
}

/** One word per line, as the bundled samples have them. */
function wordsJson(words: WordTiming[]): string {
  return `[\n${words.map((w) => `  ${JSON.stringify(w).replace(/,"/g, ', "').replace(/":/g, '": ')}`).join(',\n')}\n]\n`;
}

/** Microsecond precision: more than any timing needs, and readable JSON. */
const round = (seconds: number): number => Math.round(seconds * 1e6) / 1e6;

async function isInstalled(engine: SynthEngine): Promise<boolean> {
  try {
    await run(engine, ['--version']);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

async function firstInstalled(): Promise<SynthEngine> {
  for (const engine of Object.keys(SYNTH_ENGINES) as SynthEngine[]) if (await isInstalled(engine)) return engine;
  throw new SynthesizerMissingError('dataset synth needs espeak-ng or flite, and neither is installed; install one with: apt-get install espeak-ng');
}

async function requireInstalled(engine: SynthEngine): Promise<void> {
  if (!(await isInstalled(engine))) throw new SynthesizerMissingError(`${engine} is not installed; install it with: apt-get install ${engine}`);
}

/** flite falls back to its default voice without a word, so its voice is checked against its list. */
async function checkVoice(engine: SynthEngine, voice: string): Promise<void> {
  if (engine === 'flite') {
    const { stdout } = await run('flite', ['-lv']);
    const voices = stdout.replace('Voices available:', '').trim().split(/\s+/);
    if (!voices.includes(voice)) throw new DatasetError(`flite has no voice "${voice}"; it has ${voices.join(', ')}`);
  } else {
    try {
      await run(engine, ['-v', voice, '-q', 'x']);
    } catch {
      throw new DatasetError(`espeak-ng has no voice "${voice}"; list them with: espeak-ng --voices`);
    }
  }
}
