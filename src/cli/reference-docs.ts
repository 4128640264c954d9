/**
 * The reference pages under docs/reference/, rendered from the code that defines them:
 * CLI flags from the commander commands, metrics from the catalog, dialects from the
 * dialect list, Prometheus names from the live registry. `npm run docs` writes them;
 * test/docs-reference.test.ts renders them in memory and fails when a committed page
 * differs, so a page is never staler than the code.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import { Counter, Gauge, Histogram } from 'prom-client';
import { specOf, FALLBACK_KEY_ENV, METERED_PROTOCOLS, PROTOCOLS, takesServerTurns } from '../dialects/index.js';
import type { AuthScheme, DialectSpec } from '../dialects/spec.js';
import { LiveMetrics, latencyMetrics } from '../live/metrics.js';
import { describeMetrics } from '../metrics/catalog.js';
import { TASKS, type Task } from '../timeline/types.js';
import { cacheCommand } from './cache-command.js';
import { datasetCommand } from './dataset-command.js';
import { proxyCommand } from './proxy-command.js';
import { replayCommand } from './replay-command.js';
import { reportCommand } from './report-command.js';
import { runCommand } from './run-command.js';
import { serveCommand } from './serve-command.js';

/** The command that rewrites the pages; the staleness test names it. */
export const REGENERATE = 'npm run docs';

const HEADER = (source: string): string =>
  `<!-- Generated from ${source} by \`${REGENERATE}\` (src/cli/reference-docs.ts); edit the code, not this page. -->\n\n`;

/** A table cell: one line, pipes escaped. */
const cell = (text: string): string => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
const code = (text: string): string => (text === '' ? '' : `\`${text}\``);
const table = (head: string[], rows: string[][]): string =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n') + '\n';

const TASK_NAMES: Record<Task, string> = {
  stt: 'streaming transcription',
  batch_stt: 'batch transcription',
  s2s: 'speech to speech',
  tts: 'speech generation, streamed',
  batch_tts: 'speech generation, one body',
};

// ---------------------------------------------------------------------------------
// CLI

function optionDefault(option: Option): string {
  if (option.mandatory) return 'required';
  if (option.defaultValueDescription !== undefined) return option.defaultValueDescription;
  if (option.defaultValue === undefined || typeof option.defaultValue === 'boolean') return '';
  return Array.isArray(option.defaultValue) ? option.defaultValue.join(',') : String(option.defaultValue);
}

function commandSection(command: CommandUnknownOpts, path: string[]): string {
  const args = command.registeredArguments.map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`));
  let out = `## \`voxbench ${[...path, ...args].join(' ')}\`\n\n${command.description()}\n\n`;
  if (command.registeredArguments.length > 0) {
    out += table(
      ['argument', 'meaning'],
      command.registeredArguments.map((a) => [code(a.name()), a.description]),
    );
    out += '\n';
  }
  // The groups `--help` shows, in its order (commands without groups have one, unnamed).
  const groups = new Map<string | undefined, Option[]>();
  for (const option of command.options.filter((o) => !o.hidden)) {
    const heading = option.helpGroupHeading?.replace(/:$/, '');
    groups.set(heading, [...(groups.get(heading) ?? []), option]);
  }
  for (const [heading, options] of groups) {
    if (heading !== undefined) out += `### ${heading}\n\n`;
    out += table(
      ['flag', 'default', 'meaning'],
      options.map((o) => [code(o.flags), optionDefault(o), o.description + (o.argChoices ? ` (one of: ${o.argChoices.join(', ')})` : '')]),
    );
    out += '\n';
  }
  return out;
}

