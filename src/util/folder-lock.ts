import { unlinkSync } from 'node:fs';
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from './errors.js';

export const LOCK_FILE = '.voxbench.lock';

/**
 * Takes `dir` for one run: a lock file created exclusively, holding the pid, so two
 * runs never write one session log or report. A lock left by a process that is gone
 * (a killed run) is taken over; one held by a live process is refused. Returns its release.
 * A process that exits holding it (a second Ctrl-C, an uncaught error) removes it as it goes.
 */
export async function lockFolder(dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  for (let tries = 0; ; tries++) {
    try {
      const file = await open(path, 'wx');
      await file.writeFile(`${process.pid}\n`);
      await file.close();
      const onExit = (): void => {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      };
      process.once('exit', onExit);
      return () => {
        process.off('exit', onExit);
        return unlink(path).catch(() => undefined);
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    // No pid yet: its run is writing it. A second try that finds a lock lost a race to another run taking over.
    if (tries > 0 || Number.isNaN(pid) || alive(pid))
      throw new UsageError(
        `${dir} is in use by another voxbench run${Number.isNaN(pid) ? '' : ` (pid ${pid})`}; give another output folder, or remove ${path} if no run uses it`,
      );
    await unlink(path).catch(() => undefined);
  }
}

/** Whether a process with this id exists (EPERM: it does, as another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
