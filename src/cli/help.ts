import { Help, type CommandUnknownOpts, type Option } from '@commander-js/extra-typings';

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

/** Flag terms wider than this take a line of their own, so descriptions keep room to wrap within 80 columns. */
const TERM_COLUMN = 30;

/** The column descriptions start at: the widest term, up to TERM_COLUMN. */
export function padWidth(command: CommandUnknownOpts, helper: Help): number {
  return Math.min(TERM_COLUMN, Help.prototype.padWidth.call(helper, command, helper));
}

/** An item as commander lays it out, but a term too wide for its column stands alone above its description. */
export function formatItem(term: string, termWidth: number, description: string, helper: Help): string {
  if (helper.displayWidth(term) <= termWidth || description === '') return Help.prototype.formatItem.call(helper, term, termWidth, description, helper);
  return `  ${term}\n${Help.prototype.formatItem.call(helper, '', termWidth, description, helper)}`;
}

/**
 * Puts a command's options under headings, in the order given, each heading's flags in
 * the order listed; a flag listed under none is shown last under "Other" (a test keeps
 * that list empty).
 */
export function groupOptions(command: CommandUnknownOpts, groups: ReadonlyArray<readonly [heading: string, flags: readonly string[]]>): void {
  const rank = new Map(groups.flatMap(([heading, flags], g) => flags.map((flag, f) => [flag, { heading, order: g * 1000 + f }] as const)));
  const placed = (option: Option): { heading: string; order: number } => rank.get(option.long ?? option.flags) ?? { heading: 'Other', order: Infinity };
  for (const option of command.options) option.helpGroup(`${placed(option).heading}:`);
  (command.options as Option[]).sort((a, b) => placed(a).order - placed(b).order);
}

/** Text for after a command's options, wrapped to 80 columns: paragraphs, and items whose descriptions hang beside their terms. */
export function helpText(...blocks: Array<string | ReadonlyArray<readonly [term: string, description: string]>>): string {
  const help = new Help();
  const width = 80;
  return blocks
    .map((block) => {
      if (typeof block === 'string') return help.boxWrap(block, width);
      const termWidth = Math.max(...block.map(([term]) => term.length));
      return block
        .map(
          ([term, description]) =>
            `  ${term.padEnd(termWidth)}  ${help.boxWrap(description, width - termWidth - 4).replace(/\n/g, `\n${' '.repeat(termWidth + 4)}`)}`,
        )
        .join('\n');
    })
    .join('\n');
}
