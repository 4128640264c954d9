import { DEFAULT_PROTOCOL, descriptorOf, FALLBACK_KEY_ENV, type Protocol } from '../dialects/index.js';
import { option, optionsError } from './errors.js';

/** Where a run's API key may come from, as the CLI's `--api-key` and `--api-key-env` give them. */
export interface ApiKeySources {
  apiKey?: string;
  /** Name of the environment variable holding the key. */
  apiKeyEnv?: string;
  /** The dialect (the registry's default when absent); one whose spec names a `keyEnv` also looks there (OpenAI's: OPENAI_API_KEY, as OpenAI's own clients do). */
  protocol?: Protocol;
}

/**
 * The key given, else the variable named by `apiKeyEnv` (an error when it is unset,
 * so a typo is not silently a run without a key), else the dialect's own variable (its
 * spec's `keyEnv`), else VOXBENCH_API_KEY; undefined when there is none.
 */
export function resolveApiKey(sources: ApiKeySources, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (sources.apiKey !== undefined) return sources.apiKey;
  if (sources.apiKeyEnv !== undefined) {
    const value = env[sources.apiKeyEnv];
    if (!value) throw optionsError`${option('apiKeyEnv')} ${sources.apiKeyEnv}: that environment variable is not set`;
    return value;
  }
  const own = descriptorOf(sources.protocol ?? DEFAULT_PROTOCOL).keyEnv;
  return (own !== undefined ? env[own] : undefined) || env[FALLBACK_KEY_ENV] || undefined;
}
