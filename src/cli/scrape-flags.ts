import { Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { ScrapeRunOptions } from '../config/options.js';
import { DEFAULT_SCRAPE_INTERVAL_MS } from '../config/scrape-rules.js';
import { seconds } from './parse.js';

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** `--scrape`, `--scrape-interval`, `--scrape-match`, `--replicas-series`: server metrics polled on the run's clock (src/scrape/). */
export function addScrapeFlags<C extends CommandUnknownOpts>(command: C): C {
  command.addOption(
    new Option(
      '--scrape <url...>',
      "a Prometheus endpoint to poll during the run (repeatable): the server's (vLLM: http://host:8000/metrics), a GPU exporter's (DCGM: http://host:9400/metrics); a path such as /metrics is on the target's host (the built-in server's without --target). A target that is down, slow or answers garbage is a warning, never a failed run",
    ).argParser(collect),
  );
  command.addOption(
    new Option('--scrape-interval <s>', 'seconds between two scrapes of a target; a scrape not answered in that long (at least 2 s) has failed')
      .argParser(seconds)
      .default(DEFAULT_SCRAPE_INTERVAL_MS / 1000),
  );
  command.addOption(
    new Option(
      '--scrape-match <regex...>',
      "keep the families whose names match too (repeatable); kept by default: vLLM's running and waiting requests, KV-cache usage, token and WebSocket series, vLLM-Omni's, DCGM's utilisation, memory and power",
    ).argParser(collect),
  );
  command.addOption(
    new Option(
      '--replicas-series <name>',
      'a scraped gauge of the replicas serving the run (e.g. kube_deployment_status_replicas_available, kept with --scrape-match): each level is charged --cost-per-hour for the replicas that ran (their time-weighted mean), not --replicas',
    ),
  );
  return command;
}

/** The flags of `addScrapeFlags`, as commander parses them. */
export interface ScrapeFlags {
  scrape?: string[];
  scrapeInterval?: number;
  scrapeMatch?: string[];
  replicasSeries?: string;
}

export function scrapeOptionsFromFlags(flags: ScrapeFlags): { scrape?: ScrapeRunOptions } {
  if (flags.scrape === undefined) {
    if (flags.replicasSeries !== undefined) return { scrape: { urls: [], replicasSeries: flags.replicasSeries } };
    return {};
  }
  return {
    scrape: {
      urls: flags.scrape,
      intervalMs: (flags.scrapeInterval ?? DEFAULT_SCRAPE_INTERVAL_MS / 1000) * 1000,
      ...(flags.scrapeMatch ? { match: flags.scrapeMatch } : {}),
      ...(flags.replicasSeries !== undefined ? { replicasSeries: flags.replicasSeries } : {}),
    },
  };
}
