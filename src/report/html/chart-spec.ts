/**
 * What the page's script draws: plain data, built in Node from the report and
 * embedded as JSON. Each series carries its own x and y values (uPlot's mode 2),
 * so series of different lengths (levels, sessions) share a chart without padding.
 */
export interface AxisSpec {
  label: string;
  unit: string;
  /** Start the axis at 0 rather than at the data's minimum. */
  fromZero?: boolean;
  /** Ticks in whole units only (sessions), the first at the lowest value rather than at 0. */
  whole?: boolean;
  /** Fixed bounds, e.g. 0–100 for percentages. */
  min?: number;
  max?: number;
  /** Named positions replacing numeric ticks (e.g. session rows). */
  ticks?: Array<{ value: number; label: string }>;
}

/** `bars`: each pair of points in turn (x[0] to x[1], x[2] to x[3], …) is one bar `size` px thick, as a speaker's turns. */
export type SeriesStyle = 'line' | 'step' | 'points' | 'line-points' | 'bars';

export interface SeriesSpec {
  label: string;
  color: string;
  style: SeriesStyle;
  dash?: boolean;
  /** Marker diameter in CSS pixels, for point styles; bar thickness for bars. */
  size?: number;
  x: number[];
  y: number[];
  /** Per-point text shown when hovering that point (e.g. the transcript text received). */
  notes?: string[];
}

/** A reference line: an SLO threshold (on y) or the capacity found (on x). */
export interface RuleSpec {
  axis: 'x' | 'y';
  value: number;
  label: string;
  color: string;
  dash?: boolean;
}

export interface ChartSpec {
  id: string;
  x: AxisSpec;
  y: AxisSpec;
  series: SeriesSpec[];
  rules: RuleSpec[];
  height?: number;
  /** False when the page shows one legend for several charts (e.g. the load levels). */
  legend?: boolean;
}
