import type UPlot from 'uplot';
import type { AxisSpec, ChartSpec, RuleSpec, SeriesSpec } from '../chart-spec.js';
import { axisRange, wholeSplits } from './axes.js';
import { DATA_ELEMENT_ID, type PageData } from './data.js';

/**
 * Draws each chart placeholder from the page's JSON block, sets every text with
 * textContent, and raises `window.__ready` (or `window.__error`) for tests. It runs
 * in the browser, bundled with the other page modules into the page's one script.
 */

/** The few DOM features the script uses; the project's type library has no DOM. */
export interface PageElement {
  textContent: string | null;
  hidden: boolean;
  value: string;
  readonly clientWidth: number;
  readonly parentElement: PageElement | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement>;
  addEventListener(type: string, listener: () => void): void;
}

export interface PageWindow {
  document: { getElementById(id: string): PageElement | null; querySelectorAll(selector: string): ArrayLike<PageElement> };
  devicePixelRatio: number;
  addEventListener(type: 'error' | 'unhandledrejection' | 'resize', listener: (event: { message?: string; reason?: unknown }) => void): void;
  setTimeout(callback: () => void, ms: number): number;
  __ready?: boolean;
  __error?: string;
}

interface Canvas2D {
  strokeStyle: string;
  fillStyle: string;
  lineWidth: number;
  font: string;
  textAlign: string;
  textBaseline: string;
  save(): void;
  restore(): void;
  beginPath(): void;
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  stroke(): void;
  setLineDash(segments: number[]): void;
  fillText(text: string, x: number, y: number): void;
}

