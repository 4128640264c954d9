/** The page's look: light, quiet, readable on a laptop; charts in a two-column grid that folds to one. */
export const PAGE_STYLE = `
:root {
  --ink: #111827; --muted: #6b7280; --line: #e5e7eb; --soft: #f6f7f9; --accent: #2563eb;
  --pass: #15803d; --pass-bg: #dcfce7; --fail: #b91c1c; --fail-bg: #fee2e2; --warn: #92400e; --warn-bg: #fef3c7;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: #fff; line-height: 1.45; font-size: 14px;
}
* { box-sizing: border-box; }
body { margin: 0; }
header.top { border-bottom: 1px solid var(--line); background: var(--soft); }
header.top .inner, main { max-width: 1240px; margin: 0 auto; padding: 0 24px; }
header.top .inner { padding-top: 18px; padding-bottom: 12px; }
h1 { font-size: 22px; margin: 0 0 2px; font-weight: 650; letter-spacing: -0.01em; }
.subtitle { color: var(--muted); margin: 0 0 10px; overflow-wrap: anywhere; }
nav { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 13px; }
nav a { color: var(--accent); text-decoration: none; }
nav a:hover { text-decoration: underline; }
section { padding: 22px 0 8px; border-bottom: 1px solid var(--line); }
section:last-child { border-bottom: 0; }
h2 { font-size: 18px; margin: 0 0 10px; font-weight: 650; }
h3 { font-size: 14px; margin: 0 0 6px; font-weight: 650; }
h3.subhead { margin-top: 18px; }
.muted { color: var(--muted); font-weight: 400; }
.note { color: var(--muted); margin: 4px 0 12px; max-width: 980px; }
.qa { display: grid; grid-template-columns: minmax(0, 1.1fr) minmax(0, 1fr); gap: 20px; align-items: start; }
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 4px 14px; margin: 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
.answer { background: #eff6ff; border: 1px solid #bfdbfe; border-radius: 10px; padding: 14px 16px; }
.answer-text { font-size: 17px; font-weight: 600; margin: 0; }
.callout { background: var(--warn-bg); color: var(--warn); border-radius: 8px; padding: 8px 10px; margin: 10px 0 0; font-size: 13px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px; }
.card { border: 1px solid var(--line); border-radius: 10px; padding: 10px 12px; background: #fff; }
.card-label { color: var(--muted); font-size: 12px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.card-value { font-size: 22px; font-weight: 650; font-variant-numeric: tabular-nums; margin: 2px 0; }
.card-unit { font-size: 14px; font-weight: 500; color: var(--muted); }
.card-detail { color: var(--muted); font-size: 12px; }
.table-wrap { overflow-x: auto; margin: 6px 0 12px; }
table { border-collapse: collapse; font-size: 13px; width: 100%; }
th, td { text-align: left; padding: 5px 10px 5px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; white-space: nowrap; }
th[title], .chart-title[title], .card[title], code[title] { cursor: help; }
td { font-variant-numeric: tabular-nums; }
table.levels td:not(:first-child), table.figures td:not(:first-child) { text-align: right; white-space: nowrap; }
table.levels th:not(:first-child), table.figures th:not(:first-child) { text-align: right; }
/* The by-level table carries a column per SLO: headers wrap between their parts (anywhere, as a last resort) and each verdict sits above its value, so it fits a 1024 px screen. */
table.levels { font-size: 12.5px; }
table.levels th { white-space: normal; overflow-wrap: anywhere; vertical-align: bottom; }
table.levels th, table.levels td { padding-right: 8px; }
table.levels td:has(.chip) { white-space: normal; }
.slo-value { white-space: nowrap; }
.transcript, .message { overflow-wrap: anywhere; }
table.definitions td:nth-child(n+4) { min-width: 160px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px; }
.chip { display: inline-block; border-radius: 999px; padding: 0 8px; font-size: 12px; font-weight: 600; margin: 1px 4px 1px 0; white-space: nowrap; }
.chip.pass { background: var(--pass-bg); color: var(--pass); }
.chip.fail { background: var(--fail-bg); color: var(--fail); }
.chip.warn { background: var(--warn-bg); color: var(--warn); }
.grid { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 14px; }
.chart-card { margin: 0; border: 1px solid var(--line); border-radius: 10px; padding: 10px 12px 8px; background: #fff; min-width: 0; }
.chart-card.wide { margin-top: 8px; }
figcaption { display: flex; gap: 10px; align-items: baseline; margin-bottom: 4px; }
.chart-title { font-weight: 650; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.chart-caption { color: var(--muted); font-size: 12px; }
.chart { width: 100%; min-height: 120px; }
.readout { min-height: 18px; color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.switch { display: inline-flex; gap: 8px; align-items: center; font-weight: 600; }
select { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
details { border: 1px solid var(--line); border-radius: 10px; padding: 8px 12px; margin: 0 0 10px; }
summary { cursor: pointer; font-weight: 650; }
.record { grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); }
.kv { border: 1px solid var(--line); border-radius: 10px; padding: 10px 12px; }
.kv dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 12px; margin: 0; font-size: 12.5px; }
.kv dt { color: var(--muted); font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.kv dd { margin: 0; overflow-wrap: anywhere; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 0 0 10px; font-size: 12.5px; }
.legend-item { display: inline-flex; align-items: center; gap: 6px; }
.swatch { width: 14px; height: 4px; border-radius: 2px; display: inline-block; }
.uplot { font-family: inherit; }
.uplot .u-legend { font-size: 12px; text-align: left; }
@media (max-width: 900px) { .grid, .qa { grid-template-columns: minmax(0, 1fr); } }
@media print { nav { display: none; } .chart-card, .card { break-inside: avoid; } }
`;
