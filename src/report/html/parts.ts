import { levelsByTask } from '../picks.js';
import type { Report } from '../schema.js';
import type { Task } from '../../timeline/types.js';
import { trusted } from './markup.js';
import type { Section } from './section.js';

/** One task's levels of a merge of different tasks, as a report of that task. */
export interface TaskPart {
  task: Task;
  /** Every task of the merge, in order of first appearance. */
  tasks: Task[];
  /** Whether the first run merged ran this task: the run's configuration (target, protocol, load, SLOs) is that run's. */
  own: boolean;
  report: Report;
}

/**
 * A merge of runs of different tasks (`report merge --allow-mixed`) split by task: each
 * part is the report with only that task's levels and that task as its own, so every
 * section builder picks the part's metrics and words from the catalog as it does for a
 * run of one task. The run's SLOs and capacity search belong to the first run's task.
 * Null for a report of one task.
 */
export function taskParts(report: Report): TaskPart[] | null {
  const groups = levelsByTask(report);
  if (groups.size < 2) return null;
  const tasks = [...groups.keys()];
  return tasks.map((task) => {
    const own = task === report.config.task;
    const { capacity, ...rest } = report;
    return {
      task,
      tasks,
      own,
      report: {
        ...rest,
        ...(own && capacity ? { capacity } : {}),
        config: { ...report.config, task, slos: own ? report.config.slos : [] },
        benchmarks: groups.get(task)!,
      },
    };
  });
}

/**
 * A part's section beside the other parts' on one page: its id, title and chart ids
 * carry the task, so two parts' `cdf-connect_ms` charts stay apart.
 */
export function partSection(section: Section, task: Task): Section {
  const scoped = (id: string): string => `${task}-${id}`;
  // Chart placeholders are written by `chartFigure` as data-chart="ID", ids being catalog names; server text cannot
  // hold that attribute, its quotes being escaped.
  const body = section.charts.reduce((markup, c) => markup.replaceAll(`data-chart="${c.id}"`, `data-chart="${scoped(c.id)}"`), section.body.__html);
  return {
    id: `${section.id}-${task}`,
    title: `${section.title} · ${task}`,
    body: trusted(body),
    charts: section.charts.map((c) => ({ ...c, id: scoped(c.id) })),
  };
}
