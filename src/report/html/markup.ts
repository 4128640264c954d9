import { createHash } from 'node:crypto';
import { inert, inertJson } from '../../util/printable.js';

/**
 * Safe HTML building. Every string that reaches the page (transcripts, error
 * messages, close reasons, config values) may come from the server under test, so
 * the `html` template escapes each interpolated string; only `Html` values, made by
 * this module, pass through unescaped.
 */
export interface Html {
  readonly __html: string;
}

export type Content = Html | string | number | null | undefined | readonly Content[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escaped for HTML, control and bidi characters shown as escapes, as in the other outputs, so `cat` acts on none. */
export function escapeHtml(text: string): string {
  return inert(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** Markup known to be safe, e.g. assets read from node_modules. */
export function trusted(markup: string): Html {
  return { __html: markup };
}

function isHtml(value: Content): value is Html {
  return typeof value === 'object' && value !== null && '__html' in value;
}

function render(value: Content): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || typeof value === 'number') return escapeHtml(String(value));
  if (isHtml(value)) return value.__html;
  return value.map(render).join('');
}

/** Tagged template: html`<td title=${definition}>${value}</td>`; interpolations are escaped unless they are `Html`. */
export function html(strings: TemplateStringsArray, ...values: readonly Content[]): Html {
  return trusted(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ''), ''));
}

export function toHtmlString(content: Content): string {
  return render(content);
}

/**
 * JSON for a `<script type="application/json">` block: `<` becomes `\u003c`, so no
 * value can close the script element or open a comment, and control characters are
 * escaped too (`inertJson`); JSON.parse reads it back unchanged.
 */
export function jsonScript(id: string, value: unknown): Html {
  const json = inertJson(JSON.stringify(value)).replace(/</g, '\\u003c');
  return trusted(`<script type="application/json" id="${escapeHtml(id)}">${json}</script>`);
}

/** A script's text inline: `</script` inside it is written `<\/script` so it cannot end the element early. */
function scriptText(source: string): string {
  return source.replace(/<\/script/gi, '<\\/script');
}

export function inlineScript(source: string): Html {
  return trusted(`<script>${scriptText(source)}</script>`);
}

/** The CSP source that lets `inlineScript(source)`, and no other script, run. */
export function scriptHashSource(source: string): string {
  return `'sha256-${createHash('sha256').update(scriptText(source)).digest('base64')}'`;
}

export function inlineStyle(css: string): Html {
  return trusted(`<style>${css.replace(/<\/style/gi, '<\\/style')}</style>`);
}
