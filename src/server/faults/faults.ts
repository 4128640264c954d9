import { seededRandom } from '../../util/random.js';

/**
 * Where in a session a fault strikes: `open` as the WebSocket opens, before
 * `session.created`; `streaming` at the first audio append; `final` at the first final
 * commit (vLLM `commit {final: true}`, OpenAI's first commit, the client's or the VAD's).
 * In speech generation: `open` before any audio, `streaming` after the first chunk,
 * `final` after the last chunk, in place of the end of the stream.
 */
export const FAULT_POINTS = ['open', 'streaming', 'final'] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

/** One fault the simulated server injects. */
export type Fault =
  | { name: 'upgrade'; status: number }
  /** HTTP endpoints: answer the request with this status and an `{"error": ...}` body. */
  | { name: 'status'; status: number }
  | { name: 'slow-accept'; ms: number }
  | { name: 'never-finalize' | 'duplicate-final' | 'early-final' | 'out-of-order-finals' | 'markup-strings' }
  | { name: 'never-respond' | 'cut-mid-response' | 'drop-acks' | 'no-progress' | 'shared-session' }
  | { name: 'silent' | 'stall-reads' | 'tcp-reset' | 'malformed-json' | 'binary-frame'; at: FaultPoint }
  | { name: 'close'; code: number; at: FaultPoint }
  | { name: 'error-event'; code: string; at: FaultPoint }
  | { name: 'oversized-frame'; bytes: number; at: FaultPoint }
  | { name: 'flood' | 'ping-flood'; frames: number; at: FaultPoint }
  | { name: 'stall-after'; afterMs: number; stallMs: number }
  | { name: 'slow-chunks'; factor: number }
  /** Livepeer's app: its Trickle reader loses this segment (1-based) unread. */
  | { name: 'drop-segment'; segment: number }
  /** Speech: cut once `afterMs` of audio are out; batch transcription: cut the response body halfway. */
  | { name: 'cut-stream'; afterMs: number };
export type FaultName = Fault['name'];

/** The faults one faulted session gets together (`--fault a+b`). */
export type FaultScenario = readonly Fault[];

/** A `--fault` value that names no fault, or gives it a bad argument or point. */
export class FaultError extends Error {
  override name = 'FaultError';
}

/**
 * Text that is live markup in a web page, a terminal or a spreadsheet, for outputs that
 * forget to escape what a server sent: a formula, HTML, and ANSI/OSC escapes (colour,
 * window title, clear screen). Short enough for a close reason (123 bytes at most).
 */
export const MARKUP = '=HYPERLINK("http://x.invalid")<img src=x onerror=alert(1)>\x1b[31m\x1b]0;pwned\x07\x1b[2J';

/** The same in an error code. */
export const MARKUP_CODE = `</td><script>alert(1)</script>\x1b[2J\x1b[31m_injected`;

/** Beyond the 100 MiB `maxPayload` of ws, which many clients keep. */
const OVERSIZED_DEFAULT = 128 * 1024 * 1024;

interface Entry {
  /** The syntax, for help and errors. */
  usage: string;
  /** What the server does. */
  help: string;
  /** The argument when none is given; absent for faults that take none. */
  arg?: string;
  /** The point a fault strikes at when none is given; absent for faults without one. */
  at?: FaultPoint;
  make(arg: string, at: FaultPoint): Fault;
}

