/**
 * Control characters (C0, DEL, C1: newlines, ANSI and OSC escapes), Unicode line and
 * paragraph separators, and bidirectional formatting characters. A terminal acts on
 * them, so text a server or a file supplied could clear the screen, set the title,
 * start a line that looks like voxbench's own, or display reordered.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;

/** Text for one line of a terminal: each run of characters a terminal would act on becomes one space. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, ' ');
}
