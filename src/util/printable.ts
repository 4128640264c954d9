/**
 * Control characters (C0, DEL, C1: ANSI and OSC escapes, the bell) and bidirectional
 * formatting characters. A terminal acts on them, so text a server or a file supplied
 * could clear the screen, set the title, or display reordered.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Line breaks and tabs: could start a line that looks like voxbench's own, or break a table row. */
// eslint-disable-next-line no-control-regex -- as above: vertical tab and form feed
const BREAKS = /[\t\n\u000b\u000c\r\u2028\u2029]+/g;

/**
 * Text for one line of a terminal, a CSV cell or a Markdown table: each run of line
 * breaks and tabs becomes one space, and every other character a terminal would act on
 * is shown as its escape (`\x1b`, `\u202e`), so it is inert and still seen.
 */
export function printable(text: string): string {
  return inert(text.replace(BREAKS, ' '));
}

/** Whether `printable` gives the text back as it is: the case of most text, told by one test. */
export function isPrintable(text: string): boolean {
  return !ACTED_ON.test(text);
}
const ACTED_ON = new RegExp(`${CONTROL.source}|${BREAKS.source}`);

/** Text with each control and bidi character shown as its escape, line breaks and tabs kept (a web page lays them out itself). */
export function inert(text: string): string {
  return text.replace(CONTROL, escape);
}

/**
 * JSON with every character a terminal acts on written as a `\u` escape (JSON.stringify
 * escapes only C0): `JSON.parse` reads the same value back, and `cat` shows it inert.
 */
export function inertJson(json: string): string {
  return json.replace(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function escape(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
