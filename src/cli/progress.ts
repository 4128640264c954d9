import type { LevelStart } from '../config/options.js';
import { metricsFor } from '../metrics/catalog.js';
import { computeSessionMetrics } from '../metrics/compute.js';
import { LogHistogram } from '../metrics/log-histogram.js';
import { printable } from '../util/printable.js';
import { SlicedWork } from '../runtime/sliced-work.js';
import type { RunConfig } from '../report/schema.js';
import type { SessionRecord } from '../timeline/types.js';

/** How often the line is redrawn on a terminal, and printed anew elsewhere (a CI log shows life, not noise). */
const TERMINAL_MS = 250;
const PLAIN_MS = 2000;

interface Level extends LevelStart {
  startedAt: number;
  started: number;
  ended: number;
  failed: number;
  latency: LogHistogram;
}

/**
 * Progress on stderr: the run header at the start, then per level the elapsed time,
 * an ETA, sessions done, in flight and failed, the level's place in a sweep or
 * capacity search, and a running median of the task's first headline latency (TTFT
 * for speech-to-text) over the sessions that completed. On a terminal one line redrawn in place; elsewhere a plain
 * line every few seconds and one as each level ends.
 */
export class Progress {
  private level: Level | undefined;
  private headline: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private runStart = 0;
  /** Ended sessions' headline figures, added to their level's median off the deadlines of the sessions still streaming. */
  private readonly figures = new SlicedWork<[Level, SessionRecord]>(([level, record]) => this.addFigures(level, record));

  constructor(private readonly stream: NodeJS.WriteStream) {}

  start(config: RunConfig, outputDir: string): void {
    this.runStart = Date.now();
    const target = `${config.target}${config.builtInServer ? ' (built-in server)' : ''}`;
    this.stream.write(`${printable(`target ${target} · model ${config.model} · data ${config.data} · output ${outputDir}`)}\n`);
    this.headline = metricsFor(config.task, 'headline').find((m) => m.tags.includes('latency') && m.scope === 'input')?.name;
    this.timer = setInterval(() => this.draw(), this.stream.isTTY ? TERMINAL_MS : PLAIN_MS).unref();
  }

  levelStart(level: LevelStart): void {
    this.endLevel();
    this.level = { ...level, startedAt: Date.now(), started: 0, ended: 0, failed: 0, latency: new LogHistogram() };
  }

  sessionStart(): void {
    if (this.level) this.level.started++;
  }

  sessionEnd(record: SessionRecord): void {
    const level = this.level;
    if (!level) return;
    level.ended++;
    if (record.outcome.status === 'failed') level.failed++;
    // Figures are of completed sessions, as the report's are: a failed session's partial timing would read as a result.
    else if (record.outcome.status === 'completed' && this.headline) this.figures.push([level, record]);
  }

  private addFigures(level: Level, record: SessionRecord): void {
    const name = this.headline!;
    for (const values of computeSessionMetrics(record.timeline).inputs) if (values[name] !== undefined) level.latency.add(values[name]);
  }

  stop(): void {
    clearInterval(this.timer);
    this.endLevel();
  }

  /** A terminal's line is cleared for the summary; a log keeps each level's last line. */
  private endLevel(): void {
    if (!this.level) return;
    // Its sessions have all ended: nothing streams, and its last line has every figure.
    this.figures.flush();
    if (this.stream.isTTY) this.stream.write('\r\x1b[K');
    else this.draw();
    this.level = undefined;
  }

  private draw(): void {
    if (!this.level) return;
    const line = this.line(this.level, Date.now());
    this.stream.write(this.stream.isTTY ? `\r\x1b[K${line}` : `${line}\n`);
  }

  private line(level: Level, now: number): string {
    const place = level.of === undefined ? ` (level ${level.number})` : level.of > 1 ? ` (level ${level.number} of ${level.of})` : '';
    const done = level.kept + level.ended;
    const eta = this.eta(level, now);
    const p50 = level.latency.percentile(50);
    return [
      `${level.label}${place}`,
      `${clockTime(now - this.runStart)} elapsed`,
      ...(eta !== undefined ? [`ETA ${clockTime(eta)}`] : []),
      `sessions ${done}${Number.isFinite(level.expected) ? `/${level.expected}` : ''} done`,
      `${level.started - level.ended} in flight`,
      `${level.failed} failed`,
      `${this.headline ?? 'latency'} p50 ${p50 === undefined ? 'n/a' : `${p50.toFixed(0)} ms`}`,
    ].join(' · ');
  }

  /** Time left: of the duration (and the sweep's later levels), else of the level's sessions at the pace so far. */
  private eta(level: Level, now: number): number | undefined {
    const elapsed = now - level.startedAt;
    if (level.durationMs !== undefined) return Math.max(0, level.durationMs - elapsed) + ((level.of ?? level.number) - level.number) * level.durationMs;
    if (level.ended === 0 || !Number.isFinite(level.expected)) return undefined;
    return ((level.expected - level.kept - level.ended) * elapsed) / level.ended;
  }
}

/** `m:ss`, or `h:mm:ss` from an hour. */
function clockTime(ms: number): string {
  const s = Math.round(ms / 1000);
  const mmss = `${Math.floor((s % 3600) / 60)}:${String(s % 60).padStart(2, '0')}`;
  return s >= 3600 ? `${Math.floor(s / 3600)}:${mmss.padStart(5, '0')}` : mmss;
}
