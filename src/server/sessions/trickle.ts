/** A Trickle server (go-livepeer `trickle/`) as far as a publisher and one in-process reader need it: Livepeer's realtime app publishes its audio to one. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Segments a channel holds, as go-livepeer's Trickle server does (`maxSegmentsPerStream`): older ones are gone. */
export const RETENTION = 5;
/** Trickle's status for a sequence number the channel does not hold. */
const GONE = 470;
/** Where the simulated server mounts its Trickle channels, as go-livepeer does (`/ai/trickle/`). */
export const TRICKLE_PREFIX = '/ai/trickle/';

/** One published segment: its bytes as they arrive, and whether its body has ended. */
export class Segment {
  readonly chunks: Buffer[] = [];
  ended = false;

  constructor(
    readonly seq: number,
    private readonly changed: () => void,
  ) {}

  write(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.changed();
  }

  end(): void {
    this.ended = true;
    this.changed();
  }
}

/**
 * A Trickle channel as its subscriber sees it: a ring of the last RETENTION segments, each
 * readable while it is written; a segment older than the ring is gone. Closing it (the
 * publisher's DELETE) drops every segment, read or not.
 */
export class TrickleChannel {
  /** The sequence number the next publish gets. */
  next = 0;
  closed = false;
  /** Called on every new segment, byte, segment end and close: the subscriber reads on. */
  onChange: () => void = () => {};
  private readonly ring = new Map<number, Segment>();

  /** A new segment for a publish to `seq` (-1: the next); undefined when `seq` is not the next one. */
  publish(seq: number): Segment | undefined {
    if (this.closed || (seq !== -1 && seq !== this.next)) return undefined;
    const segment = new Segment(this.next, () => this.onChange());
    this.ring.set(this.next, segment);
    this.ring.delete(this.next - RETENTION);
    this.next++;
    this.onChange();
    return segment;
  }

  /** Segment `seq`: held, `gone` (older than the ring, or dropped by the close), or undefined while not yet published. */
  segment(seq: number): Segment | 'gone' | undefined {
    const held = this.ring.get(seq);
    if (held) return held;
    return seq < this.next || this.closed ? 'gone' : undefined;
  }

  close(): void {
    this.closed = true;
    this.ring.clear();
    this.onChange();
  }
}

/**
 * Serves the Trickle publish routes of the channels `channels` names: `POST {prefix}{name}/{seq}`
 * streams a segment (answered with `Lp-Trickle-Seq` once its body ends; 470 with
 * `Lp-Trickle-Latest` for a sequence number other than the next), `DELETE {prefix}{name}`
 * closes the channel; an unknown channel is 404. Whether the request was a Trickle one.
 */
export function serveTrickle(req: IncomingMessage, res: ServerResponse, path: string, channels: ReadonlyMap<string, TrickleChannel>): boolean {
  if (!path.startsWith(TRICKLE_PREFIX)) return false;
  const [name = '', seqText, ...rest] = path.slice(TRICKLE_PREFIX.length).split('/');
  const channel = channels.get(name);
  if (!channel || channel.closed || rest.length > 0) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no such channel\n');
    return true;
  }
  if (req.method === 'DELETE' && seqText === undefined) {
    channel.close();
    res.writeHead(200).end();
    return true;
  }
  const seq = Number(seqText);
  if (req.method !== 'POST' || !Number.isInteger(seq) || seq < -1) {
    res.writeHead(405, { 'content-type': 'text/plain' }).end('POST {channel}/{seq} publishes a segment, DELETE {channel} closes the channel\n');
    return true;
  }
  const segment = channel.publish(seq);
  if (!segment) {
    res
      .writeHead(GONE, { 'lp-trickle-seq': String(seq), 'lp-trickle-latest': String(channel.next - 1), 'content-type': 'text/plain' })
      .end('no data at this index\n');
    return true;
  }
  req.on('data', (chunk: Buffer) => segment.write(chunk));
  req.on('end', () => {
    segment.end();
    res.writeHead(200, { 'lp-trickle-seq': String(segment.seq) }).end();
  });
  // A publisher that goes away mid-segment leaves it as far as it got.
  req.on('close', () => {
    if (!segment.ended) segment.end();
  });
  return true;
}
