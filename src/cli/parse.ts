import { availableParallelism } from 'node:os';
import { InvalidArgumentError } from '@commander-js/extra-typings';
import { parseListen, type Listen } from '../live/serve.js';
import { parseStages, type LoadStage } from '../load/stages.js';
import { parseDuration } from '../util/duration.js';

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

/** A number of sessions (`5`) or a duration with its unit (`10s`, `500ms`). */
export function sessionsOrSeconds(value: string): { sessions: number } | { ms: number } {
  const sessions = Number(value.trim());
  if (Number.isInteger(sessions) && sessions >= 0 && value.trim() !== '') return { sessions };
  const ms = /[a-z]$/.test(value.trim()) ? parseDuration(value, 's') : undefined;
  if (ms === undefined) throw new InvalidArgumentError('expected a number of sessions (e.g. 5) or a duration (e.g. 10s or 500ms).');
  return { ms };
}

/** Stages, `30s:8,60s:32,30s:0`: each a duration and the target reached by its end. */
export function stageList(value: string): LoadStage[] {
  try {
    return parseStages(value);
  } catch (err) {
    throw new InvalidArgumentError(`${(err as Error).message}; expected stages such as 30s:8,60s:32,30s:0.`);
  }
}

/** A duration above 0 in seconds: `90` (seconds), `90s`, `250ms`, `1.5m`, `2h`. */
export function seconds(value: string): number {
  const ms = parseDuration(value, 's');
  if (!(ms !== undefined && ms > 0)) throw new InvalidArgumentError('expected a duration above 0, e.g. 60s, 250ms, 1.5m or 2h.');
  return ms / 1000;
}

/** A duration in seconds, 0 or more: `90` (seconds), `90s`, `250ms`, `1.5m`. */
export function durationSeconds(value: string): number {
  const ms = parseDuration(value, 's');
  if (ms === undefined) throw new InvalidArgumentError('expected a duration: seconds (e.g. 90 or 90s) or with its unit (250ms, 1.5m, 2h).');
  return ms / 1000;
}

/** A duration in ms: `250` (ms), `250ms`, `1.5s`, `2m`. */
export function milliseconds(value: string): number {
  const ms = parseDuration(value, 'ms');
  if (ms === undefined) throw new InvalidArgumentError('expected a duration: ms (e.g. 250 or 250ms) or with its unit (1.5s, 2m).');
  return ms;
}

/** A duration in ms above 0. */
export function positiveMilliseconds(value: string): number {
  const ms = milliseconds(value);
  if (!(ms > 0)) throw new InvalidArgumentError('expected a duration above 0: ms (e.g. 250 or 250ms) or with its unit (1.5s, 2m).');
  return ms;
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
