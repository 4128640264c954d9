import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { promisify } from 'node:util';
import { encodeWaveFromFloat32Channels } from '@echogarden/wave-codec';
import { decodeAudio, type MonoAudio } from '../audio/decode.js';
import { resample } from '../audio/resample.js';
import type { SpeakerTurn, WordTiming } from './dataset.js';
import { DatasetError } from './errors.js';
import { formatRttm, toMs } from './rttm.js';

const run = promisify(execFile);

/** Text-to-speech programs from Debian that write a WAV file, in order of preference. */
export const SYNTH_ENGINES = {
  'espeak-ng': {
    defaultVoice: 'en-us',
    /** A conversation's speakers: voices and variants that sound apart (`+f3`: a female variant). */
    conversationVoices: ['en-us', 'en-gb+f3', 'en-gb-scotland', 'en-us+f4'],
    args: (voice: string, text: string, out: string) => ['-v', voice, '-w', out, text],
  },
  flite: {
    defaultVoice: 'slt',
    conversationVoices: ['slt', 'rms', 'awb', 'kal16'],
    args: (voice: string, text: string, out: string) => ['-voice', voice, '-t', text, '-o', out],
  },
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
  const lines = await readLines(textFile);
  const engine = options.engine ?? (await firstInstalled());
  await requireInstalled(engine);
  const voice = options.voice ?? SYNTH_ENGINES[engine].defaultVoice;
  await checkVoice(engine, voice);
  const gapS = (options.wordGapMs ?? DEFAULT_WORD_GAP_MS) / 1000;
  const stem = basename(textFile, extname(textFile));
  const width = Math.max(3, String(lines[lines.length - 1]!.number).length);
  return inWorkFolder(options.out, async (work) => {
    const ids: string[] = [];
    for (const { line, number } of lines) {
      const id = `${stem}-${String(number).padStart(width, '0')}`;
      const spoken = await speakWords(line, { engine, voice, gapS, work });
      const audio = await resample(padded(spoken.samples, spoken.rate), SYNTH_RATE);
      await writeSample(options.out, id, audio, line, shifted(spoken.words, LEAD_SILENCE_S));
      ids.push(id);
    }
    return { engine, voice, ids };
  });
}

export interface ConversationOptions extends Omit<SynthOptions, 'voice'> {
  /** How many speakers take turns, line by line (line 1 the first speaker, line 2 the second, …). */
  speakers: number;
  /** One voice per speaker; default the engine's `conversationVoices`. */
  voices?: string[];
  /** How far a turn starts before the one it answers ends, ms, at every other change of speaker (the first, third, …); 0: none. */
  overlapMs?: number;
  /** Silence between turns at the other changes of speaker (all of them without an overlap), ms. */
  pauseMs?: number;
}

export const DEFAULT_PAUSE_MS = 400;

export interface ConversationResult {
  engine: SynthEngine;
  /** Each speaker's label in the RTTM, and its voice. */
  speakers: Array<{ label: string; voice: string }>;
  id: string;
  turns: SpeakerTurn[];
}

/**
 * Writes one conversation from a text file, one turn per non-empty line, the speakers
 * taking the lines in turn, each in its own voice: `<name>.wav`, its reference speaker
 * turns `<name>.rttm`, `<name>.txt` (every word in the order it starts, as one channel
 * carries them) and `<name>.words.json` (each word with its speaker). Turns alternate
 * overlapping the turn before (by `overlapMs`) and following it after `pauseMs`. An
 * overlap is cut so that it never covers more than half the turn it overlaps, nor
 * makes a speaker overlap their own previous turn. A turn runs from its first word's
 * audible start to its last word's audible end, so the RTTM is exact by construction.
 */
