/**
 * Download progress on a terminal: one line redrawn in place, at most four times a
 * second, cleared when the range is in. Nothing is written when the stream is not a
 * terminal, so logs and piped output stay clean.
 */
export class DownloadProgress {
  constructor(private readonly stream: NodeJS.WriteStream) {}

  /** A range of `total` bytes of `label` starts arriving. */
  start(label: string, total: number): { advance(bytes: number): void; end(): void } {
    const stream = this.stream;
    let got = 0;
    let drawnAt = 0;
    const draw = (): void => {
      stream.write(`\r\x1b[K${label}: ${megabytes(got)} of ${megabytes(total)} MB`);
    };
    return {
      advance(bytes) {
        got += bytes;
        if (Date.now() - drawnAt < DRAW_MS) return;
        drawnAt = Date.now();
        draw();
      },
      end() {
        if (drawnAt > 0) stream.write('\r\x1b[K');
      },
    };
  }
}

const DRAW_MS = 250;

const megabytes = (bytes: number): string => (bytes / 1e6).toFixed(1);

/** Progress on stderr when it is a terminal, unless turned off. */
export function terminalProgress(wanted: boolean | undefined, quiet: boolean): DownloadProgress | undefined {
  return (wanted ?? process.stderr.isTTY === true) && !quiet ? new DownloadProgress(process.stderr) : undefined;
}
