import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { compareReports, renderComparison } from '../report/compare.js';
import { renderComparisonHtml } from '../report/compare-html.js';
import { mergeReports } from '../report/merge.js';
import { writeOutputs } from '../report/outputs.js';
import { DEFAULT_OUTPUTS, OUTPUT_FORMATS, type OutputFormat } from '../report/output-formats.js';
import { readHeldReport, readReport } from '../report/recompute.js';
import { renderSummary } from '../report/console.js';
import { parseStatistics, type Statistic } from '../report/statistics.js';
import type { Report } from '../report/schema.js';
import { pageHint } from './page-hint.js';
import { normalizerOption } from '../config/normalizer-option.js';
import { lockFolder } from '../util/folder-lock.js';
import { NORMALIZER_NAMES } from '../metrics/normalizers/index.js';
import { checkWritableDir } from './output-dir.js';
import { outputList } from './output-list.js';
import { positiveInt } from './parse.js';
import { addDiarizationFlags, diarizationOptionsFromFlags } from './diarization-flags.js';
import { diarizationRulesOption } from '../config/diarization-rules.js';
import { addColdGapFlag, coldGapOf } from './cold-gap-flag.js';
import type { DiarizationRules } from '../metrics/diarization/rules.js';

const NORMALIZER_HELP = `score every transcript again with this normalizer (default: the one each report chose): auto, or one of: ${NORMALIZER_NAMES}`;

const PERCENTILES_HELP =
  'statistics in the summary tables, as for run: pN (e.g. p99.9), mean, std, min, max (default: mean,p50,p90,p95,p99,max, and p50,p95 in the levels table; count is always shown)';

const THREADS_HELP =
  'threads that read the session log at once (default: one per 64 MiB of log, up to one per core; the outputs are the same whatever the count)';

const chosenNormalizer = (name: string | undefined): string | undefined => (name === undefined ? undefined : normalizerOption(name));

const render = new Command('render')
  .description('Recompute every figure of a run from its stored timelines (and its session log, if the run was killed) and write its outputs again.')
  .argument('<run>', 'a report.json, or a run folder holding one')
  .option('--outputs <list>', `formats to write, from: ${OUTPUT_FORMATS.join(', ')} (json is always written)`, outputList, [...DEFAULT_OUTPUTS])
  .option('--output-dir <dir>', 'where to write (default: beside the report)')
  .option('--normalizer <name>', NORMALIZER_HELP)
  .option('--percentiles <list>', PERCENTILES_HELP)
  .option('--threads <n>', THREADS_HELP, positiveInt)
  .action(async (path, opts) => {
    const statistics = statisticsOption(opts.percentiles);
    const dir = opts.outputDir ?? (path.endsWith('.json') ? dirname(path) : path);
    // The --der-* flags given change those rules of the report's own; the others stay.
    const given = diarizationOptionsFromFlags(render.opts());
    const rescore = Object.keys(given).length > 0 ? (recorded: DiarizationRules) => diarizationRulesOption(given, recorded) : undefined;
    const report = await readReport(path, {
      normalizer: chosenNormalizer(opts.normalizer),
      rescore,
      coldGapMs: coldGapOf(render).coldGapMs,
      threads: opts.threads,
    });
    await checkWritableDir(dir, '--output-dir');
    const written = await whileLocked(dir, () => writeOutputs(report, dir, opts.outputs));
    process.stdout.write(summaryText(report, written, opts.outputs, dir, statistics));
  });

addDiarizationFlags(render);
addColdGapFlag(render, { rescoring: true });

