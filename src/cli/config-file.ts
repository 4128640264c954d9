import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type CommandUnknownOpts, type Option } from '@commander-js/extra-typings';
import type { ConfigFileRecord } from '../report/schema.js';
import { UsageError } from '../util/errors.js';

/** Keys a file may not set, and why. */
const REFUSED: Readonly<Record<string, string>> = {
  config: 'a file cannot name another; give one --config',
  'api-key': 'keep keys out of files kept in a repository: name the environment variable that holds it with api-key-env',
};

/**
 * Lays the options of a YAML or JSON file (`--config`) under a command's flags: each key
 * is a long flag's name, kebab-case as typed (`max-sessions`) or camelCase (`maxSessions`),
 * and each value is what the flag takes (a list for a flag that takes several or a
 * comma-separated list, true or false for a switch). The command line and environment
 * variables win over the file, as they do over defaults. Values go through the flags' own
 * parsers and choices, so a file is checked exactly as a command line is.
 */
export async function applyConfigFile(command: CommandUnknownOpts, file: string): Promise<ConfigFileRecord> {
  const fail = (what: string): never => {
    throw new UsageError(`--config ${file}: ${what}`);
  };
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    return fail(`cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  // YAML 1.2 reads JSON as well, so one parser serves both (and refuses a key given twice). Loaded only for a file:
  // the parser would add a twentieth of a CPU-second to every command's start.
  const { parse } = await import('yaml');
  let document: unknown;
  try {
    document = parse(bytes.toString('utf8'));
  } catch (err) {
    return fail(`not valid YAML or JSON: ${(err as Error).message.split('\n')[0]!.replace(/:$/, '')}`);
  }
  document ??= {};
  if (typeof document !== 'object' || Array.isArray(document))
    return fail('expected keys and values, e.g. "concurrency: 8" in YAML or {"concurrency": 8} in JSON');

  const options = optionsByKey(command);
  const seen = new Map<Option, string>();
  const record: ConfigFileRecord = { path: file, sha256: createHash('sha256').update(bytes).digest('hex'), set: [], overridden: [] };
  for (const [key, value] of Object.entries(document as Record<string, unknown>)) {
    const refused = REFUSED[kebab(key)];
    if (refused) return fail(`key "${key}": ${refused}`);
    const option = options.get(key);
    if (!option)
      return fail(`unknown key "${key}"; keys are the long names of voxbench ${command.name()}'s flags, e.g. max-sessions or maxSessions (see --help)`);
    const twice = seen.get(option);
    if (twice !== undefined) return fail(`keys "${twice}" and "${key}" set the same flag; keep one`);
    seen.set(option, key);
    let parsed: unknown;
    try {
      parsed = valueOf(option, value); // checked even where a flag wins: the file is wrong either way
    } catch (err) {
      if (!(err instanceof InvalidArgumentError || err instanceof UsageError)) throw err;
      return fail(`key "${key}": ${err.message}`);
    }
    const attribute = option.attributeName();
    const source = command.getOptionValueSource(attribute);
    if (source === 'cli' || source === 'env') record.overridden.push(key);
    else {
      command.setOptionValueWithSource(attribute, parsed, 'config');
      record.set.push(key);
    }
  }
  return record;
}

/** Every long flag of the command by both spellings a file may use. */
function optionsByKey(command: CommandUnknownOpts): Map<string, Option> {
  const byKey = new Map<string, Option>();
  for (const option of command.options) {
    const name = option.long?.replace(/^--/, '');
    if (name === undefined) continue;
    byKey.set(name, option);
    byKey.set(
      name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
      option,
    );
  }
  return byKey;
}

const kebab = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A file's value as the flag would have given it, parsed and checked by the flag's own parser. */
function valueOf(option: Option, value: unknown): unknown {
  const switchOnly = !option.required && !option.optional;
  if (switchOnly) {
    if (typeof value !== 'boolean') throw new UsageError(`${option.long} is a switch: write true or false`);
    return option.negate ? !value : value;
  }
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  if (Array.isArray(value) && !option.variadic && !option.parseArg) throw new UsageError(`${option.long} takes one value, not a list`);
  const texts = items.map((item) => {
    if (typeof item === 'string' || (typeof item === 'number' && Number.isFinite(item))) return String(item);
    throw new UsageError(
      `${option.long} takes ${option.variadic ? 'text or a list of texts' : 'text or a number'}, got ${JSON.stringify(item) ?? typeof item}`,
    );
  });
  if (!option.variadic) return option.parseArg ? option.parseArg(texts.join(','), undefined) : texts[0];
  // As commander does for a flag given several times: each value parsed onto the ones before.
  return texts.reduce<unknown>(
    (previous, text) => (option.parseArg ? option.parseArg(text, previous) : [...((previous as string[] | undefined) ?? []), text]),
    undefined,
  );
}
