import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';

/** Pieces are joined up to about this many characters per write: few system calls, little held at once. */
const WRITE_CHARS = 1 << 16;

/**
 * Writes text given in pieces to `path`, in order. Strings go to the file handle as
 * they are: converting each to a Buffer, as streams and `writeFile` do, makes memory
 * outside the JS heap that V8 counts, and a gigabyte of it sets off one full
 * collection of the whole heap after another (a 100,000-session report.json took
 * twice as long).
 */
export async function writeText(path: string, pieces: Iterable<string>): Promise<void> {
  // Written beside the target, then renamed over it: a reader (or a crash) never meets half a file.
  const temporary = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeAll(temporary, pieces);
    await rename(temporary, path);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

async function writeAll(path: string, pieces: Iterable<string>): Promise<void> {
  const file = await open(path, 'wx');
  // One write in flight while the next batch is made, so the disk and the CPU work at once.
  let writing: Promise<unknown> = Promise.resolve();
  try {
    for (const text of joined(pieces)) {
      await writing;
      writing = file.write(text);
    }
    await writing;
  } finally {
    // If making a batch threw, the write in flight must end before the file closes.
    await writing.catch(() => undefined);
    await file.close();
  }
}

function* joined(pieces: Iterable<string>): Generator<string> {
  let batch: string[] = [];
  let chars = 0;
  for (const piece of pieces) {
    batch.push(piece);
    chars += piece.length;
    if (chars >= WRITE_CHARS) {
      yield batch.join('');
      batch = [];
      chars = 0;
    }
  }
  if (batch.length > 0) yield batch.join('');
}
