import { UsageError } from '../util/errors.js';

export { UsageError };

/**
 * An option as a message names it: `text` as a library caller reads it (a path into
 * `RunOptions`, `maxSessions`, `quality.asrTarget`), and `key`, by which a front end
 * looks up its own name for it (the CLI: `--max-sessions`).
 */
export interface OptionName {
  readonly text: string;
  readonly key: string;
}

/** The option at `path`; `key` tells apart what one option stands for in several messages (a sweep's level, a capacity search's start by rate). */
export const option = (path: string, key: string = path): OptionName => ({ text: path, key });

const isOptionName = (value: unknown): value is OptionName => typeof value === 'object' && value !== null && 'text' in value && 'key' in value;

/**
 * Options that cannot run: the message names each option as `RunOptions` spells it
 * (`maxSessions must be a positive integer, got 0`); `describe` names them as a front end
 * does (the CLI: `--max-sessions must be a positive integer, got 0`).
 */
export class OptionsError extends UsageError {
  override name = 'OptionsError';
  /** The options the message names, as `RunOptions` paths, in order. */
  readonly options: readonly string[];

  constructor(private readonly parts: ReadonlyArray<string | OptionName>) {
    super(parts.map((part) => (typeof part === 'string' ? part : part.text)).join(''));
    this.options = parts.filter(isOptionName).map((part) => part.text);
  }

  /** The message with each option as `name` calls it (by its key), or as `RunOptions` does where `name` has none. */
  describe(name: (key: string) => string | undefined): string {
    return this.parts.map((part) => (typeof part === 'string' ? part : (name(part.key) ?? part.text))).join('');
  }
}

/** An `OptionsError` from a template whose `OptionName` values are the options it names: optionsError`${option('chunkMs')} must be ...`. */
export function optionsError(strings: TemplateStringsArray, ...values: unknown[]): OptionsError {
  const parts: Array<string | OptionName> = [];
  strings.forEach((text, i) => {
    parts.push(text);
    if (i < values.length) parts.push(isOptionName(values[i]) ? values[i] : String(values[i]));
  });
  return new OptionsError(parts.filter((part) => part !== ''));
}
