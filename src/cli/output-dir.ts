import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { SESSION_LOG } from '../report/session-log.js';
import { UsageError } from '../util/errors.js';

/**
 * Checks, before any work, that a command can create and write the folder it writes
 * into: one it cannot (a path through a file, a read-only mount) is bad input, said in
 * one line, not an internal error once the benchmark has run. Nothing is created.
 */
export async function checkWritableDir(dir: string, flag: string): Promise<void> {
  const why = await unwritable(resolve(dir));
  if (why) throw new UsageError(`cannot write to ${dir} (${why}); give a folder that can be created and written with ${flag}`);
}

/**
 * Refuses, before any work, a folder that holds another run (its report.json or session
 * log), which a new run would overwrite: the user keeps it (`--resume` it, or give a new
 * folder) or says to replace it (`--overwrite`).
 */
export async function checkFreshDir(dir: string): Promise<void> {
  for (const file of ['report.json', SESSION_LOG]) {
    if (await exists(join(dir, file)))
      throw new UsageError(
        `${dir} holds a run (${file}); continue it with --resume ${dir}, give a new folder with --output-dir, or replace it with --overwrite`,
      );
  }
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Why `path` cannot become a writable folder: it, or else the nearest folder above it that exists, must be a writable folder. */
async function unwritable(path: string): Promise<string | undefined> {
  try {
    if (!(await stat(path)).isDirectory()) return 'ENOTDIR';
    await access(path, constants.W_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    return code === 'ENOENT' && dirname(path) !== path ? unwritable(dirname(path)) : code;
  }
}

/**
 * A run's default folder: the start to the millisecond and a random suffix, so runs
 * started in the same second (or millisecond, on two hosts sharing a disk) never share one.
 */
export function defaultOutputDir(now = new Date()): string {
  return `voxbench-runs/${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
}
