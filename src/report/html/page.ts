import { chartLibrary, pageScript } from './assets.js';
import { html, inlineScript, inlineStyle, jsonScript, scriptHashSource, toHtmlString, type Content } from './markup.js';
import { DATA_ELEMENT_ID, type PageData } from './page/data.js';
import type { Section } from './section.js';
import { PAGE_STYLE } from './styles.js';

/**
 * Nothing may leave the page, and only its own two scripts may run, allowed by their
 * hashes (the chart library and the page script, the same on every page), so markup
 * that slipped past escaping could run nothing; inline styles, images from data: and
 * blob: URLs.
 */
export function contentSecurityPolicy(): string {
  const scripts = [chartLibrary().script, pageScript()].map(scriptHashSource).join(' ');
  return `default-src 'none'; script-src ${scripts}; style-src 'unsafe-inline'; img-src data: blob:`;
}

export interface Page {
  title: string;
  heading: string;
  subtitle: string;
  sections: Section[];
  /** CSS of this kind of page, after the shared style. */
  style?: string;
}

/**
 * A self-contained page (the report, or a comparison): styles, chart library, data
 * and script inline, so it opens offline from disk and can be mailed. Each section's
 * charts are drawn in the browser from the embedded JSON by the page script.
 */
export function renderPage(page: Page): string {
  const data: PageData = { charts: Object.fromEntries(page.sections.flatMap((s) => s.charts).map((c) => [c.id, c])) };
  const library = chartLibrary();
  const style: Content = page.style ? inlineStyle(page.style) : '';
  return toHtmlString(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy()}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${page.title}</title>
${inlineStyle(library.style)}
${inlineStyle(PAGE_STYLE)}
${style}
</head>
<body>
<header class="top"><div class="inner">
<h1>${page.heading}</h1>
<p class="subtitle">${page.subtitle}</p>
<nav>${page.sections.map((s) => html`<a href="#${s.id}">${s.title}</a>`)}</nav>
</div></header>
<main>
${page.sections.map((s) => html`<section id="${s.id}"><h2>${s.title}</h2>${s.body}</section>`)}
</main>
${jsonScript(DATA_ELEMENT_ID, data)}
${inlineScript(library.script)}
${inlineScript(pageScript())}
</body>
</html>
`);
}
