import { DatasetError } from '../errors.js';
import type { CardConfig, HubFile } from './api.js';

/** A Parquet file of a Hub dataset with the config and split it belongs to. */
export interface PlacedFile extends HubFile {
  config: string;
  split: string;
}

/**
 * The config and split of each Parquet file: as the dataset card's `configs` name them
 * (`data_files` globs per split), else as the paths say: the Hub's Parquet conversion
 * writes `{config}/{split}/0000.parquet` (`partial-{split}` for a partial one),
 * `push_to_hub` writes `data/{split}-00000-of-00001.parquet` for the default config and
 * `{config}/{split}-00000-of-00001.parquet` for the others.
 */
export function placeFiles(files: HubFile[], configs: CardConfig[]): PlacedFile[] {
  const carded = configs.filter((c) => c.data_files !== undefined);
  if (carded.length > 0) {
    return carded.flatMap((config) =>
      splitsOf(config).flatMap(({ split, patterns }) =>
        files.filter((f) => patterns.some((p) => globMatches(p, f.path))).map((f) => ({ ...f, config: config.config_name, split })),
      ),
    );
  }
  return files.map((f) => ({ ...f, ...placeByPath(f.path) }));
}

/** The config the card marks default, if any. */
export function defaultConfig(configs: CardConfig[]): string | undefined {
  return configs.find((c) => c.default)?.config_name;
}

function splitsOf(config: CardConfig): Array<{ split: string; patterns: string[] }> {
  const files = config.data_files!;
  if (typeof files === 'string' || (Array.isArray(files) && files.every((f) => typeof f === 'string'))) {
    return [{ split: 'train', patterns: [files].flat() }];
  }
  return (files as Array<{ split: string; path: string | string[] }>).map(({ split, path }) => ({ split, patterns: [path].flat() }));
}

/** A `data_files` pattern: `*` and `?` within a folder, `**` across folders. */
const GLOB: Record<string, string> = { '**/': '(?:.*/)?', '**': '.*', '*': '[^/]*', '?': '[^/]' };

function globMatches(pattern: string, path: string): boolean {
  const source = pattern
    .split(/(\*\*\/|\*\*|\*|\?)/)
    .map((part) => GLOB[part] ?? part.replace(/[.+^${}()|[\]\\]/g, '\\$&'))
    .join('');
  return new RegExp(`^${source}$`).test(path);
}

function placeByPath(path: string): { config: string; split: string } {
  const parts = path.split('/');
  const name = parts.pop()!;
  const fromName = /^(.+?)-\d{5}-of-\d{5}/.exec(name)?.[1] ?? name.replace(/\.parquet$/, '');
  const [first, second] = parts;
  return { config: first === undefined || first === 'data' ? 'default' : first, split: (second ?? fromName).replace(/^partial-/, '') };
}

/**
 * The files of one config and split: the config asked for (else the only one, or the
 * card's default), the split asked for (else the only one). A name that is not there,
 * or a choice left open, is a one-line error listing what there is.
 */
export function chooseFiles(
  label: string,
  placed: PlacedFile[],
  wanted: { config?: string; split?: string },
  cardDefault?: string,
): { config: string; split: string; files: PlacedFile[] } {
  const configs = [...new Set(placed.map((f) => f.config))].sort();
  if (configs.length === 0) throw new DatasetError(`${label}: no Parquet files`);
  let config = wanted.config;
  if (config === undefined) {
    config = configs.length === 1 ? configs[0]! : [cardDefault, 'default'].find((c) => c !== undefined && configs.includes(c));
    if (config === undefined) throw new DatasetError(`${label} has configs ${configs.join(', ')}; choose one with --hf-config`);
  } else if (!configs.includes(config)) {
    throw new DatasetError(`${label}: no config "${config}"; it has ${configs.join(', ')}`);
  }
  const ofConfig = placed.filter((f) => f.config === config);
  const splits = [...new Set(ofConfig.map((f) => f.split))].sort();
  const split = wanted.split ?? (splits.length === 1 ? splits[0]! : undefined);
  if (split === undefined) throw new DatasetError(`${label} (config ${config}) has splits ${splits.join(', ')}; choose one with --split`);
  if (!splits.includes(split)) throw new DatasetError(`${label} (config ${config}): no split "${split}"; it has ${splits.join(', ')}`);
  const files = new Map(ofConfig.filter((f) => f.split === split).map((f) => [f.path, f]));
  return { config, split, files: [...files.values()].sort((a, b) => (a.path < b.path ? -1 : 1)) };
}
