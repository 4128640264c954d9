import { availableParallelism } from 'node:os';
import { InvalidArgumentError } from '@commander-js/extra-typings';
import { parseListen, type Listen } from '../live/serve.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../report/outputs.js';
import { parseStages, type LoadStage } from '../load/stages.js';

export function int(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number.');
  return n;
}

export function num(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a non-negative number.');
  return n;
}

/** A number above 0, e.g. an arrival rate: 0 and lists are refused alike, here, with one message. */
export function positiveNum(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected one number above 0, e.g. 2.5.');
  return n;
}

/** A whole number from 1 up. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number from 1 up.');
  return n;
}

/** `--workers`: a count from 1 up, or `auto` for one per core this machine has. */
export function workerCount(value: string): number {
  return value === 'auto' ? availableParallelism() : positiveInt(value);
}

/** A TCP port, 0 to 65535 (0 picks a free one). */
export function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535.');
  return n;
}

/** A number in [0, 1]. */
export function fraction(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1)) throw new InvalidArgumentError('expected a number from 0 to 1.');
  return n;
}

/** A comma-separated list of whole numbers, e.g. `1,2,4,8`. */
export function intList(value: string): number[] {
  const items = value.split(',').map((item) => Number(item.trim()));
  if (items.length === 0 || items.some((n) => !Number.isInteger(n) || n < 1))
    throw new InvalidArgumentError('expected whole numbers from 1 up, separated by commas.');
  return items;
}

/** A number of sessions (`5`) or a duration in seconds (`10s`). */
export function sessionsOrSeconds(value: string): { sessions: number } | { ms: number } {
  const match = /^(\d+(?:\.\d+)?)(s?)$/.exec(value.trim());
  if (!match || (!match[2] && !Number.isInteger(Number(match[1]))))
    throw new InvalidArgumentError('expected a number of sessions (e.g. 5) or seconds (e.g. 10s).');
  return match[2] ? { ms: Number(match[1]) * 1000 } : { sessions: Number(match[1]) };
}

/** Stages, `30s:8,60s:32,30s:0`: each a duration and the target reached by its end. */
export function stageList(value: string): LoadStage[] {
  try {
    return parseStages(value);
  } catch (err) {
    throw new InvalidArgumentError(`${(err as Error).message}; expected stages such as 30s:8,60s:32,30s:0.`);
  }
}

/** A comma-separated list of output formats, e.g. `json,csv,md`. */
export function outputList(value: string): OutputFormat[] {
  const formats = value.split(',').map((f) => f.trim());
  const unknown = formats.filter((f) => !(OUTPUT_FORMATS as readonly string[]).includes(f));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown format ${unknown.join(', ')}; choose from ${OUTPUT_FORMATS.join(', ')}.`);
  return formats as OutputFormat[];
}

/** A duration in seconds: `90`, `90s`, `1.5m`, `2h`. */
export function seconds(value: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(value.trim());
  if (!match || !(Number(match[1]) > 0)) throw new InvalidArgumentError('expected a duration above 0, e.g. 60s, 1.5m or 2h.');
  const unit = (match[2] ?? 's') as 's' | 'm' | 'h';
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[unit];
}

/** `[host:]port`, e.g. `9464` (loopback) or `0.0.0.0:9464`. */
export function listenAddress(value: string): Listen {
  const listen = parseListen(value);
  if (!listen) throw new InvalidArgumentError('expected [host:]port, e.g. 9464 or 0.0.0.0:9464.');
  return listen;
}

/** `I/N`: shard I (from 0) of N, e.g. `0/4`. */
export function shardOf(value: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(value.trim());
  const [index, count] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!(count >= 1 && index < count)) throw new InvalidArgumentError('expected I/N, shard I (counting from 0) of N, e.g. 0/4.');
  return { index, count };
}
