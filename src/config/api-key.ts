import { DEFAULT_PROTOCOL, specOf, FALLBACK_KEY_ENV, type Protocol } from '../dialects/index.js';
import { option, optionsError } from './errors.js';

/** Where a run's API key may come from, as the CLI's `--api-key` and `--api-key-env` give them. */
export interface ApiKeySources {
  apiKey?: string;
  /** Name of the environment variable holding the key. */
  apiKeyEnv?: string;
  /** The dialect (the registry's default when absent); one whose spec names a `keyEnv` also looks there (OpenAI's: OPENAI_API_KEY, as OpenAI's own clients do). */
  protocol?: Protocol;
}

/** A key and where it came from: `--api-key`, or the environment variable's name (never the key itself). */
export interface FoundApiKey {
  key: string;
  source: string;
}

/**
 * The key given, else the variable named by `apiKeyEnv` (an error when it is unset,
 * so a typo is not silently a run without a key), else the dialect's own variable (its
 * spec's `keyEnv`), else VOXBENCH_API_KEY; undefined when there is none.
 */
export function resolveApiKey(sources: ApiKeySources, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return findApiKey(sources, env)?.key;
}

/** `resolveApiKey`, with the key's source, for messages that must say which key a server refused. */
export function findApiKey(sources: ApiKeySources, env: NodeJS.ProcessEnv = process.env): FoundApiKey | undefined {
  if (sources.apiKey !== undefined) return { key: sources.apiKey, source: '--api-key' };
  if (sources.apiKeyEnv !== undefined) {
    const value = env[sources.apiKeyEnv];
    if (!value) throw optionsError`${option('apiKeyEnv')} ${sources.apiKeyEnv}: that environment variable is not set`;
    return { key: value, source: sources.apiKeyEnv };
  }
  for (const name of keyVariables(sources.protocol ?? DEFAULT_PROTOCOL)) if (env[name]) return { key: env[name], source: name };
  return undefined;
}

/** The environment variables a dialect reads its key from, in order. */
export function keyVariables(protocol: Protocol): string[] {
  const own = specOf(protocol).keyEnv;
  return [...(own !== undefined ? [own] : []), FALLBACK_KEY_ENV];
}

/**
 * What a refusal for authentication says of the key: which one was sent (by its source,
 * never its value) or that none was, and where the dialect looks for one.
 */
export function keyNote(protocol: Protocol, source: string | undefined): string {
  const sent = source === undefined ? 'no API key was sent' : `the API key sent came from ${source}`;
  return `${sent}; ${protocol} reads ${keyVariables(protocol).join(', else ')} (or the variable --api-key-env names)`;
}