export const FAULT_CATALOGUE: Record<FaultName, Entry> = {
  upgrade: {
    usage: 'upgrade[:STATUS]',
    help: 'answer the upgrade with this HTTP status, 200-599 (default 503)',
    arg: '503',
    make: (arg) => ({ name: 'upgrade', status: whole(arg, 200, 599) }),
  },
  'slow-accept': {
    usage: 'slow-accept[:MS]',
    help: 'hold the upgrade this long, then accept it (default 5000)',
    arg: '5000',
    make: (arg) => ({ name: 'slow-accept', ms: whole(arg, 0, 3_600_000) }),
  },
  silent: {
    usage: 'silent[@POINT]',
    at: 'open',
    help: 'send nothing from POINT on (default open: not even session.created)',
    make: (_, at) => ({ name: 'silent', at }),
  },
  'stall-reads': {
    usage: 'stall-reads[@POINT]',
    at: 'streaming',
    help: 'stop reading the socket, so TCP backpressure builds; drop it after 60 s',
    make: (_, at) => ({ name: 'stall-reads', at }),
  },
  close: {
    usage: 'close[:CODE][@POINT]',
    at: 'streaming',
    help: 'close with CODE, 1000-4999 (default 1011; 1005: no code; 1006: no close frame)',
    arg: '1011',
    make: (arg, at) => ({ name: 'close', code: whole(arg, 1000, 4999), at }),
  },
  'tcp-reset': {
    usage: 'tcp-reset[@POINT]',
    at: 'streaming',
    help: 'reset the TCP connection (RST)',
    make: (_, at) => ({ name: 'tcp-reset', at }),
  },
  'error-event': {
    usage: 'error-event[:CODE][@POINT]',
    at: 'streaming',
    help: "send the dialect's error event with CODE (default server_error)",
    arg: 'server_error',
    make: (arg, at) => ({ name: 'error-event', code: errorCode(arg), at }),
  },
  'malformed-json': {
    usage: 'malformed-json[@POINT]',
    at: 'streaming',
    help: 'send a text frame of cut-off JSON (HTTP: a response body, or an event, that is not JSON)',
    make: (_, at) => ({ name: 'malformed-json', at }),
  },
  'binary-frame': {
    usage: 'binary-frame[@POINT]',
    at: 'streaming',
    help: 'send a binary frame',
    make: (_, at) => ({ name: 'binary-frame', at }),
  },
  'oversized-frame': {
    usage: 'oversized-frame[:BYTES][@POINT]',
    at: 'streaming',
    help: 'send one delta of BYTES (default 128 MiB), written as the socket drains',
    arg: String(OVERSIZED_DEFAULT),
    make: (arg, at) => ({ name: 'oversized-frame', bytes: whole(arg, 1, 2 ** 40), at }),
  },
  flood: {
    usage: 'flood[:N][@POINT]',
    at: 'streaming',
    help: 'send N events a client skips, at once (default 10000)',
    arg: '10000',
    make: (arg, at) => ({ name: 'flood', frames: whole(arg, 1, 10_000_000), at }),
  },
  'ping-flood': {
    usage: 'ping-flood[:N][@POINT]',
    at: 'streaming',
    help: 'send N pings at once (default 10000)',
    arg: '10000',
    make: (arg, at) => ({ name: 'ping-flood', frames: whole(arg, 1, 10_000_000), at }),
  },
  'never-finalize': {
    usage: 'never-finalize',
    help: 'never send a final transcript',
    make: () => ({ name: 'never-finalize' }),
  },
  'duplicate-final': {
    usage: 'duplicate-final',
    help: 'send every final transcript twice',
    make: () => ({ name: 'duplicate-final' }),
  },
  'early-final': {
    usage: 'early-final',
    help: 'after the first delta, send a final of the text so far, then go on',
    make: () => ({ name: 'early-final' }),
  },
  'out-of-order-finals': {
    usage: 'out-of-order-finals',
    help: "OpenAI: send an item's final after a later item's, when both are due",
    make: () => ({ name: 'out-of-order-finals' }),
  },
  'never-respond': {
    usage: 'never-respond',
    help: 'speech to speech: hear and commit turns, never answer them',
    make: () => ({ name: 'never-respond' }),
  },
  'cut-mid-response': {
    usage: 'cut-mid-response',
    help: 'speech to speech: close with 1011 halfway through the first response',
    make: () => ({ name: 'cut-mid-response' }),
  },
  'drop-acks': {
    usage: 'drop-acks',
    help: "vLLM-Omni duplex: lose the client's session.event_ack, so the unacknowledged events overflow and the session fails",
    make: () => ({ name: 'drop-acks' }),
  },
  'stall-after': {
    usage: 'stall-after[:MS[,PAUSE]]',
    help: 'speech: pause generation PAUSE ms (default 1000) once MS ms of audio are out (default 500)',
    arg: '500,1000',
    make: (arg) => {
      const [afterMs, stallMs = '1000'] = arg.split(',');
      return { name: 'stall-after', afterMs: whole(afterMs!, 0, 3_600_000), stallMs: whole(stallMs, 0, 3_600_000) };
    },
  },
  'slow-chunks': {
    usage: 'slow-chunks[:X]',
    help: 'speech: generate X times slower than the latency model says, 1-1000 (default 4)',
    arg: '4',
    make: (arg) => ({ name: 'slow-chunks', factor: whole(arg, 1, 1000) }),
  },
  'cut-stream': {
    usage: 'cut-stream[:MS]',
    help: 'drop the connection mid-answer: speech once MS ms of audio are out (default 500); batch transcription halfway through the response (a stream before [DONE], a JSON body before its end)',
    arg: '500',
    make: (arg) => ({ name: 'cut-stream', afterMs: whole(arg, 0, 3_600_000) }),
  },
  'drop-segment': {
    usage: 'drop-segment[:N]',
    help: "Livepeer's app: its Trickle reader loses segment N (default 2) unread and never acknowledges it, as a reader behind the live edge does",
    arg: '2',
    make: (arg) => ({ name: 'drop-segment', segment: whole(arg, 1, 1_000_000) }),
  },
  'no-progress': {
    usage: 'no-progress',
    help: "Livepeer's app: read and transcribe the audio, but send no progress acknowledgement of it",
    make: () => ({ name: 'no-progress' }),
  },
  'shared-session': {
    usage: 'shared-session',
    help: "Livepeer's app: answer POST /transcribe with the session opened before (its id, Trickle channel and WebSocket) while its channel is open, as an app that holds one session does",
    make: () => ({ name: 'shared-session' }),
  },
  'markup-strings': {
    usage: 'markup-strings',
    help: 'HTML, terminal escapes and a formula in the first word, error codes, close reasons',
    make: () => ({ name: 'markup-strings' }),
  },
  status: {
    usage: 'status[:STATUS]',
    help: 'HTTP (batch transcription): answer the request with this status, 400-599, and an {"error": ...} body (default 500; 413: too large)',
    arg: '500',
    make: (arg) => ({ name: 'status', status: whole(arg, 400, 599) }),
  },
};

