/**
 * Preloaded into a measured child process (`node --import`): as the process exits,
 * writes its peak resident set size and CPU time to stderr as a last line
 * `usage maxrss-kib N cpu-ms M`, for the parent to read (CPU time of every thread). Portable, unlike /proc or
 * /usr/bin/time.
 */
import { writeSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

// A worker thread the child starts loads this too: only the process's own exit is its end.
if (isMainThread) {
  process.on('exit', () => {
    const { maxRSS, userCPUTime, systemCPUTime } = process.resourceUsage();
    writeSync(2, `\nusage maxrss-kib ${maxRSS} cpu-ms ${Math.round((userCPUTime + systemCPUTime) / 1000)}\n`);
  });
}
