/**
 * Whether a successful answer to a speech request is audio at all. A proxy's error page,
 * a JSON error object or plain text sent with status 200 would otherwise be counted as
 * audio and become figures (first audio, real-time factor). Told by the content type,
 * and by the first bytes, which no audio format opens with (a WAV body that is not WAV
 * is caught where its header is read); server-sent events are text by nature and are
 * left to their parser.
 */

/** How many first bytes are looked at, and shown in a failure. */
const HEAD_BYTES = 32;

/** Text media types: text/* (but event streams), JSON, XML and their `+json`/`+xml` kin. */
function isTextType(type: string): boolean {
  return (type.startsWith('text/') && type !== 'text/event-stream') || /^application\/(json|xml|[\w.-]+\+(json|xml))$/.test(type);
}

/**
 * Markup or JSON: printable ASCII all through, opening with `<`, `{` or `[`. No audio
 * file opens so, and sixteen PCM16 samples that loud and that regular do not occur at
 * the start of speech.
 */
function looksLikeText(head: Buffer): boolean {
  return /^\s*[<{[][\x20-\x7e\t\r\n]*$/.test(head.toString('latin1'));
}

/** The first bytes of a body as one line of printable ASCII (anything else a dot), quoted. */
export function firstBytesText(head: Buffer): string {
  return JSON.stringify(
    head
      .subarray(0, HEAD_BYTES)
      .toString('latin1')
      .replace(/[^\x20-\x7e]/g, '.'),
  );
}

/**
 * Looks at a speech answer's first bytes as they arrive. `see` takes each chunk of the
 * body (`ended` once it is complete) and returns why the answer is not audio once that
 * is known, else undefined; it decides by the first HEAD_BYTES bytes, so the chunks
 * before that are decoded as they come and their arrival times stay true.
 */
export class AnswerKind {
  private head = Buffer.alloc(0);
  private decided = false;
  private readonly type: string;

  constructor(
    private readonly status: number,
    private readonly contentType: string,
    /** The `response_format` asked for: pcm, wav, mp3, flac, opus, ... */
    private readonly asked: string,
  ) {
    this.type = contentType.split(';')[0]!.trim().toLowerCase();
    this.decided = this.type === 'text/event-stream';
  }

  see(chunk: Buffer, ended = false): string | undefined {
    if (this.decided) return undefined;
    if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
    const text = isTextType(this.type);
    if (!text && this.head.length < HEAD_BYTES && !ended) return undefined;
    this.decided = true;
    if (!text && !looksLikeText(this.head)) return undefined;
    const came =
      this.contentType.trim() === ''
        ? 'no content type'
        : `content type ${JSON.stringify(
            this.contentType
              .trim()
              .slice(0, 80)
              .replace(/[^\x20-\x7e]/g, '.'),
          )}`;
    const body = this.head.length === 0 ? 'an empty body' : `a body starting ${firstBytesText(this.head)}`;
    return `the server answered ${this.status} with ${came} and ${body}, not ${this.asked} audio`;
  }
}