export function drawReportPage(win: PageWindow, uPlot: typeof UPlot): void {
  const doc = win.document;
  const fail = (message: string): void => {
    win.__error = win.__error ?? message;
  };
  win.addEventListener('error', (event) => fail(String(event.message)));
  win.addEventListener('unhandledrejection', (event) => fail(String(event.reason)));

  const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  const drawn = new Map<PageElement, { chart: UPlot; spec: ChartSpec }>();

  const axisTitle = (axis: AxisSpec): string => (axis.unit ? `${axis.label} (${axis.unit})` : axis.label);

  const formatValue = (value: number, axis: AxisSpec): string => {
    if (axis.ticks && axis.ticks.length > 0) {
      const nearest = axis.ticks.reduce((best, t) => (Math.abs(t.value - value) < Math.abs(best.value - value) ? t : best));
      return nearest.label;
    }
    const decimals = axis.whole ? 0 : axis.unit === 's' ? 3 : Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
    const text = value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
    return axis.unit ? `${text} ${axis.unit}` : text;
  };

  const range =
    (axis: AxisSpec, rules: RuleSpec[]) =>
    (_u: UPlot, dataMin: number | null, dataMax: number | null): [number, number] =>
      axisRange(
        axis,
        [dataMin, dataMax, ...rules.map((r) => r.value)].filter((v): v is number => v !== null),
      );

  // Steps a whole-unit axis may tick at: never a fraction of a session.
  const WHOLE_INCREMENTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];

  const drawRules = (chart: UPlot, spec: ChartSpec): void => {
    const ctx = chart.ctx as unknown as Canvas2D;
    const ratio = win.devicePixelRatio || 1;
    const { left, top, width, height } = chart.bbox;
    spec.rules.forEach((rule, i) => {
      const at = chart.valToPos(rule.value, rule.axis, true);
      ctx.save();
      ctx.strokeStyle = rule.color;
      ctx.fillStyle = rule.color;
      ctx.lineWidth = 1.5 * ratio;
      ctx.setLineDash(rule.dash ? [6 * ratio, 4 * ratio] : []);
      ctx.font = `${11 * ratio}px ${FONT}`;
      ctx.beginPath();
      if (rule.axis === 'x') {
        ctx.moveTo(at, top);
        ctx.lineTo(at, top + height);
        ctx.textAlign = 'left';
        ctx.textBaseline = 'top';
        ctx.fillText(rule.label, at + 4 * ratio, top + (4 + 14 * i) * ratio);
      } else {
        ctx.moveTo(left, at);
        ctx.lineTo(left + width, at);
        ctx.textAlign = 'right';
        ctx.textBaseline = 'bottom';
        ctx.fillText(rule.label, left + width - 4 * ratio, at - 3 * ratio);
      }
      ctx.stroke();
      ctx.restore();
    });
  };

  /** Bars: uPlot has no path for separate segments, so they are stroked here, after the series. */
  const drawBars = (chart: UPlot, spec: ChartSpec): void => {
    const ctx = chart.ctx as unknown as Canvas2D;
    const ratio = win.devicePixelRatio || 1;
    spec.series.forEach((series, i) => {
      if (series.style !== 'bars' || !chart.series[i + 1]?.show) return;
      ctx.save();
      ctx.strokeStyle = series.color;
      ctx.lineWidth = (series.size ?? 10) * ratio;
      ctx.setLineDash([]);
      ctx.beginPath();
      for (let j = 0; j + 1 < series.x.length; j += 2) {
        ctx.moveTo(chart.valToPos(series.x[j]!, 'x', true), chart.valToPos(series.y[j]!, 'y', true));
        ctx.lineTo(chart.valToPos(series.x[j + 1]!, 'x', true), chart.valToPos(series.y[j + 1]!, 'y', true));
      }
      ctx.stroke();
      ctx.restore();
    });
  };

  /** Hover: the nearest marker within reach, with its series, coordinates and note; else the cursor's coordinates. */
  const showReadout = (chart: UPlot, spec: ChartSpec, readout: PageElement | null): void => {
    if (!readout) return;
    const { left, top } = chart.cursor;
    if (left === undefined || top === undefined || left < 0 || top < 0) {
      readout.textContent = '';
      return;
    }
    let best: { series: SeriesSpec; index: number; distance: number } | undefined;
    spec.series.forEach((series, i) => {
      if (!chart.series[i + 1]?.show) return;
      for (let j = 0; j < series.x.length; j++) {
        const dx = chart.valToPos(series.x[j]!, 'x') - left;
        const dy = chart.valToPos(series.y[j]!, 'y') - top;
        const distance = dx * dx + dy * dy;
        if (!best || distance < best.distance) best = { series, index: j, distance };
      }
    });
    if (best && best.distance <= 24 * 24) {
      const { series, index } = best;
      const note = series.notes?.[index];
      readout.textContent = `${series.label} · ${formatValue(series.x[index]!, spec.x)} · ${formatValue(series.y[index]!, spec.y)}${note ? ` · “${note}”` : ''}`;
    } else {
      readout.textContent = `${spec.x.label} ${formatValue(chart.posToVal(left, 'x'), spec.x)} · ${spec.y.label} ${formatValue(chart.posToVal(top, 'y'), spec.y)}`;
    }
  };

  const axis = (spec: AxisSpec, scale: string, side: 2 | 3) => ({
    scale,
    side,
    label: axisTitle(spec),
    stroke: '#4b5563',
    font: `12px ${FONT}`,
    labelFont: `600 12px ${FONT}`,
    grid: { stroke: '#eceef1', width: 1 },
    ticks: { show: true, stroke: '#d1d5db', width: 1, size: 4 },
    ...(spec.whole
      ? { incrs: WHOLE_INCREMENTS, splits: (_u: UPlot, _i: number, min: number, max: number, increment: number) => wholeSplits(min, max, increment) }
      : {}),
    // Named ticks get room for the longest name (about 7 px a character at 12 px).
    ...(spec.ticks
      ? {
          splits: () => spec.ticks!.map((t) => t.value),
          values: () => spec.ticks!.map((t) => t.label),
          size: Math.max(56, 16 + 7 * Math.max(...spec.ticks.map((t) => t.label.length))),
        }
      : {}),
  });

  const seriesOptions = (series: SeriesSpec): UPlot.Series => {
    const linePath = series.style === 'step' ? uPlot.paths.stepped!({ align: 1 }) : uPlot.paths.linear!();
    const marked = series.style === 'points' || series.style === 'line-points';
    const allPoints = series.x.map((_, i) => i);
    return {
      label: series.label,
      stroke: series.color,
      width: 2,
      ...(series.dash ? { dash: [6, 4] } : {}),
      paths: series.style === 'points' || series.style === 'bars' ? () => null : linePath,
      // In mode 2 uPlot draws only the markers its filter lists; list them all.
      points: { show: marked, ...(marked ? { filter: () => allPoints } : {}), size: series.size ?? 7, fill: series.color, stroke: series.color, width: 0 },
      facets: [
        { scale: 'x', auto: true },
        { scale: 'y', auto: true },
      ],
    };
  };

  const draw = (container: PageElement, spec: ChartSpec): void => {
    drawn.get(container)?.chart.destroy();
    drawn.delete(container);
    container.setAttribute('data-points', String(spec.series.reduce((n, s) => n + s.x.length, 0)));
    container.setAttribute('data-series', String(spec.series.filter((s) => s.x.length > 0).length));
    if (spec.series.length === 0) {
      container.textContent = 'Nothing to draw: no session recorded these events.';
      return;
    }
    container.textContent = '';
    const readout = container.parentElement?.querySelector('.readout') ?? null;
    const scales: Record<string, UPlot.Scale> = {
      x: {
        time: false,
        auto: true,
        range: range(
          spec.x,
          spec.rules.filter((r) => r.axis === 'x'),
        ),
      },
      y: {
        auto: true,
        range: range(
          spec.y,
          spec.rules.filter((r) => r.axis === 'y'),
        ),
      },
    };
    const options: UPlot.Options = {
      mode: 2,
      width: Math.max(container.clientWidth, 280),
      height: spec.height ?? 280,
      legend: { show: spec.legend !== false, live: false },
      cursor: { drag: { x: false, y: false, setScale: false }, points: { show: false } },
      scales,
      axes: [axis(spec.x, 'x', 2), axis(spec.y, 'y', 3)],
      series: [{}, ...spec.series.map(seriesOptions)],
      hooks: {
        draw: [(chart) => drawBars(chart, spec), (chart) => drawRules(chart, spec)],
        setCursor: [(chart) => showReadout(chart, spec, readout)],
      },
    };
    const data = [null, ...spec.series.map((s) => [s.x, s.y])] as unknown as UPlot.AlignedData;
    const chart = new uPlot(options, data, container);
    drawn.set(container, { chart, spec });
  };

  try {
    const data = JSON.parse(doc.getElementById(DATA_ELEMENT_ID)?.textContent ?? 'null') as PageData;
    const specFor = (id: string | null): ChartSpec => {
      const spec = id === null ? undefined : data.charts[id];
      if (!spec) throw new Error(`no chart data for ${id}`);
      return spec;
    };
    for (const container of Array.from(doc.querySelectorAll('.chart[data-chart]'))) draw(container, specFor(container.getAttribute('data-chart')));

    // A level selector swaps the chart drawn in its target and shows the matching detail block.
    for (const select of Array.from(doc.querySelectorAll('select[data-switch]'))) {
      const group = select.getAttribute('data-switch');
      select.addEventListener('change', () => {
        for (const target of Array.from(doc.querySelectorAll(`[data-switch-target="${group}"]`))) {
          target.setAttribute('data-chart', select.value);
          draw(target, specFor(select.value));
        }
        for (const item of Array.from(doc.querySelectorAll(`[data-switch-item="${group}"]`))) item.hidden = item.getAttribute('data-key') !== select.value;
      });
    }
    win.addEventListener('resize', () => {
      for (const [container, { chart, spec }] of drawn) chart.setSize({ width: Math.max(container.clientWidth, 280), height: spec.height ?? 280 });
    });
    // uPlot paints in a microtask after construction; a task later every chart is on screen.
    win.setTimeout(() => {
      if (win.__error === undefined) win.__ready = true;
    }, 0);
  } catch (error) {
    fail(error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error));
  }
}
