import { BOOTSTRAP_SEED, interval95, resample, RESAMPLES, type Interval } from '../metrics/bootstrap.js';
import { measure, type Slo } from '../metrics/slo.js';
import { plural } from '../util/plural.js';
import { seededRandom } from '../util/random.js';
import { figureText } from './figure-text.js';
import { sloList, storedValues } from './html/metrics.js';
import { measuredCompleted } from './picks.js';
import { benchmarksByLevel, levelText, loadLevel } from './levels.js';
import { definitionIn } from './picks.js';
import type { Benchmark, Report, ReportSession } from './schema.js';

/**
 * A capacity search's answer with what it rests on: each SLO's figure at the levels
 * that bracket the answer, the values behind it and its 95% interval (a bootstrap of
 * whole sessions, seed 1, so the same report always reads the same); the level where
 * the client could not keep up, if the search stopped at one; and figures that got
 * better under more load, which a server's do not.
 */

/** One SLO's figure at one level: its value, the values it rests on, and its 95% interval; null without data. */
export interface SloEvidence {
  slo: Slo;
  value: number | null;
  count: number;
  ci95: Interval | null;
}

/** Every SLO this version can read, measured at `level` as the search judged it, with its interval. */
export function sloEvidence(report: Report, level: Benchmark): SloEvidence[] {
  const measured = level.sessions.filter((s) => s.phase === 'measured' && s.outcome.status !== 'incomplete');
  const completed = measuredCompleted(level.sessions);
  return sloList(report).map((slo) => {
    const figure = (finished: readonly ReportSession[]): number | null => {
      const done = measuredCompleted(finished);
      const { aggregate } = slo;
      const pooled = 'metric' in aggregate ? { [aggregate.metric]: valuesOf(done, aggregate.metric) } : {};
      return measure(slo, pooled, finished.length === 0 ? null : (finished.length - done.length) / finished.length);
    };
    const value = figure(measured);
    const count = 'metric' in slo.aggregate ? valuesOf(completed, slo.aggregate.metric).length : measured.length;
    if (value === null) return { slo, value, count, ci95: null };
    const random = seededRandom(BOOTSTRAP_SEED);
    const draws = Array.from({ length: RESAMPLES }, () => figure(resample(measured, random)) ?? NaN);
    return { slo, value, count, ci95: interval95(draws) };
  });
}

/** `p95(ttft_ms)`, `mean(rtfx)`, `error_rate`: the SLO's figure without its threshold. */
export function sloFigureName({ aggregate }: Slo): string {
  if (aggregate.stat === 'error_rate') return 'error_rate';
  return `${aggregate.stat === 'percentile' ? `p${aggregate.p}` : aggregate.stat}(${aggregate.metric})`;
}

/** E.g. `p95(ttft_ms) 412 ms (95% CI 380 to 450 ms, over 24 values)`. */
function evidenceText(report: Report, e: SloEvidence): string {
  const unit = 'metric' in e.slo.aggregate ? (definitionIn(report, e.slo.aggregate.metric)?.unit ?? 'count') : 'ratio';
  const name = sloFigureName(e.slo);
  if (e.value === null) return `${name} no data`;
  const ci = e.ci95 && Number.isFinite(e.ci95[0]) ? `95% CI ${figureText(e.ci95[0], unit)} to ${figureText(e.ci95[1], unit)}, ` : '';
  return `${name} ${figureText(e.value, unit)} (${ci}over ${plural(e.count, e.slo.aggregate.stat === 'error_rate' ? 'session' : 'value')})`;
}

/** The benchmark a search ran at `level`. */
function benchmarkAt(report: Report, level: number | null | undefined): Benchmark | undefined {
  return level === null || level === undefined ? undefined : report.benchmarks.find((b) => loadLevel(b.profile) === level);
}

/**
 * A capacity search's answer in words, for every output, with its uncertainty: each SLO's
 * figure at the answer and, for the SLOs that failed, at the level that failed. Each level
 * is written with its unit, so the level that failed never reads as a count of failed sessions.
 */