export async function synthesizeConversation(textFile: string, options: ConversationOptions): Promise<ConversationResult> {
  const lines = await readLines(textFile);
  if (!(Number.isInteger(options.speakers) && options.speakers >= 2))
    throw new DatasetError(`a conversation needs 2 speakers or more, got ${options.speakers}`);
  const engine = options.engine ?? (await firstInstalled());
  await requireInstalled(engine);
  const voices = options.voices ?? SYNTH_ENGINES[engine].conversationVoices.slice(0, options.speakers);
  if (voices.length < options.speakers) {
    throw new DatasetError(`${options.speakers} speakers need ${options.speakers} voices, and ${voices.length} were given (${voices.join(', ')})`);
  }
  for (const voice of new Set(voices)) await checkVoice(engine, voice);
  const speakers = voices.slice(0, options.speakers).map((voice, i) => ({ label: `spk${i + 1}`, voice }));
  const gapS = (options.wordGapMs ?? DEFAULT_WORD_GAP_MS) / 1000;
  const id = basename(textFile, extname(textFile));
  return inWorkFolder(options.out, async (work) => {
    const placed: Array<{ speaker: string; at: number; samples: Float32Array; words: WordTiming[] }> = [];
    for (const [i, { line }] of lines.entries()) {
      const speaker = speakers[i % speakers.length]!;
      const spoken = await speakWords(line, { engine, voice: speaker.voice, gapS, work });
      const samples = (await resample({ samples: spoken.samples, sampleRate: spoken.rate }, SYNTH_RATE)).samples;
      const at = i === 0 ? LEAD_SILENCE_S : turnStart(placed, speaker.label, i % 2 === 1 ? -(options.overlapMs ?? 0) : (options.pauseMs ?? DEFAULT_PAUSE_MS));
      placed.push({ speaker: speaker.label, at, samples, words: shifted(spoken.words, at).map((w) => ({ ...w, speaker: speaker.label })) });
    }
    const end = Math.max(...placed.map((p) => Math.round(p.at * SYNTH_RATE) + p.samples.length)) + Math.round(TRAIL_SILENCE_S * SYNTH_RATE);
    const mix = new Float32Array(end);
    for (const p of placed) {
      const start = Math.round(p.at * SYNTH_RATE);
      for (let j = 0; j < p.samples.length; j++) mix[start + j] = Math.max(-1, Math.min(1, mix[start + j]! + p.samples[j]!));
    }
    const turns = placed.map((p) => ({ speaker: p.speaker, startMs: toMs(p.words[0]!.start), endMs: toMs(p.words[p.words.length - 1]!.end) }));
    const words = placed.flatMap((p) => p.words).sort((a, b) => a.start - b.start);
    await writeSample(options.out, id, { samples: mix, sampleRate: SYNTH_RATE }, words.map((w) => w.word).join(' '), words);
    await writeFile(join(options.out, `${id}.rttm`), formatRttm(id, turns));
    return { engine, speakers, id, turns };
  });
}

/**
 * Where the next turn starts, seconds: `offsetMs` after the last turn ends (negative:
 * overlapping it), but not before half of that turn nor before `speaker`'s own last turn ends.
 */
function turnStart(placed: ReadonlyArray<{ speaker: string; at: number; samples: Float32Array }>, speaker: string, offsetMs: number): number {
  const endOf = (p: (typeof placed)[number]): number => p.at + p.samples.length / SYNTH_RATE;
  const last = placed[placed.length - 1]!;
  const own = placed.filter((p) => p.speaker === speaker).at(-1);
  return round(Math.max(endOf(last) + offsetMs / 1000, (last.at + endOf(last)) / 2, own ? endOf(own) : 0));
}

async function readLines(textFile: string): Promise<Array<{ line: string; number: number }>> {
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
  return lines;
}

/** Runs `write` with a scratch folder for the engine's files, creating `out` first and removing the scratch after. */
async function inWorkFolder<T>(out: string, write: (work: string) => Promise<T>): Promise<T> {
  const work = await mkdtemp(join(tmpdir(), 'voxbench-synth-'));
  try {
    await mkdir(out, { recursive: true });
    return await write(work);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function writeSample(out: string, id: string, audio: MonoAudio, text: string, words: WordTiming[]): Promise<void> {
  await writeFile(join(out, `${id}.wav`), encodeWaveFromFloat32Channels([audio.samples], audio.sampleRate, 16));
  await writeFile(join(out, `${id}.txt`), `${text}\n`);
  await writeFile(join(out, `${id}.words.json`), wordsJson(words));
}

interface Speaker {
  engine: SynthEngine;
  voice: string;
  gapS: number;
  work: string;
}

/** A line's words, each trimmed to its audible edges and joined by the speaker's gap; timings from the first audible sample. */
async function speakWords(line: string, speaker: Speaker): Promise<{ samples: Float32Array; rate: number; words: WordTiming[] }> {
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
  const samples = new Float32Array(clips.reduce((n, c) => n + c.samples.length, 0) + gap * (clips.length - 1));
  const words: WordTiming[] = [];
  let at = 0;
  for (const clip of clips) {
    samples.set(clip.samples, at);
    words.push({ word: clip.word, start: round(at / rate), end: round((at + clip.samples.length) / rate) });
    at += clip.samples.length + gap;
  }
  return { samples, rate, words };
}

/** Speech with the lead and trailing silence of a synthesized sample around it. */
function padded(speech: Float32Array, rate: number): MonoAudio {
  const lead = Math.round(LEAD_SILENCE_S * rate);
  const samples = new Float32Array(lead + speech.length + Math.round(TRAIL_SILENCE_S * rate));
  samples.set(speech, lead);
  return { samples, sampleRate: rate };
}

const shifted = (words: WordTiming[], byS: number): WordTiming[] => words.map((w) => ({ ...w, start: round(w.start + byS), end: round(w.end + byS) }));

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
