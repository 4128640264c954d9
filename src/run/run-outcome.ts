import { UNREACHABLE_AFTER } from '../load/error-stop.js';
import type { Benchmark, Report } from '../report/schema.js';

/** The exit codes of `voxbench`, documented in the README; a library caller gating CI can use the same ones. */
export const EXIT = { ok: 0, internal: 1, usage: 2, nothingCompleted: 3, stoppedForErrors: 3, sloFailed: 4, interrupted: 130 } as const;

/** What a finished run amounts to, for a gate: the first that applies, in this order. */
export type RunOutcome = 'interrupted' | 'nothingCompleted' | 'stoppedForErrors' | 'sloFailed' | 'ok';

/**
 * Failed sessions are data, so a run is only `nothingCompleted` when sessions ran and
 * none completed, and `stoppedForErrors` when an error rule cut a level short.
 */
export function runOutcome(report: Report): RunOutcome {
  if (report.stoppedBy === 'interrupted') return 'interrupted';
  const all = report.benchmarks.map((b) => b.summary.sessions);
  if (all.reduce((n, s) => n + s.total, 0) > 0 && all.every((s) => s.completed === 0)) return 'nothingCompleted';
  if (report.benchmarks.some(stoppedForErrors)) return 'stoppedForErrors';
  return slosHeld(report) ? 'ok' : 'sloFailed';
}

const stoppedForErrors = (b: Benchmark): boolean => b.stoppedBy === 'max_errors' || b.stoppedBy === 'error_rate' || b.stoppedBy === 'unreachable';

/** The SLO gate: every SLO held in every benchmark; for a capacity search, some level met them all. */
export function slosHeld(report: Report): boolean {
  if (report.capacity) return report.capacity.answer !== null;
  return report.benchmarks.every((b) => b.summary.slos.every((slo) => slo.pass));
}

/** The process exit code for the report: 130 interrupted, 3 nothing completed or a level stopped for errors, 4 an SLO failed, else 0. */
export function exitCodeOf(report: Report): number {
  return EXIT[runOutcome(report)];
}

/**
 * Why a run ends with exit code 3 or 4, in one line for stderr after the summary (a CI
 * log's last line should say it); undefined for the other outcomes.
 */
export function outcomeLine(report: Report): string | undefined {
  const outcome = runOutcome(report);
  if (outcome === 'nothingCompleted') {
    const count = (key: 'failed' | 'incomplete'): number => report.benchmarks.reduce((n, b) => n + b.summary.sessions[key], 0);
    const classes = [...new Set(report.benchmarks.flatMap((b) => b.summary.failures.map((f) => f.class)))];
    const incomplete = count('incomplete');
    return [
      `no session completed: ${[`${count('failed')} failed`, ...(incomplete > 0 ? [`${incomplete} incomplete`] : []), ...classes].join(', ')}`,
      ...stops(report, false),
    ].join('; stopped ');
  }
  if (outcome === 'stoppedForErrors') return `stopped for errors: ${stops(report, true).join('; ')}`;
  if (outcome !== 'sloFailed') return undefined;
  // A capacity search fails only when its start level did; that level says why.
  const judged = report.capacity ? report.benchmarks.slice(0, 1) : report.benchmarks;
  const failures = judged.flatMap((b) =>
    b.summary.slos.filter((slo) => !slo.pass).map((slo) => `${slo.slo} measured ${slo.value === null ? 'no data' : measured(slo.value)} at ${b.label}`),
  );
  return `SLO failed: ${report.capacity ? 'no level met them all; ' : ''}${failures.join('; ')}`;
}

/** Why each level an error rule cut short stopped, with its counts if asked. */
function stops(report: Report, counts: boolean): string[] {
  return report.benchmarks.filter(stoppedForErrors).map(({ label, stoppedBy, summary: { sessions } }) => {
    const rule =
      stoppedBy === 'unreachable'
        ? `its first ${UNREACHABLE_AFTER} sessions all failed before any answer`
        : stoppedBy === 'max_errors'
          ? `--max-errors ${report.config.maxErrors} reached`
          : `error rate over --max-error-rate ${report.config.stopOnErrorRate?.maxErrorRate}`;
    return `${label}: ${rule}${counts ? ` (${sessions.failed} failed, ${sessions.completed} completed)` : ''}`;
  });
}

function measured(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
}