export function capacityText(report: Report): string {
  const capacity = report.capacity!;
  const target = capacity.slos.join(' and ');
  const probed = `${plural(capacity.probes.length, 'level')} probed`;
  const at = (level: number | null | undefined, failedOnly: boolean): string => {
    const b = benchmarkAt(report, level);
    if (!b) return '';
    const failing = new Set(b.summary.slos.filter((s) => !s.pass).map((s) => s.slo));
    const shown = sloEvidence(report, b).filter((e) => !failedOnly || failing.has(e.slo.text));
    return shown.map((e) => evidenceText(report, e)).join(', ');
  };
  const clientBound =
    capacity.clientBoundAt === undefined
      ? ''
      : `at ${levelText(capacity.clientBoundAt, capacity.by)} the client could not keep up and its own lag could account for the miss, which says nothing of the server, so the search stopped there (spread the sessions over threads with --workers and run it again)`;
  if (capacity.answer === null) {
    if (capacity.clientBoundAt !== undefined) return `none found: ${clientBound} (${probed})`;
    const failed = at(capacity.failsAt, true);
    return `no level met ${target}, not even the first, ${levelText(capacity.failsAt!, capacity.by)}${failed ? `: ${failed}` : ''} (${probed})`;
  }
  const there = at(capacity.answer, false);
  const failed = at(capacity.failsAt, true);
  const bracket =
    capacity.failsAt !== null
      ? `at ${levelText(capacity.failsAt, capacity.by)} they failed${failed ? `: ${failed}` : ''}`
      : capacity.clientBoundAt !== undefined
        ? clientBound
        : 'every level up to the search limit passed';
  return `${levelText(capacity.answer, capacity.by)}, the most that met ${target} (${there ? `there ${there}; ` : ''}${bracket}; ${probed})`;
}

/**
 * What the reader of a capacity answer must know beside it: the level where the client
 * could not keep up (its own verdict, which says what to do), and each SLO figure that
 * was worse at a lower level than at a higher one by more than both intervals allow (a
 * server under more load does not get faster: the levels' figures are noise, or the
 * server changed between them). Each is a sentence.
 */
export function capacityNotes(report: Report): string[] {
  const capacity = report.capacity;
  if (!capacity) return [];
  const notes: string[] = [];
  const bound = benchmarkAt(report, capacity.clientBoundAt);
  if (bound) notes.push(`${bound.label} is not a server failure: ${bound.clientHealth.verdict}`);
  const levels = benchmarksByLevel(report).filter((b) => b !== bound);
  const evidence = levels.map((b) => sloEvidence(report, b));
  for (const [k, slo] of sloList(report).entries()) {
    if (slo.aggregate.stat === 'error_rate') continue;
    const lowerIsBetter = slo.op === '<' || slo.op === '<=';
    // Worse at level i than at a higher level j: i's whole interval on the worse side of j's.
    const worse = (i: number, j: number): boolean => {
      const [a, b] = [evidence[i]![k]!.ci95, evidence[j]![k]!.ci95];
      if (!a || !b || ![...a, ...b].every(Number.isFinite)) return false;
      return lowerIsBetter ? a[0] > b[1] : a[1] < b[0];
    };
    for (let i = 0; i < levels.length; i++) {
      const j = levels.findIndex((_, j) => j > i && worse(i, j));
      if (j < 0) continue;
      notes.push(
        `not monotonic: ${evidenceText(report, evidence[i]![k]!)} at ${levels[i]!.label} is worse than ${evidenceText(report, evidence[j]![k]!)} at ${levels[j]!.label}, ` +
          'though a server under more load does not get faster: the levels differ by more than noise (the server or the client changed between them), so the search may have stopped at the wrong level; run those levels again.',
      );
      break;
    }
  }
  return notes;
}

/** One metric's stored values over sessions. */
function valuesOf(sessions: readonly ReportSession[], name: string): number[] {
  return storedValues(sessions, new Set([name])).get(name) ?? [];
}
