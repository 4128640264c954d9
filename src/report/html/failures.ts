import type { Report } from '../schema.js';
import { benchmarksByLevel } from '../levels.js';
import { html } from './markup.js';
import { note, table, type Section } from './section.js';

/** Failed sessions by class, stage, server code, HTTP status and close code, per level; then sessions cut short. */
export function failuresSection(report: Report): Section {
  const levels = benchmarksByLevel(report);
  const failures = levels.flatMap((b) => b.summary.failures.map((f) => ({ level: b.label, ...f })));
  const incomplete = levels.flatMap((b) => b.summary.incomplete.map((i) => ({ level: b.label, ...i })));
  const failed =
    failures.length === 0
      ? note('No session failed.')
      : table(
          ['level', 'class', 'stage', 'server code', 'HTTP status', 'close code', 'sessions', 'first message'],
          failures.map((f) => [
            f.level,
            html`<span class="chip fail">${f.class}</span>`,
            f.stage,
            f.code ?? '–',
            f.httpStatus ?? '–',
            f.closeCode ?? '–',
            f.count,
            html`<span class="message">${f.message}</span>`,
          ]),
        );
  const cut =
    incomplete.length === 0
      ? ''
      : table(
          ['level', 'reason', 'stage', 'sessions'],
          incomplete.map((i) => [i.level, i.reason, i.stage, i.count]),
        );
  return {
    id: 'failures',
    title: 'Failures',
    charts: [],
    body: html`${failed}${cut ? html`<h3 class="subhead">Sessions cut short (incomplete)</h3>${cut}` : ''}`,
  };
}
