import { parseDuration } from '../util/duration.js';

/**
 * Stages: a target that ramps linearly from 0 through each stage's target over the
 * stage's duration, as k6's ramping executors do
 * (https://grafana.com/docs/k6/latest/using-k6/scenarios/executors/ramping-vus/ and
 * .../ramping-arrival-rate/). The target is sessions open at once (closed loop) or
 * arrivals per second (open loop); a stage of 0 s jumps to its target.
 */
export interface LoadStage {
  durationMs: number;
  target: number;
}

/** When a closed-loop lane starts sessions: from `fromMs` while the clock is before `toMs`, ms from the benchmark start. */
export interface LaneWindow {
  fromMs: number;
  toMs: number;
}

/** `30s:8,60s:32,30s:0` (a duration in ms, s, m or h, a colon, the target); an Error saying what is wrong. */
export function parseStages(text: string): LoadStage[] {
  const stages = text.split(',').map((part) => {
    const [duration = '', target = '', ...rest] = part.trim().split(':');
    const durationMs = parseDuration(duration, 's');
    if (durationMs === undefined || rest.length > 0 || !/^\d+(?:\.\d+)?$/.test(target)) throw new Error(`"${part.trim()}" is not DURATION:TARGET (e.g. 30s:8)`);
    return { durationMs, target: Number(target) };
  });
  if (stagesLength(stages) <= 0) throw new Error('the stages last no time: give at least one a duration above 0');
  return stages;
}

export function stagesLength(stages: readonly LoadStage[]): number {
  return stages.reduce((sum, s) => sum + s.durationMs, 0);
}

export function peakTarget(stages: readonly LoadStage[]): number {
  return Math.max(0, ...stages.map((s) => s.target));
}

/** The target at `t` ms from the start (0 before the first stage's ramp, the last target after the last stage). */
export function targetAt(stages: readonly LoadStage[], t: number): number {
  let start = 0;
  let from = 0;
  for (const { durationMs, target } of stages) {
    if (t < start + durationMs) return from + ((target - from) * (t - start)) / durationMs;
    start += durationMs;
    from = target;
  }
  return from;
}

/** Short label: `8 over 30s, 32 over 60s, 0 over 30s` reads as the flag does, `30s:8,60s:32,30s:0`. */
export function stagesText(stages: readonly LoadStage[]): string {
  return stages.map((s) => `${s.durationMs % 1000 === 0 ? `${s.durationMs / 1000}s` : `${s.durationMs}ms`}:${s.target}`).join(',');
}

/**
 * When closed-loop lane `lane` (from 0) is on: while the target is at least lane + 1,
 * within the stages. A lane that comes on starts its first session then, however
 * briefly the target stays there, as a k6 VU does; its session in progress when the
 * target falls below it finishes (k6's graceful ramp-down) and it starts no more.
 */
export function laneWindows(stages: readonly LoadStage[], lane: number): LaneWindow[] {
  const level = lane + 1;
  const windows: LaneWindow[] = [];
  let start = 0;
  let from = 0;
  for (const { durationMs, target } of stages) {
    const end = start + durationMs;
    // The part of [start, end] where the linear target is at least `level`, if any.
    const crossing = (): number => start + (durationMs * (level - from)) / (target - from);
    const on =
      durationMs === 0 || (from < level && target < level)
        ? undefined
        : from >= level && target >= level
          ? { fromMs: start, toMs: end }
          : from < level
            ? { fromMs: crossing(), toMs: end }
            : { fromMs: start, toMs: crossing() };
    const last = windows.at(-1);
    if (on && last && last.toMs === on.fromMs) last.toMs = on.toMs;
    else if (on) windows.push(on);
    start = end;
    from = target;
  }
  return windows;
}

/**
 * The time by which `n` arrivals are expected, ms from the start, under an arrival
 * rate (per second) that follows `stages`: Λ⁻¹(n), where Λ(t) is the integral of the
 * rate; Infinity when the stages end first. Within a stage ramping from a to b over D
 * the arrivals after τ are a·τ + (b − a)·τ²/2D, solved for τ in the form that stays
 * exact for a flat stage (b = a) and a stage that lasts for ever.
 */
export function arrivalTime(stages: readonly LoadStage[], n: number): number {
  let start = 0;
  let from = 0;
  let left = n;
  for (const { durationMs, target } of stages) {
    const a = from / 1000;
    const b = target / 1000; // arrivals per ms
    if (a + b > 0) {
      const arrivals = ((a + b) / 2) * durationMs;
      if (left <= arrivals) return left === 0 ? start : start + (2 * left) / (a + Math.sqrt(a * a + (2 * (b - a) * left) / durationMs));
      left -= arrivals;
    }
    start += durationMs;
    from = target;
  }
  return Infinity;
}
