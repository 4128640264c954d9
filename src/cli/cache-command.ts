import { Command } from '@commander-js/extra-typings';
import { defaultCacheDir, PreparedAudioCache } from '../audio/prepared-cache.js';
import { HubCache, hubCacheDir, type CachedCommit } from '../data/hub/cache.js';
import { UsageError } from '../util/errors.js';
import { plural } from '../util/plural.js';

/** The caches of `--cache-dir`, else the default ones: prepared audio, and Hub downloads beside it. */
function cachesOf(dir: string | undefined): { audio: PreparedAudioCache; hub: HubCache } {
  const folder = dir ?? defaultCacheDir();
  if (folder === undefined) throw new UsageError('there is no default cache folder here (VOXBENCH_AUDIO_CACHE is off); give --cache-dir');
  return { audio: new PreparedAudioCache(folder), hub: new HubCache(hubCacheDir(dir)!) };
}

const megabytes = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

/** One line per dataset commit: `hf:<id>@<commit>: 2 files whole, 1 in part, 3.4 MB`. */
const commitLines = (commits: CachedCommit[]): string =>
  commits.map((c) => `  hf:${c.id}@${c.sha}: ${plural(c.whole, 'file')} whole, ${c.partial} in part, ${megabytes(c.bytes)}\n`).join('');

/** A subcommand that does `act` to the caches of `--cache-dir` and prints each folder and what `act` counted, after `verb`. */
function cacheSubcommand(
  name: string,
  description: string,
  verb: string,
  act: (caches: { audio: PreparedAudioCache; hub: HubCache }) => Promise<{ audio: { files: number; bytes: number }; hub: CachedCommit[] }>,
) {
  return new Command(name)
    .description(description)
    .option('--cache-dir <dir>', 'the cache folder a run was given (default: $XDG_CACHE_HOME/voxbench/audio or ~/.cache/voxbench/audio, and hub beside it)')
    .action(async (opts) => {
      const caches = cachesOf(opts.cacheDir);
      const { audio, hub } = await act(caches);
      const hubBytes = hub.reduce((sum, c) => sum + c.bytes, 0);
      process.stdout.write(
        `${caches.audio.dir}: ${verb}${plural(audio.files, 'file')}, ${megabytes(audio.bytes)}\n` +
          `${caches.hub.dir}: ${verb}${plural(hub.length, 'Hub dataset commit')}, ${megabytes(hubBytes)}\n${commitLines(hub)}`,
      );
    });
}

const infoCommand = cacheSubcommand(
  'info',
  'Print where the prepared-audio cache and the Hub downloads are, how much each holds, and every Hub dataset commit held.',
  '',
  async (caches) => ({ audio: await caches.audio.size(), hub: await caches.hub.list() }),
);
const clearCommand = cacheSubcommand(
  'clear',
  'Remove every prepared-audio entry and every Hub download (only those: other files in the folder stay).',
  'removed ',
  async (caches) => ({ audio: await caches.audio.clear(), hub: await caches.hub.clear() }),
);

export const cacheCommand = new Command('cache')
  .description('The prepared-audio cache (decoded, resampled recordings kept between runs) and Hub downloads: their size, and clearing them.')
  .addCommand(infoCommand)
  .addCommand(clearCommand);