const merge = new Command('merge')
  .description(
    'Merge runs or shards exactly: sessions keyed by (run, level, index), a session in two reports (a resumed run) kept once; figures recomputed from the merged sessions.',
  )
  .argument('<runs...>', 'report.json files or run folders, in order')
  .requiredOption('--output-dir <dir>', 'where to write the merged report')
  .option('--outputs <list>', `formats to write, from: ${OUTPUT_FORMATS.join(', ')} (json is always written)`, outputList, [...DEFAULT_OUTPUTS])
  .option(
    '--allow-mixed',
    'merge runs of different tasks, protocols, targets or models (refused by default); each run keeps its own levels, labelled by its path and shown by its own task',
  )
  .option('--percentiles <list>', PERCENTILES_HELP)
  .action(async (paths, opts) => {
    const statistics = statisticsOption(opts.percentiles);
    await checkWritableDir(opts.outputDir, '--output-dir');
    // A merge writes every session's timeline into its own session log, so it holds them.
    const report = mergeReports(await Promise.all(paths.map(readHeldReport)), paths, {
      allowMixed: opts.allowMixed === true,
    });
    const written = await whileLocked(opts.outputDir, () => writeOutputs(report, opts.outputDir, opts.outputs));
    process.stdout.write(summaryText(report, written, opts.outputs, opts.outputDir, statistics));
  });

const compare = new Command('compare')
  .description(
    "Compare two runs: each side's sessions, errors, throughput and corpus WER and CER, a verdict on the headline metrics, and every metric's medians and tails with the difference and its 95% bootstrap interval; warns when the runs differ in dataset, level, protocol or pacing.",
  )
  .argument('<a>', 'the baseline: a report.json or run folder')
  .argument('<b>', 'the candidate')
  .option('--level <label>', 'compare this benchmark level of both (default: the lightest both ran), e.g. concurrent@8')
  .option('--output-dir <dir>', 'also write compare.html and compare.json here')
  .option('--normalizer <name>', `${NORMALIZER_HELP}, on both sides, so their WER compares`)
  .option(
    '--percentiles <list>',
    'statistics of each metric shown A → B instead of p50 and p95: pN (e.g. p99.9), mean, std, min, max; the difference stays that of the medians',
  )
  .action(async (a, b, opts) => {
    const statistics = statisticsOption(opts.percentiles);
    if (opts.outputDir) await checkWritableDir(opts.outputDir, '--output-dir');
    const normalizer = chosenNormalizer(opts.normalizer);
    const comparison = compareReports(await readReport(a, { normalizer }), await readReport(b, { normalizer }), opts.level, statistics);
    // Colours only for a terminal that accepts them; pipes and files get plain text.
    process.stdout.write(`${renderComparison(comparison, { color: process.stdout.isTTY === true && !process.env.NO_COLOR })}\n`);
    if (opts.outputDir) {
      await mkdir(opts.outputDir, { recursive: true });
      await writeFile(join(opts.outputDir, 'compare.html'), renderComparisonHtml(comparison));
      await writeFile(join(opts.outputDir, 'compare.json'), JSON.stringify(comparison, null, 1) + '\n');
      process.stdout.write(`Wrote: ${join(opts.outputDir, 'compare.html')}, ${join(opts.outputDir, 'compare.json')}\n`);
    }
  });

export const reportCommand = new Command('report')
  .description('Work with finished runs: render, merge, compare.')
  .addCommand(render)
  .addCommand(merge)
  .addCommand(compare)
  // The program configures its commands' error output and exit codes after they are
  // built; subcommands take the same settings from here when they run.
  .hook('preSubcommand', (report, subcommand) => void subcommand.copyInheritedSettings(report));

/** Writes into `dir` holding its lock, so a render or merge never overwrites what a run there is writing. */
async function whileLocked<T>(dir: string, write: () => Promise<T>): Promise<T> {
  const release = await lockFolder(dir);
  try {
    return await write();
  } finally {
    await release();
  }
}

/** `--percentiles`, checked before any report is read. */
const statisticsOption = (percentiles: string | undefined): Statistic[] | undefined => (percentiles === undefined ? undefined : parseStatistics(percentiles));

/** The console summary of a report just written, with the statistics chosen, where it went, and how to get the page if it was left out. */
function summaryText(report: Report, written: readonly string[], outputs: readonly OutputFormat[], dir: string, statistics: Statistic[] | undefined): string {
  return [renderSummary(report, statistics ? { statistics } : {}), `Wrote: ${written.join(', ')}`, ...pageHint(outputs, dir)].join('\n') + '\n';
}
