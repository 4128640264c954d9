import { headlineLatencies } from './picks.js';
import type { Meta, RecordValue, Report, ReproducibilityRecord } from './schema.js';

/**
 * Fills the record from what voxbench knows, then lays the user's entries over it
 * (they win: they know the GPU, the runtime version and where the client ran).
 */
export function buildRecord(report: Omit<Report, 'record'>, meta: Meta = {}): ReproducibilityRecord {
  const { config, dataset, environment, benchmarks } = report;
  const levels = benchmarks.map((b) => b.label).join(', ');
  const measured = benchmarks.reduce((n, b) => n + b.summary.sessions.total - b.summary.excluded.warmup - b.summary.excluded.cooldown, 0);
  const errorRates = benchmarks.map((b) => `${b.label}: ${b.summary.errorRate === null ? 'n/a' : b.summary.errorRate.toFixed(4)}`).join('; ');
  // The median and tail of the task's first headline latency (TTFT for speech to text), per level.
  const headline = headlineLatencies(report)[0]?.name;
  const tail =
    headline &&
    benchmarks
      .map((b) => b.summary.metrics[headline])
      .map((d, i) => `${benchmarks[i]!.label}: ${d ? `${d.p50.toFixed(0)} / ${d.p95.toFixed(0)} / ${d.p99.toFixed(0)}` : 'n/a'}`)
      .join('; ');
  const wer = benchmarks.map((b) => b.summary.quality).find((q) => q.wer !== null);
  const cost = benchmarks.map((b) => b.summary.cost).find((c) => c !== undefined);
  const td = config.turnDetection;
  const record: ReproducibilityRecord = {
    deployment: {
      target: config.target,
      model: config.model,
      runtime: config.builtInServer ? `voxbench simulated server ${report.voxbenchVersion}` : null,
      gpu: null,
      replicas: cost?.replicas ?? null,
      concurrency_target: null,
    },
    input: {
      dataset: config.data,
      // A Hub dataset by id, config, split and the commit read: a rerun with --revision <commit> reads the same bytes.
      ...(dataset.hub
        ? {
            hub_dataset: dataset.hub.id,
            hub_config: dataset.hub.config,
            hub_split: dataset.hub.split,
            hub_revision: dataset.hub.revision,
            hub_commit: dataset.hub.commit,
          }
        : {}),
      fingerprint: dataset.fingerprint,
      samples: dataset.count,
      skipped: dataset.skipped,
      recording_lengths:
        dataset.count > 0 ? `${dataset.totalAudioS.toFixed(1)} s in all, ${(dataset.totalAudioS / dataset.count).toFixed(2)} s on average` : null,
      silence: `lead ${config.padding.leadMs} ms, trail ${config.padding.trailMs} ms, between turns ${config.padding.gapMs} ms`,
      source_sample_rates_hz: dataset.sampleRatesHz.join(', '),
      encoding: `PCM16 mono, base64 in JSON text frames (${config.protocol})`,
    },
    client: {
      voxbench: report.voxbenchVersion,
      node: environment.node,
      host: `${environment.hostname} (${environment.platform}/${environment.arch}, ${environment.cpus} CPUs)`,
      location: null,
      connection_reuse:
        config.task === 'batch_stt' || config.task === 'batch_tts'
          ? 'one keep-alive pool for all sessions; a request whose pooled connection died before any answer is sent once more on a new one'
          : config.turnsPerSession > 1
            ? `one connection per session, ${config.turnsPerSession} turns on it`
            : 'one connection per session',
      chunk_ms: config.chunkMs,
      pacing: config.pace,
      workers: config.workers,
    },
    session: {
      partial_interval: null,
      turn_detection: td.type === 'none' ? 'client commits' : JSON.stringify(td),
      warm_or_cold: null,
      simultaneous_connections: levels,
      idle_after_last_turn_ms: config.idleMs,
    },
    results: {
      timing_boundaries: 'see metricDefinitions; finalization from end of speech (eos source per turn), commit_to_flush from the final commit',
      sessions: benchmarks.reduce((n, b) => n + b.summary.sessions.total, 0),
      measured_sessions: measured,
      ...(headline ? { [`${headline}_p50_p95_p99`]: tail! } : {}),
      error_rate: errorRates,
      quality: wer
        ? `corpus WER ${percent(wer.wer)}${wer.werCi95 ? ` (95% CI ${percent(wer.werCi95[0])} to ${percent(wer.werCi95[1])})` : ''}, CER ${percent(wer.cer)} (${wer.normalizer}, ${wer.turns} turns)`
        : null,
      cost_interval: cost ? `${cost.intervalS.toFixed(1)} s at ${cost.perReplicaHour}/replica-hour × ${cost.replicas}` : null,
    },
  };
  for (const [section, entries] of Object.entries(meta)) {
    const target = (record as Record<string, Record<string, RecordValue>>)[section] ?? {};
    (record as Record<string, Record<string, RecordValue>>)[section] = { ...target, ...entries };
  }
  return record;
}

const percent = (x: number | null): string => (x === null ? 'n/a' : `${(x * 100).toFixed(2)}%`);
