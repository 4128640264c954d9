import type { IncomingHttpHeaders } from 'node:http';

/** Most timings kept from one response. */
const MAX_TIMINGS = 8;

/**
 * The server's own timings from a response's headers, ms by name: each `dur` of a
 * `Server-Timing` header (W3C), and OpenAI's `openai-processing-ms`. Undefined when
 * the server sends neither.
 */
export function serverTimingOf(headers: IncomingHttpHeaders): Record<string, number> | undefined {
  const timing: Record<string, number> = {};
  const add = (name: string, value: number): void => {
    if (Number.isFinite(value) && Object.keys(timing).length < MAX_TIMINGS) timing[name.slice(0, 64)] = value;
  };
  const header = headers['server-timing'];
  for (const entry of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',')) {
    const [name, ...params] = entry.split(';').map((p) => p.trim());
    const dur = params.find((p) => p.startsWith('dur='));
    if (name && dur) add(name, Number(dur.slice(4)));
  }
  const openai = headers['openai-processing-ms'];
  if (typeof openai === 'string') add('openai-processing-ms', Number(openai));
  return Object.keys(timing).length > 0 ? timing : undefined;
}
