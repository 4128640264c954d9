import type { Telemetry, TelemetrySeries } from '../report/schema.js';
import { redactUrl } from '../report/redact.js';
import type { Clock } from '../runtime/clock.js';
import { printable } from '../util/printable.js';
import { ExpositionError, parseExposition } from './exposition.js';
import { DEFAULT_SERIES, selector } from './select.js';
import { DEFAULT_SERIES_LIMITS, SeriesStore, type SeriesLimits } from './series.js';

export interface ScrapeOptions {
  /** Prometheus text endpoints, polled in parallel. */
  urls: readonly string[];
  intervalMs: number;
  /** Families kept beyond the defaults (`select.ts`), by name. */
  match: readonly RegExp[];
  /** The replica gauge cost is charged from (`--replicas-series`): kept whole, never thinned. */
  replicasSeries?: string;
  /** A scrape not answered whole in this long has failed. Default the interval, and at least 2 s (a loaded machine's loopback can take that long). */
  timeoutMs?: number;
  /** A larger answer has failed. Default 8 MiB. */
  maxBodyBytes?: number;
  limits?: SeriesLimits;
  /** Told of each failed scrape; the run goes on. */
  onFailure?: (url: string, error: string) => void;
}

export interface Scraping {
  /** The series kept so far. */
  series(): TelemetrySeries[];
  /** Stops polling (a scrape in flight is abandoned, not counted) and returns what was kept. */
  stop(): Telemetry;
}

const ACCEPT = 'text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1';

/**
 * Polls each endpoint every `intervalMs`, from the clock's now, at absolute deadlines (a
 * late scrape does not push the next ones later; one still in flight at its next
 * deadline skips that one, so a slow target leaves a gap). A scrape is stamped at the middle of its request on the
 * run's clock, the nearest one time to when the server read its values. A target that
 * is down, slow or answers something else is counted and told, never thrown.
 */
export function startScraping(options: ScrapeOptions, clock: Clock): Scraping {
  const limits = options.limits ?? DEFAULT_SERIES_LIMITS;
  const store = new SeriesStore(selector(options.match), options.replicasSeries !== undefined ? { ...limits, whole: options.replicasSeries } : limits);
  const targets = options.urls.map((url) => ({ url: redactUrl(url), scrapes: 0, failures: 0, lastError: undefined as string | undefined }));
  const abort = new AbortController();
  const timers: NodeJS.Timeout[] = [];
  const startMs = clock.now();
  const timeoutMs = options.timeoutMs ?? Math.max(options.intervalMs, 2000);

  options.urls.forEach((url, index) => {
    const { request, headers } = requestOf(url);
    let tick = 0;
    let busy = false;
    const scrape = async (): Promise<void> => {
      busy = true;
      const sentMs = clock.now();
      try {
        const text = await fetchText(request, headers, AbortSignal.any([abort.signal, AbortSignal.timeout(timeoutMs)]), options.maxBodyBytes);
        const families = parseExposition(text);
        if (abort.signal.aborted) return;
        targets[index]!.scrapes++;
        store.add(index, (sentMs + clock.now()) / 2, families);
      } catch (err) {
        if (abort.signal.aborted) return;
        const target = targets[index]!;
        target.scrapes++;
        target.failures++;
        target.lastError = describe(err, timeoutMs);
        options.onFailure?.(target.url, target.lastError);
      } finally {
        busy = false;
      }
    };
    const next = (): void => {
      if (abort.signal.aborted) return;
      if (!busy) void scrape();
      tick++;
      timers[index] = setTimeout(next, Math.max(0, startMs + tick * options.intervalMs - clock.now()));
    };
    next();
  });

  return {
    series: () => store.all(),
    stop: () => {
      abort.abort();
      for (const timer of timers) clearTimeout(timer);
      const dropped = store.droppedSeries();
      return {
        intervalMs: options.intervalMs,
        targets: targets.map((t, i) => ({
          url: t.url,
          scrapes: t.scrapes,
          failures: t.failures,
          ...(t.lastError !== undefined ? { lastError: t.lastError } : {}),
          ...(dropped.has(i) ? { droppedSeries: dropped.get(i)! } : {}),
        })),
        series: store.all(),
        kept: { defaults: [...DEFAULT_SERIES], match: options.match.map((re) => re.source) },
      };
    },
  };
}

/** fetch refuses a URL with credentials in it: they go in a Basic `Authorization` header instead. */
function requestOf(url: string): { request: string; headers: Record<string, string> } {
  const parsed = new URL(url);
  const headers: Record<string, string> = { accept: ACCEPT };
  if (parsed.username || parsed.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}`;
    parsed.username = '';
    parsed.password = '';
  }
  return { request: parsed.toString(), headers };
}

async function fetchText(url: string, headers: Record<string, string>, signal: AbortSignal, maxBytes = 8 * 1024 * 1024): Promise<string> {
  const response = await fetch(url, { headers, signal });
  if (!response.ok) {
    await response.body?.cancel();
    throw new ScrapeError(`HTTP ${response.status}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await response.body?.cancel();
      throw new ScrapeError(`answer over ${Math.round(maxBytes / 1024 / 1024)} MiB`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

class ScrapeError extends Error {}

/** One line about a failed scrape, safe to print: what was wrong, not a stack. */
function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof ExpositionError) return printable(`not Prometheus text: ${err.message}`);
  if (err instanceof ScrapeError) return err.message;
  if (err instanceof Error && err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const code = (cause as { code?: unknown }).code;
  return printable(typeof code === 'string' ? code : cause instanceof Error ? cause.message : String(cause));
}