/** Spellings from before the catalogue. */
const ALIASES: ReadonlyArray<[RegExp, string]> = [
  [/^upgrade-status=/, 'upgrade:'],
  [/^close=/, 'close:'],
  [/^stall-after=/, 'stall-after:'],
];

/**
 * Parses one `--fault` value: `NAME[:ARG][@POINT]`, several joined by `+` for one
 * scenario (`markup-strings+error-event`). Throws a FaultError that says what is wrong.
 */
export function parseFaultScenario(text: string): FaultScenario {
  return text.split('+').map(parseFault);
}

function parseFault(text: string): Fault {
  const spelled = ALIASES.reduce((t, [alias, name]) => t.replace(alias, name), text);
  const match = /^([a-z-]+)(?::([^@]*))?(?:@(.*))?$/.exec(spelled);
  const entry = match && Object.hasOwn(FAULT_CATALOGUE, match[1]!) ? FAULT_CATALOGUE[match[1] as FaultName] : undefined;
  if (!match || !entry) throw new FaultError(`unknown fault "${text}"; faults: ${Object.keys(FAULT_CATALOGUE).join(', ')}`);
  const [, , arg, at] = match;
  if (at !== undefined && (entry.at === undefined || !(FAULT_POINTS as readonly string[]).includes(at))) {
    throw new FaultError(
      entry.at === undefined ? `${entry.usage} strikes where it must; it takes no @POINT` : `${entry.usage}: POINT is one of ${FAULT_POINTS.join(', ')}`,
    );
  }
  if (arg !== undefined && entry.arg === undefined) throw new FaultError(`${entry.usage} takes no argument`);
  try {
    return entry.make(arg ?? entry.arg ?? '', (at as FaultPoint | undefined) ?? entry.at ?? 'open');
  } catch (err) {
    throw new FaultError(`${entry.usage}: ${(err as Error).message}`);
  }
}

function whole(text: string, min: number, max: number): number {
  const n = Number(text);
  if (text === '' || !Number.isInteger(n) || n < min || n > max) throw new Error(`expected a whole number from ${min} to ${max}, not "${text}"`);
  return n;
}

function errorCode(text: string): string {
  if (!/^[\w.-]+$/.test(text)) throw new Error(`a code is letters, digits, "_", "." and "-", not "${text}"`);
  return text;
}

/** The fault of `scenario` named `name`, if it has one. */
export function faultOf<N extends FaultName>(scenario: FaultScenario, name: N): Extract<Fault, { name: N }> | undefined {
  return scenario.find((f): f is Extract<Fault, { name: N }> => f.name === name);
}

/**
 * Chooses each connection's faults: the n-th upgrade draws u, the n-th number of a
 * mulberry32 generator seeded with `seed`; u < rate faults the session, with scenario
 * number floor(u / rate × scenarios). The same seed and order of connections give the
 * same choice every time.
 */
export function faultPicker(scenarios: readonly FaultScenario[], rate: number, seed: number): () => FaultScenario {
  const random = seededRandom(seed);
  return () => {
    if (scenarios.length === 0) return [];
    const u = random();
    return u < rate ? scenarios[Math.floor((u / rate) * scenarios.length)]! : [];
  };
}
