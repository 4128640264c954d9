import { Command } from '@commander-js/extra-typings';
import { defaultCacheDir, PreparedAudioCache } from '../audio/prepared-cache.js';
import { UsageError } from '../util/errors.js';
import { plural } from '../util/plural.js';

/** The cache of `--cache-dir`, else the default one. */
function cacheOf(dir: string | undefined): PreparedAudioCache {
  const folder = dir ?? defaultCacheDir();
  if (folder === undefined) throw new UsageError('there is no default cache folder here (VOXBENCH_AUDIO_CACHE is off); give --cache-dir');
  return new PreparedAudioCache(folder);
}

const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

/** A subcommand that does `act` to the cache of `--cache-dir` and prints its folder and what `act` counted, after `verb`. */
function cacheSubcommand(name: string, description: string, verb: string, act: (cache: PreparedAudioCache) => Promise<{ files: number; bytes: number }>) {
  return new Command(name)
    .description(description)
    .option('--cache-dir <dir>', 'the cache folder a run was given (default: $XDG_CACHE_HOME/voxbench/audio or ~/.cache/voxbench/audio)')
    .action(async (opts) => {
      const cache = cacheOf(opts.cacheDir);
      const { files, bytes } = await act(cache);
      process.stdout.write(`${cache.dir}: ${verb}${plural(files, 'file')}, ${megabytes(bytes)}\n`);
    });
}

const infoCommand = cacheSubcommand('info', 'Print where the prepared-audio cache is and how much it holds.', '', (cache) => cache.size());
const clearCommand = cacheSubcommand('clear', 'Remove every prepared-audio entry (only those: other files in the folder stay).', 'removed ', (cache) =>
  cache.clear(),
);

export const cacheCommand = new Command('cache')
  .description('The prepared-audio cache (decoded, resampled recordings kept between runs): its size, and clearing it.')
  .addCommand(infoCommand)
  .addCommand(clearCommand);
