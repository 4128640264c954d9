import type { MetricDescription } from '../../metrics/catalog.js';

/** Figures as people read them: fixed decimals per unit, digit grouping, and the unit always written. */
export function formatNumber(value: number, decimals: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** A level or threshold as given: whole numbers plain, others to four significant digits. */
export function formatPlain(value: number): string {
  return Number.isInteger(value) ? formatNumber(value, 0) : String(Number(value.toPrecision(4)));
}

/** A value in a catalog unit (`ms`, `ratio`, `bytes`, `count`); a rate (`chars/s`) to one decimal with its unit written. */
export function formatMetric(value: number, unit: string): string {
  switch (unit) {
    case 'ms':
      return `${formatNumber(value, 1)} ms`;
    case 'ratio':
      return `${formatNumber(value, 3)} ×`;
    case 'bytes':
      return `${formatNumber(Math.round(value), 0)} B`;
    case 'count':
    case '':
      return formatNumber(Math.round(value), 0);
    default:
      return `${formatNumber(value, 1)} ${unit}`;
  }
}

/** A word error rate or another share of a whole, which people read as a percentage. */
export function isQualityRatio(metric: Pick<MetricDescription, 'unit' | 'tags'>): boolean {
  return metric.unit === 'ratio' && metric.tags.includes('quality');
}

/** A catalog figure in its unit, except quality ratios (word error rates), which people read as percentages. */
export function formatFigure(value: number, metric: Pick<MetricDescription, 'unit' | 'tags'> | undefined): string {
  if (metric && isQualityRatio(metric)) return formatPercent(value);
  return formatMetric(value, metric?.unit ?? '');
}

/** A 0–1 ratio as a percentage; null (nothing to judge) as n/a. */
export function formatPercent(ratio: number | null): string {
  return ratio === null ? 'n/a' : `${formatNumber(ratio * 100, 2)} %`;
}

export function formatSeconds(seconds: number): string {
  return `${formatNumber(seconds, 1)} s`;
}
