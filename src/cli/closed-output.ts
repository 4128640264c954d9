/** Write errors that mean the reader went away: a closed pipe (`voxbench run | head -2`), a terminal that hung up. */
const READER_GONE = new Set(['EPIPE', 'EIO']);

/**
 * Console output is a view of the run, not its result: a reader that goes away must
 * not kill a run (Node reports a closed pipe as an error event, which would end the
 * process with exit code 1 and leave the report unfinished). The rest of the output is
 * dropped and the run finishes its report. Other write errors still end the process.
 */
export function outliveClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (!READER_GONE.has(err.code ?? '')) throw err;
    });
  }
}
