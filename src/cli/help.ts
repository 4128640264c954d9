import type { Help, Option } from '@commander-js/extra-typings';

/**
 * An option's help line with its choices and default as the README writes them
 * (`1`, `json`, `1,2`), where commander would print JSON (`[1]`, `["json"]`), and
 * required options marked.
 */
export function optionDescription(option: Option, _help?: Help): string {
  const extra: string[] = [];
  if (option.mandatory) extra.push('required');
  if (option.argChoices) extra.push(`choices: ${option.argChoices.join(', ')}`);
  // Booleans default to off, which needs no word; a value that is not a boolean does.
  const shown = option.defaultValue !== undefined && (option.required || option.optional || (option.isBoolean() && typeof option.defaultValue === 'boolean'));
  if (shown) extra.push(`default: ${option.defaultValueDescription ?? plain(option.defaultValue)}`);
  if (option.envVar !== undefined) extra.push(`env: ${option.envVar}`);
  return extra.length === 0 ? option.description : `${option.description} (${extra.join('; ')})`;
}

function plain(value: unknown): string {
  return Array.isArray(value) ? value.map(plain).join(',') : String(value);
}
