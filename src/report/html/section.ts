import type { ChartSpec } from './chart-spec.js';
import { html, type Content, type Html } from './markup.js';

/** One part of the page: its markup, and the charts its markup has placeholders for. */
export interface Section {
  id: string;
  title: string;
  body: Html;
  charts: ChartSpec[];
}

/** A chart's frame: heading (with a tooltip), the placeholder the page script fills, and a caption. */
export function chartFigure(spec: ChartSpec, heading: string, tooltip: string, caption?: Content): Html {
  return html`<figure class="chart-card">
<figcaption><span class="chart-title" title="${tooltip}">${heading}</span>${caption ? html`<span class="chart-caption">${caption}</span>` : ''}</figcaption>
<div class="chart" data-chart="${spec.id}"></div>
<div class="readout" aria-live="polite"></div>
</figure>`;
}

export function note(text: Content): Html {
  return html`<p class="note">${text}</p>`;
}

/** A table with a header row; headers may carry tooltips. */
export function table(headers: ReadonlyArray<string | { label: Content; title: string }>, rows: readonly Content[][], className = ''): Html {
  const head = headers.map((h) => (typeof h === 'string' ? html`<th>${h}</th>` : html`<th title="${h.title}">${h.label}</th>`));
  return html`<div class="table-wrap"><table class="${className}"><thead><tr>${head}</tr></thead><tbody>${rows.map(
    (cells) => html`<tr>${cells.map((c) => html`<td>${c}</td>`)}</tr>`,
  )}</tbody></table></div>`;
}

/** A long name or expression with break opportunities after "(" and "_" and before a comparison, so a narrow column wraps it between its parts. */
export function breakable(text: string): Html {
  return html`${text.split(/(?<=[(_])|(?=[<>=]+)/).map((part, i) => (i === 0 ? part : html`<wbr>${part}`))}`;
}

/** One legend for a group of charts that share their series (e.g. one curve per load level). */
export function legend(items: ReadonlyArray<{ label: string; color: string }>): Html {
  return html`<div class="legend">${items.map((i) => html`<span class="legend-item"><span class="swatch" style="background:${i.color}"></span>${i.label}</span>`)}</div>`;
}
