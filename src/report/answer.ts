import { parseSlo } from '../metrics/slo.js';
import { plural } from '../util/plural.js';
import { figureText } from './figure-text.js';
import { capacityText } from './capacity.js';
import { benchmarksByLevel, levelText, loadLevel } from './levels.js';
import { definitionIn, headlineLatencies, levelCatalog, levelsByTask, levelWer } from './picks.js';
import type { Benchmark, Report } from './schema.js';
import { speakerLead } from './speaker-lines.js';

/**
 * The run's answer in one sentence, as the console leads with it, e.g.
 * `At 8 concurrent sessions: ttfa_ms p50 166 ms, p95 210 ms; 0 of 48 failed.`
 * The figures are those of the level that answers (the capacity found, else the
 * heaviest load): speaker attribution first where it was scored (DER and word speaker
 * error), then each metric an SLO names, else the task's first headline latency,
 * then its WER and the SLOs' verdict. A merge of runs of different tasks has one such
 * sentence per task.
 */
export function answerLine(report: Report): string {
  const levels = benchmarksByLevel(report);
  if (levels.length > 0 && levels.every((b) => b.summary.sessions.completed === 0)) return nothingCompleted(levels);
  const capacity = report.capacity ? `Capacity: ${capacityText(report)}.` : '';
  // A merge of different workloads (--allow-mixed) answers once per task, each from its own levels.
  const groups = levelsByTask(report);
  const answers = [...groups].flatMap(([task, own]) => {
    const level = answeringLevel(report, own);
    return level ? [`${groups.size > 1 ? `${task}: at` : 'At'} ${levelName(level)}: ${figures(report, level).join('; ')}.`] : [];
  });
  return [capacity, ...answers].filter(Boolean).join(' ') || 'No level ran.';
}

/** The capacity found, else (a search that found none, a sweep, one level) the heaviest load. */
function answeringLevel(report: Report, levels: readonly Benchmark[]): Benchmark | undefined {
  const answer = report.capacity?.answer;
  return (answer !== undefined && answer !== null ? levels.filter((b) => loadLevel(b.profile) === answer).pop() : undefined) ?? levels[levels.length - 1];
}

function levelName(b: Benchmark): string {
  switch (b.profile.kind) {
    case 'synchronous':
      return 'one session at a time';
    case 'concurrent':
      return levelText(b.profile.concurrency, 'concurrency');
    case 'stages':
      return `up to ${levelText(loadLevel(b.profile), 'concurrency')} (stages)`;
    case 'rate-stages':
      return `up to ${levelText(loadLevel(b.profile), 'rate')} (stages)`;
    case 'replay':
      return `recorded traffic replayed (${b.profile.label}, ${levelText(loadLevel(b.profile), 'rate')} on average)`;
    default:
      return levelText(b.profile.rate, 'rate');
  }
}

function figures(report: Report, level: Benchmark): string[] {
  const catalog = levelCatalog(report, level);
  const { summary } = level;
  const named = report.config.slos.flatMap((text) => {
    try {
      const { aggregate } = parseSlo(text);
      return 'metric' in aggregate ? [aggregate.metric] : [];
    } catch {
      return []; // an SLO this version cannot read still has its verdict below
    }
  });
  const names = [...new Set(named.length > 0 ? named : headlineLatencies(catalog).map((d) => d.name))].filter((n) => summary.metrics[n]);
  // A run that scores speakers is asked who spoke when first: that answer leads.
  const parts = summary.diarization ? [speakerLead(summary.diarization)] : [];
  parts.push(
    ...names.slice(0, named.length > 0 ? 3 : 1).map((name) => {
      const d = summary.metrics[name]!;
      const unit = definitionIn(report, name)?.unit ?? 'count';
      return `${name} p50 ${figureText(d.p50, unit)}, p95 ${figureText(d.p95, unit)}`;
    }),
  );
  const wer = levelWer(catalog, level);
  if (wer) parts.push(`${wer.name} ${(wer.value * 100).toFixed(2)}%`);
  const { sessions } = summary;
  parts.push(`${sessions.failed} of ${plural(sessions.total, 'session')} failed${sessions.incomplete ? `, ${sessions.incomplete} incomplete` : ''}`);
  if (summary.slos.length > 0) {
    const failing = summary.slos.filter((slo) => !slo.pass);
    parts.push(
      failing.length === 0
        ? `${summary.slos.length === 1 ? 'the SLO' : `all ${summary.slos.length} SLOs`} met`
        : `SLO FAIL: ${failing.map((s) => s.slo).join(', ')}`,
    );
  }
  return parts;
}

function nothingCompleted(levels: readonly Benchmark[]): string {
  const sum = (pick: (b: Benchmark) => number): number => levels.reduce((n, b) => n + pick(b), 0);
  const top = levels.flatMap((b) => b.summary.failures).sort((a, b) => b.count - a.count)[0];
  return (
    `No session completed: ${sum((b) => b.summary.sessions.failed)} failed, ${sum((b) => b.summary.sessions.incomplete)} cut short` +
    (top ? `; most often ${top.class} at ${top.stage}: ${top.message}` : '') +
    '.'
  );
}
