/**
 * The metric families kept by default: those that explain a speech server's latency
 * under load, from the servers voxbench knows. Any other family is kept only when a
 * `--scrape-match` expression matches its name.
 *
 * - vLLM (vllm-project/vllm `vllm/v1/metrics/loggers.py`, `docs/design/metrics.md`; the
 *   realtime WebSocket series from `vllm/entrypoints/openai/realtime/metrics.py`);
 * - vLLM-Omni (vllm-project/vllm-omni `vllm_omni/metrics/definitions.py`);
 * - NVIDIA's DCGM exporter (NVIDIA/dcgm-exporter `etc/default-counters.csv`).
 */
export const DEFAULT_SERIES: readonly string[] = [
  'vllm:num_requests_running',
  'vllm:num_requests_waiting',
  'vllm:kv_cache_usage_perc',
  // Its name before vLLM 0.9.
  'vllm:gpu_cache_usage_perc',
  'vllm:num_preemptions',
  'vllm:prompt_tokens',
  'vllm:generation_tokens',
  'vllm:time_to_first_token_seconds',
  'vllm:e2e_request_latency_seconds',
  'vllm:request_queue_time_seconds',
  'vllm:websocket_connections_active',
  'vllm:websocket_connections',
  'vllm:websocket_connection_duration_seconds',
  'vllm_omni:num_requests_running',
  'vllm_omni:num_requests_waiting',
  'vllm_omni:e2e_request_latency_s',
  'vllm_omni:audio_ttfp_s',
  'vllm_omni:audio_rtf',
  'vllm_omni:stage_inflight_requests',
  'DCGM_FI_DEV_GPU_UTIL',
  'DCGM_FI_DEV_MEM_COPY_UTIL',
  'DCGM_FI_DEV_FB_USED',
  'DCGM_FI_DEV_POWER_USAGE',
  'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
];

const DEFAULTS = new Set(DEFAULT_SERIES);

/** Whether a family is kept: a default (a counter by its name with or without `_total`), or matched by one of `extra`. */
export function selector(extra: readonly RegExp[]): (family: string) => boolean {
  return (family) => DEFAULTS.has(family) || DEFAULTS.has(family.replace(/_total$/, '')) || extra.some((re) => re.test(family));
}
