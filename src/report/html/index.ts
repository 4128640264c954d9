import type { Report } from '../schema.js';
import { chartLibrary } from './assets.js';
import { drawReportPage, type PageData } from './client.js';
import { definitionsSection } from './definitions.js';
import { distributionsSection } from './distributions.js';
import { failuresSection } from './failures.js';
import { figuresSection } from './figures.js';
import { loadCurvesSection } from './load-curves.js';
import { html, inlineScript, inlineStyle, jsonScript, toHtmlString } from './markup.js';
import { overviewSection } from './overview.js';
import { recordSection } from './record.js';
import { PAGE_STYLE } from './styles.js';
import { waterfallSection } from './waterfall.js';
import { werSection } from './wer.js';

/** Nothing may leave the page: inline scripts and styles only, images from data: and blob: URLs. */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:";

/** The id of the JSON block the page script reads. */
const DATA_ELEMENT_ID = 'voxbench-data';

const SECTIONS = [
  overviewSection,
  distributionsSection,
  loadCurvesSection,
  waterfallSection,
  werSection,
  failuresSection,
  figuresSection,
  definitionsSection,
  recordSection,
];

/**
 * The report as one self-contained HTML page: styles, chart library, data and
 * script inline, so it opens offline from disk and can be mailed. Tables are
 * rendered here (escaped); charts are drawn in the browser from embedded JSON
 * that holds only what they need, downsampled, not the stored timelines.
 */
export function renderHtml(report: Report): string {
  const sections = SECTIONS.map((section) => section(report));
  const data: PageData = { charts: Object.fromEntries(sections.flatMap((s) => s.charts).map((c) => [c.id, c])) };
  const library = chartLibrary();
  const { config } = report;
  return toHtmlString(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>voxbench · ${config.model} · ${report.startedAt}</title>
${inlineStyle(library.style)}
${inlineStyle(PAGE_STYLE)}
</head>
<body>
<header class="top"><div class="inner">
<h1>voxbench report · ${config.model}</h1>
<p class="subtitle">${config.target} · ${config.protocol} · ${report.startedAt}</p>
<nav>${sections.map((s) => html`<a href="#${s.id}">${s.title}</a>`)}</nav>
</div></header>
<main>
${sections.map((s) => html`<section id="${s.id}"><h2>${s.title}</h2>${s.body}</section>`)}
</main>
${jsonScript(DATA_ELEMENT_ID, data)}
${inlineScript(library.script)}
${inlineScript(`(${drawReportPage.toString()})(window, uPlot, ${JSON.stringify(DATA_ELEMENT_ID)});`)}
</body>
</html>
`);
}