/** Every command with its options, subcommands after their parent. */
function commandSections(): string[] {
  const sections: string[] = [];
  const visit = (command: CommandUnknownOpts, path: string[]): void => {
    if (command.commands.length === 0) sections.push(commandSection(command, path));
    else
      sections.push(
        `## \`voxbench ${path.join(' ')}\`\n\n${command.description()} Subcommands: ${command.commands.map((c) => code(c.name())).join(', ')}.\n\n`,
      );
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  for (const command of [runCommand, serveCommand, proxyCommand, replayCommand, reportCommand, datasetCommand, cacheCommand] as CommandUnknownOpts[])
    visit(command, [command.name()]);
  return sections;
}

export function renderCliReference(): string {
  return (
    (
      HEADER('the commander definitions in src/cli/*-command.ts') +
      '# CLI reference\n\n' +
      'Every command and flag, as `--help` prints them. For what the flags do together, see ' +
      '[running a benchmark](../running.md) and the [workload pages](../README.md). ' +
      '`voxbench metrics` (no flags) prints the [metric catalog](metrics.md).\n\n' +
      'Every duration is written one way: a number with its unit, `ms`, `s`, `m` or `h` (`250ms`, `1.5s`, `2m`); ' +
      'a bare number is in the unit the flag names (ms for `<ms>`, seconds for `<s>`).\n\n' +
      commandSections().join('')
    ).trimEnd() + '\n'
  );
}

// ---------------------------------------------------------------------------------
// Metrics

export function renderMetricsReference(): string {
  const metrics = describeMetrics();
  let out = HEADER('the metric catalog (src/metrics/catalog.ts)') + '# Metric reference\n\n';
  out +=
    'Every figure voxbench reports, as `voxbench metrics` prints it. An interval runs from one named event ' +
    '(anchor) to another; a quantity is computed from a session, a turn or a response; a corpus figure is one ' +
    'value per benchmark level. [Measurements](../measurements.md) explains how they are taken; ' +
    'the workload pages say which matter for each task.\n\n';
  out += table(
    ['task', 'what it is'],
    TASKS.map((t) => [code(t), TASK_NAMES[t]]),
  );
  out += '\n';
  out += table(
    ['metric', 'unit', 'per', 'tasks', 'tags', 'better', 'from (or quantity)', 'to', 'meaning'],
    metrics.map((m) => [
      code(m.name),
      m.unit,
      m.scope === 'input_samples' ? 'turn, pooled' : m.scope === 'input' ? 'turn' : m.scope,
      m.tasks.join(', '),
      // A headline of some of its tasks only names them.
      m.tags.map((t) => (t === 'headline' && m.headlineOf ? `headline (${m.headlineOf.join(', ')})` : t)).join(', '),
      m.better,
      m.anchors ? `${m.from} (${code(m.anchors[0])})` : m.from,
      m.anchors ? `${m.to} (${code(m.anchors[1])})` : m.to,
      m.description,
    ]),
  );
  return out;
}

// ---------------------------------------------------------------------------------
// Dialects

/** Each dialect's row, from the registry: its spec and whether the proxy meters it. */
function dialectRows(): Array<DialectSpec & { metered: boolean; serverTurns: boolean }> {
  return PROTOCOLS.map((name) => ({ ...specOf(name), metered: METERED_PROTOCOLS.includes(name), serverTurns: takesServerTurns(name) }));
}

const AUTH: Record<AuthScheme, string> = {
  bearer: '`Authorization: Bearer`',
  token: '`Authorization: Token`',
  plain: '`Authorization` (the key, no scheme)',
  'xi-api-key': '`xi-api-key`',
};

const WORKLOAD_PAGE: Record<Task, string> = {
  stt: '../streaming-transcription.md',
  batch_stt: '../batch-transcription.md',
  s2s: '../speech-to-speech.md',
  tts: '../speech-generation.md',
  batch_tts: '../speech-generation.md',
};

export function renderDialectsReference(): string {
  let out = HEADER('the dialect registry (src/dialects/index.ts)') + '# Dialect reference\n\n';
  out +=
    'Every `--protocol` voxbench speaks, with its task and transport. The built-in server speaks all of them; ' +
    '`voxbench proxy` meters the WebSocket ones. Each workload page describes its dialects on the wire; ' +
    '[adding a dialect](../adding-a-dialect.md) says how to add one.\n\n';
  out += table(
    [
      '`--protocol`',
      'task',
      'transport',
      'own path',
      'key sent as',
      'key read from',
      'server turn detection',
      'default model',
      'metered by the proxy',
      'described in',
    ],
    dialectRows().map((d) => [
      code(d.name),
      `${code(d.task)} (${TASK_NAMES[d.task]})`,
      d.transport === 'http' ? 'HTTP' : 'WebSocket',
      d.path === undefined ? '' : code(d.path),
      AUTH[d.auth],
      [...(d.keyEnv !== undefined ? [d.keyEnv] : []), FALLBACK_KEY_ENV].map(code).join(', then '),
      d.serverTurns ? 'yes' : '',
      code(d.defaultModel),
      d.metered ? 'yes' : 'no',
      `[${WORKLOAD_PAGE[d.task].slice(3, -3)}](${WORKLOAD_PAGE[d.task]})`,
    ]),
  );
  out +=
    '\nThe HTTP speech dialects are task `batch_tts` with `--stream-format none`. ' +
    'The key is `--api-key`, else the variable `--api-key-env` names, else the ones listed, in order. ' +
    '`--turn-detection server_vad` (or `semantic_vad`) needs a dialect with server turn detection; the others commit each turn from the client.\n';
  return out;
}

// ---------------------------------------------------------------------------------
// Prometheus

export function renderPrometheusReference(): string {
  const registry = new LiveMetrics().registry;
  let out = HEADER('the live registry (src/live/metrics.ts)') + '# Prometheus reference\n\n';
  out +=
    '`voxbench run --metrics-port` and `voxbench proxy --metrics-port` serve these on `/metrics` (with `/healthz` for probes). ' +
    'See [proxy and Prometheus](../proxy-and-prometheus.md).\n\n';
  out += table(
    ['name', 'type', 'labels', 'buckets (s)', 'meaning'],
    registry.getMetricsAsArray().map((m) => {
      const metric = m as unknown as { name: string; help: string; labelNames: string[]; upperBounds?: number[] };
      const type = m instanceof Histogram ? 'histogram' : m instanceof Counter ? 'counter' : m instanceof Gauge ? 'gauge' : 'other';
      return [code(metric.name), type, metric.labelNames.map(code).join(', '), metric.upperBounds?.join(', ') ?? '', metric.help];
    }),
  );
  out +=
    "\nThe `metric` label of the latency histograms, by task (the catalog's latencies and client figures in ms, without `_ms`; the pooled ones go to `voxbench_latency_samples_seconds`):\n\n";
  out += table(
    ['task', '`metric` values'],
    TASKS.map((t) => [
      code(t),
      latencyMetrics(t)
        .map((m) => code(m.name.replace(/_ms$/, '') + (m.scope === 'input_samples' ? ' (pooled)' : '')))
        .join(', '),
    ]),
  );
  return out;
}

// ---------------------------------------------------------------------------------

/** Every generated page, by its path from the repository root. */
export function referencePages(): Record<string, string> {
  return {
    'docs/reference/cli.md': renderCliReference(),
    'docs/reference/metrics.md': renderMetricsReference(),
    'docs/reference/dialects.md': renderDialectsReference(),
    'docs/reference/prometheus.md': renderPrometheusReference(),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = new URL('../../../', import.meta.url);
  for (const [path, text] of Object.entries(referencePages())) {
    await writeFile(fileURLToPath(new URL(path, root)), text);
    process.stdout.write(`wrote ${path}\n`);
  }
}
