import { positive, timerLimit } from './checks.js';
import { option, optionsError } from './errors.js';
import type { ScrapeRunOptions } from './options.js';
import { selector } from '../scrape/select.js';

/** `scrape` checked: where, how often, which extra families. */
export interface ScrapeSettings {
  /** Absolute URLs, or paths (`/metrics`) on the target's host, resolved once the target is known. */
  urls: string[];
  intervalMs: number;
  match: RegExp[];
  /** A scraped gauge of the replicas serving the run: cost follows it. */
  replicasSeries?: string;
}

export const DEFAULT_SCRAPE_INTERVAL_MS = 1000;

export function checkScrape(scrape: ScrapeRunOptions, priced: boolean): ScrapeSettings {
  const urls = option('scrape.urls');
  if (scrape.urls.length === 0) throw optionsError`${urls} needs at least one Prometheus endpoint, e.g. http://host:8000/metrics`;
  for (const url of scrape.urls) {
    if (url.startsWith('/')) continue;
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      protocol = '';
    }
    if (protocol !== 'http:' && protocol !== 'https:')
      throw optionsError`${urls} ${url} is not an http:// or https:// URL; give one (http://host:9400/metrics) or a path on the target's host (/metrics)`;
  }
  const intervalMs = scrape.intervalMs ?? DEFAULT_SCRAPE_INTERVAL_MS;
  positive(option('scrape.intervalMs'), intervalMs, false);
  timerLimit(option('scrape.intervalMs'), intervalMs, 'ms');
  const match = (scrape.match ?? []).map((text) => {
    try {
      return new RegExp(text);
    } catch (err) {
      throw optionsError`${option('scrape.match')} ${text} is not a regular expression (${(err as Error).message}); give one that matches metric names, e.g. ^node_cpu`;
    }
  });
  if (scrape.replicasSeries !== undefined && !priced)
    throw optionsError`${option('scrape.replicasSeries')} sets the replicas that cost is charged for; give ${option('pricing.perReplicaHour')} too`;
  // A gauge the scrape never keeps would leave every level on the fallback replicas while the cost read as the gauge's.
  if (scrape.replicasSeries !== undefined && !selector(match)(scrape.replicasSeries))
    throw optionsError`${option('scrape.replicasSeries')} ${scrape.replicasSeries} is not a family the scrape keeps; keep it with ${option('scrape.match')}, e.g. ^${scrape.replicasSeries}$`;
  return { urls: [...scrape.urls], intervalMs, match, ...(scrape.replicasSeries !== undefined ? { replicasSeries: scrape.replicasSeries } : {}) };
}

/** A scrape URL as fetched: a path is on the target's host, over http(s) as the target's ws(s). */
export function scrapeUrlOf(url: string, target: string): string {
  if (!url.startsWith('/')) return url;
  const base = new URL(target);
  base.protocol = base.protocol === 'wss:' || base.protocol === 'https:' ? 'https:' : 'http:';
  return new URL(url, base.origin).toString();
}
