import type { Task } from '../../timeline/types.js';
import type { InputView, ResponseView, SessionView } from '../../views/session-view.js';
import { span, type Anchor } from '../anchors.js';

/**
 * What a catalog entry is. Each declares its unit, the tasks it applies to, tags that
 * say where it belongs, which direction is better, and either two named anchors (an
 * interval from one event to the next), a function of one view, samples of one view,
 * or a reduction over a corpus.
 */
export type Unit = 'ms' | 'ratio' | 'bytes' | 'count' | 'chars/s';

/**
 * Where a metric belongs: the headline figures, or a family. `workload` marks a figure
 * of what the client sent (audio, characters, frames), not of how the server did: it
 * describes a run, and a comparison gives it no verdict.
 */
export type Tag = 'headline' | 'latency' | 'quality' | 'throughput' | 'transport' | 'client' | 'workload';

/** Which way is better, for colouring comparisons; `neither` for quantities. */
export type Better = 'lower' | 'higher' | 'neither';

interface Base {
  /** Name with unit suffix, e.g. `ttft_ms`. */
  name: string;
  unit: Unit;
  tasks: readonly Task[];
  tags: readonly Tag[];
  /** The tasks this heads, where a `headline` tag is not for every one of `tasks` (`ttft_ms` heads streaming transcription, not batch). */
  headlineOf?: readonly Task[];
  better: Better;
  description: string;
}

/** Whether a metric carries `tag` for `task`: a headline only for the tasks it heads. */
export function hasTag(metric: { tags: readonly Tag[]; headlineOf?: readonly Task[] }, tag: Tag, task?: Task): boolean {
  if (!metric.tags.includes(tag)) return false;
  return tag !== 'headline' || task === undefined || metric.headlineOf === undefined || metric.headlineOf.includes(task);
}

/** An interval between two anchors, or a quantity computed from one view. */
type Measure<V> = { from: Anchor<V>; to: Anchor<V> } | { quantity: string; value(view: V): number | undefined };

export type MetricDefinition =
  | (Base & { scope: 'input' } & Measure<InputView>)
  | (Base & { scope: 'response' } & Measure<ResponseView>)
  | (Base & { scope: 'session' } & Measure<SessionView>)
  /** Many values per input, pooled into one distribution (e.g. every inter-text gap). */
  | (Base & { scope: 'input_samples'; from: string; to: string; samples(view: InputView): number[] })
  /**
   * One value over all measured completed sessions of a benchmark: `part` takes what the
   * figure needs of one session, while its timeline is at hand, and `reduce` pools the
   * parts, so a report renders one session at a time (issue 38). `resample` is the unit
   * its bootstrap interval redraws: whole sessions (the default), or inputs, where the
   * part is a list with one entry per input and each input is redrawn as a part of one.
   */
  | (Base & { scope: 'corpus'; quantity: string; resample?: 'sessions' | 'inputs' } & CorpusReduction);

/** Method signatures, so an entry's part and reduce share their own type of part. */
interface CorpusReduction {
  part(view: SessionView): unknown;
  reduce(parts: readonly any[]): number | null; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export type Scope = MetricDefinition['scope'];

/** A metric with one value per view. */
export type PointMetric = Extract<MetricDefinition, { scope: 'input' | 'response' | 'session' }>;

/** A metric's value on one view of its scope: the interval between its anchors, or its function. */
export function measure(metric: PointMetric, view: InputView | ResponseView | SessionView): number | undefined {
  return measureOn(metric as Measure<typeof view>, view);
}

/** A value that is not finite (a division by a zero duration) is no figure at all. */
function measureOn<V>(metric: Measure<V>, view: V): number | undefined {
  const value = 'value' in metric ? metric.value(view) : span(metric.from, metric.to, view);
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}
