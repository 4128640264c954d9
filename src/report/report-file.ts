/**
 * Reading a `report.json` to render it again. Since version 3 a session's timeline is in
 * the session log and everything else a render needs is recomputed from it, so of each
 * stored session only its index is read, and the whole of it only where it holds what
 * the log does not (its `timeline`, in older reports; the `analysis` findings kept for
 * speech generation). At 100,000 sessions the file is 113 MB: parsed whole it took
 * 1.9 s and 130 MiB more before the log's reading could start (issue 38).
 */

/** Where each level's sessions begin and end, and a session's bounds and top-level keys, as `reportJsonChunks` lays them out. */
const SESSIONS_OPEN = Buffer.from('\n   "sessions": [\n    {');
const SESSIONS_CLOSE = Buffer.from('\n   ]');
const SESSION_OPEN = Buffer.from('\n    {');
const SESSION_CLOSE = Buffer.from('\n    }');
const INDEX_KEY = Buffer.from('\n     "index": ');
/** Keys of a session that make it read whole where they are its own (on a line of a session's keys' indent). */
const KEPT_KEYS = ['timeline', 'analysis'].map((key) => Buffer.from(`"${key}": `));
const KEY_INDENT = Buffer.from('\n     ');

/** What stands for the nth level's sessions read in the text parsed (as JSON, and as parsed), replaced by them after. */
const placeholder = (n: number): string => `\u0000sessions ${n}`;

/**
 * The report in `bytes`, its sessions reduced to `{ index }` where that is all they hold
 * beyond what the log holds. A line of JSON text never holds a raw line break, so a
 * line's indent places it in the document: a file not laid out as voxbench writes it
 * (one-space indent) is parsed whole, as is one whose levels the layout cannot be
 * matched to. Throws as `JSON.parse` does on a file that is not JSON.
 */
export function parseReportFile(bytes: Buffer): unknown {
  const levels: unknown[][] = [];
  const pieces: Array<Buffer | string> = [];
  let from = 0;
  for (let open = bytes.indexOf(SESSIONS_OPEN); open >= 0; open = bytes.indexOf(SESSIONS_OPEN, from)) {
    const start = open + SESSIONS_OPEN.length - SESSION_OPEN.length;
    const end = bytes.indexOf(SESSIONS_CLOSE, start);
    const sessions = end < 0 ? undefined : sessionsIn(bytes.subarray(start, end));
    if (!sessions) return wholeOf(bytes);
    pieces.push(bytes.subarray(from, open), `\n   "sessions": ${JSON.stringify(placeholder(levels.length))}`);
    levels.push(sessions);
    from = end + SESSIONS_CLOSE.length;
  }
  if (levels.length === 0) return wholeOf(bytes);
  pieces.push(bytes.subarray(from));
  const report = JSON.parse(Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString()) as {
    benchmarks?: Array<{ sessions?: unknown }>;
  };
  // Each placeholder must be a level's sessions, in order, or the layout was not what it seemed (a level without sessions has none).
  const placed = (Array.isArray(report.benchmarks) ? report.benchmarks : []).filter((b) => typeof b?.sessions === 'string');
  if (placed.length !== levels.length || placed.some((b, n) => b.sessions !== placeholder(n))) return wholeOf(bytes);
  placed.forEach((b, n) => (b.sessions = levels[n]));
  return report;
}

function wholeOf(bytes: Buffer): unknown {
  return JSON.parse(bytes.toString());
}

/** The sessions of one level's array (from its first `{` line to before its `]` line), or undefined where one is not laid out as expected. */
function sessionsIn(array: Buffer): unknown[] | undefined {
  const kept = keptKeysIn(array);
  const sessions: unknown[] = [];
  let next = 0;
  for (let at = 0; at < array.length;) {
    if (array.indexOf(SESSION_OPEN, at) !== at) return undefined;
    const close = array.indexOf(SESSION_CLOSE, at);
    if (close < 0) return undefined;
    const end = close + SESSION_CLOSE.length;
    const session = array.subarray(at + 1, end);
    while (next < kept.length && kept[next]! < at) next++;
    if (next < kept.length && kept[next]! < end) sessions.push(JSON.parse(session.toString()));
    else {
      const index = indexOf(session);
      if (index === undefined) return undefined;
      sessions.push({ index });
    }
    at = end + 1; // past the comma before the next session, whose start is checked above
  }
  return sessions;
}

/**
 * Where in a level's array a session has a key of its own that makes it read whole,
 * ascending. The keys are looked for through the whole array at once, without their
 * line's indent, and the indent then checked: a search per session, or for a pattern of
 * spaces through a text that is mostly indents, took several times as long.
 */
function keptKeysIn(array: Buffer): number[] {
  const found: number[] = [];
  for (const key of KEPT_KEYS) {
    for (let at = array.indexOf(key); at >= 0; at = array.indexOf(key, at + 1)) {
      if (at >= KEY_INDENT.length && array.subarray(at - KEY_INDENT.length, at).equals(KEY_INDENT)) found.push(at);
    }
  }
  return found.sort((a, b) => a - b);
}

/** The session's `index`, a whole number on its own key's line, or undefined. */
function indexOf(session: Buffer): number | undefined {
  const key = session.indexOf(INDEX_KEY);
  if (key < 0) return undefined;
  const from = key + INDEX_KEY.length;
  let to = from;
  while (to < session.length && session[to]! >= 0x30 && session[to]! <= 0x39) to++;
  if (to === from || (session[to] !== 0x2c && session[to] !== 0x0a)) return undefined;
  return Number(session.toString('latin1', from, to));
}
