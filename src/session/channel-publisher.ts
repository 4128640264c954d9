import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { ChannelRequest, HttpAudioChannel } from '../dialects/dialect.js';
import type { ChannelRecord, Failure, PublishedSegment } from '../timeline/types.js';
import { plural } from '../util/plural.js';
import { classifySocketError } from './runner.js';

/** The TLS settings a channel's https:// requests take from the run (`--ca`, `--insecure`). */
export type ChannelTls = Pick<RequestOptions, 'ca' | 'rejectUnauthorized'> | undefined;

/** What the publisher needs of its session: the clock, the stamps it records, and the ending. */
export interface PublishingSession {
  now(): number;
  /** Records audio written at `t` (bytes of the stream's `span`), counted as a frame sent. */
  recordAudio(t: number, bytes: number, span: { startMs: number; endMs: number }, plannedMs: number | null): void;
  /** Records the end of input sent at `t`. */
  recordInputEnd(t: number): void;
  fail(failure: Omit<Failure, 'stage'>): void;
  /** Whether the session's outcome is decided. */
  ended(): boolean;
  /** Text deltas received since `t`: the server reads the audio even where it acknowledges none. */
  deltasSince(t: number): number;
}

export interface PublisherOptions {
  /** PCM16 mono rate of the audio, which sizes a segment in bytes. */
  sampleRate: number;
  /** How long a segment may go unacknowledged before it counts as lost, ms. */
  ackTimeoutMs: number;
  /** TLS options for https:// channels. */
  tls: ChannelTls;
}

/** How long the end request of a session that ended early may take; it is sent as the session ends, and nothing waits for it. */
const CLOSE_MS = 5_000;

/** A frame waiting for the last segment's acknowledgement. */
interface Held {
  piece: Buffer;
  span: { startMs: number; endMs: number };
  plannedMs: number | null;
  written: (() => void) | undefined;
}

/** Sends one channel request; its answer's status, headers and body, or the error that cut it. */
export function channelRequest(
  req: ChannelRequest,
  tls: ChannelTls,
  body?: Buffer,
): { request: ClientRequest; answer: Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> } {
  const url = new URL(req.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const request = send(url, {
    method: req.method,
    headers: req.headers,
    ...(url.protocol === 'https:' && tls ? { ca: tls.ca, rejectUnauthorized: tls.rejectUnauthorized } : {}),
  });
  const answer = new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
    request.on('error', reject);
    request.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
  });
  if (body !== undefined) request.end(body);
  return { request, answer };
}

/**
 * Publishes a session's audio over its channel, one segment at a time: each frame is
 * written into the body of the segment being published and stamped right after the
 * write; a segment ends with the frame that reaches its length, and the next one starts
 * only once the server acknowledges the audio through its end (`progress`), so at most one
 * segment is in flight. Frames sent before that are held and written when it comes. A
 * segment the server refuses as gone, or leaves unacknowledged for `ackTimeoutMs`, is
 * lost: the session fails with `audio_lost`. The end of input is the channel's end
 * request, sent once the last segment is acknowledged (ending the channel sooner drops
 * what is unread). A server that acknowledges nothing at all is named for it
 * (`no_backpressure`), never said to have lost the audio it read. A session that ends
 * before its end of input still ends its channel, so that the app stops reading it and
 * the next session does not inherit it.
 */
export class ChannelPublisher {
  private current: { request: ClientRequest; record: PublishedSegment } | undefined;
  /** The ended segment awaiting its acknowledgement, and the timer that declares it lost. */
  private unacked: { record: PublishedSegment; timer: NodeJS.Timeout } | undefined;
  private readonly held: Held[] = [];
  private readonly requests = new Set<ClientRequest>();
  private readonly segmentBytes: number;
  private ackedMs = 0;
  private ending = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly session: PublishingSession,
    private readonly channel: HttpAudioChannel,
    private readonly record: ChannelRecord,
    private readonly publishUrl: string,
    private readonly options: PublisherOptions,
  ) {
    this.segmentBytes = Math.round((channel.segmentMs / 1000) * options.sampleRate) * 2;
  }

  /** Writes one frame of audio, or holds it until the last segment is acknowledged; `written` once it is on its way. */
  write(piece: Buffer, span: { startMs: number; endMs: number }, plannedMs: number | null, written?: () => void): void {
    if (this.unacked || this.held.length > 0) {
      this.held.push({ piece, span, plannedMs, written });
      return;
    }
    this.writeNow(piece, span, plannedMs, written);
  }

  /** The server acknowledged consuming the audio through `ackedMs` of the stream. */
  acknowledged(ackedMs: number, t: number): void {
    this.ackedMs = Math.max(this.ackedMs, ackedMs);
    const waiting = this.unacked;
    if (!waiting || this.ackedMs < waiting.record.audioEndMs) return;
    clearTimeout(waiting.timer);
    waiting.record.ackMs = t;
    this.unacked = undefined;
    while (this.held.length > 0 && !this.unacked && !this.session.ended()) {
      const { piece, span, plannedMs, written } = this.held.shift()!;
      this.writeNow(piece, span, plannedMs, written);
    }
    if (this.ending) this.end();
  }

  /** Whether the end request has gone: every segment published and acknowledged. */
  get ended(): boolean {
    return this.record.endMs !== undefined;
  }

  /**
   * Ends the input: the segment in progress is closed, and once every segment is
   * acknowledged the channel's end request goes (an acknowledgement resumes it).
   */
  end(): void {
    this.ending = true;
    if (this.held.length > 0 || this.unacked || this.session.ended()) return;
    if (this.current) return this.closeSegment(); // its acknowledgement, maybe already here, comes back to end()
    this.ending = false;
    const { request, answer } = channelRequest(this.channel.end(this.publishUrl), this.options.tls);
    this.track(request);
    request.end();
    const t = this.session.now();
    this.record.endMs = t;
    this.session.recordInputEnd(t);
    // The end's answer changes nothing: the final transcript on the socket is what the session waits for.
    answer.catch(() => {});
  }

  /**
   * The session is over: no more requests, no timers; a channel whose end request never
   * went is ended now. Resolves once the server has answered that (at most CLOSE_MS), so
   * the next session opens after it.
   */
  close(): Promise<void> {
    return (this.closing ??= this.closeNow());
  }

  private async closeNow(): Promise<void> {
    if (this.unacked) clearTimeout(this.unacked.timer);
    for (const request of this.requests) request.destroy();
    if (this.ended) return;
    const { request, answer } = channelRequest(this.channel.end(this.publishUrl), this.options.tls);
    request.setTimeout(CLOSE_MS, () => request.destroy());
    request.end();
    this.record.closedMs = this.session.now();
    await answer.catch(() => {});
  }

  private writeNow(piece: Buffer, span: { startMs: number; endMs: number }, plannedMs: number | null, written?: () => void): void {
    const segment = (this.current ??= this.openSegment());
    segment.request.write(piece, written);
    const t = this.session.now();
    segment.record.bytes += piece.length;
    segment.record.audioEndMs = span.endMs;
    this.session.recordAudio(t, piece.length, span, plannedMs);
    if (segment.record.bytes >= this.segmentBytes) this.closeSegment();
  }

  private openSegment(): { request: ClientRequest; record: PublishedSegment } {
    const record: PublishedSegment = { startMs: this.session.now(), bytes: 0, audioEndMs: 0 };
    this.record.segments.push(record);
    const url = this.publishUrl;
    const { request, answer } = channelRequest(this.channel.segment(url), this.options.tls);
    this.track(request);
    answer.then(
      ({ status, headers }) => this.answered(record, status, headers),
      (err: NodeJS.ErrnoException) => {
        if (!this.session.ended()) this.session.fail(classifySocketError(err, 'streaming', url, 'http'));
      },
    );
    return { request, record };
  }

  /** The segment's body is complete: it awaits its acknowledgement, lost if none comes in time. */
  private closeSegment(): void {
    const { request, record } = this.current!;
    this.current = undefined;
    request.end();
    record.endMs = this.session.now();
    const timer = setTimeout(() => this.unacknowledged(record), this.options.ackTimeoutMs);
    this.unacked = { record, timer };
    // An acknowledgement may have come before the body's end was written (a server that reads ahead).
    this.acknowledged(this.ackedMs, record.endMs);
  }

  private answered(record: PublishedSegment, status: number, headers: Readonly<Record<string, string | string[] | undefined>>): void {
    record.status = status;
    const answer = this.channel.segmentAnswer(status, headers);
    if ('seq' in answer && answer.seq !== undefined) record.seq = answer.seq;
    if ('lost' in answer) this.lose(record, answer.lost);
    else if ('refused' in answer && !this.session.ended()) this.session.fail({ class: 'http_status', httpStatus: status, message: answer.refused });
  }

  /** No acknowledgement came for `record` in time: lost, unless the server never acknowledged anything. */
  private unacknowledged(record: PublishedSegment): void {
    const segments = this.record.segments;
    const within = `within ${this.options.ackTimeoutMs} ms of`;
    if (this.ackedMs > 0 || segments.some((s) => s.ackMs !== undefined)) return this.lose(record, `never acknowledged ${within} its end`);
    if (this.session.ended()) return;
    const deltas = this.session.deltasSince(segments[0]!.startMs);
    const published = Math.round(segments.reduce((ms, s) => Math.max(ms, s.audioEndMs), 0));
    this.session.fail({
      class: 'no_backpressure',
      message: `the server acknowledged no audio (no progress event ${within} segment ${segments.indexOf(record) + 1}'s end${deltas > 0 ? `, though it sent ${plural(deltas, 'transcript delta')}, so it reads the audio` : ''}): the client publishes a segment only once the last is acknowledged, so it stopped after ${published} ms of audio`,
    });
  }

  private lose(record: PublishedSegment, why: string): void {
    record.lost ??= why;
    if (this.session.ended()) return;
    const segments = this.record.segments;
    const acknowledged = segments.filter((s) => s.ackMs !== undefined).length;
    this.session.fail({
      class: 'audio_lost',
      message: `audio segment ${segments.indexOf(record) + 1}${record.seq !== undefined ? ` (seq ${record.seq})` : ''} was lost: ${why}; of ${segments.length} published, ${acknowledged} acknowledged`,
    });
  }

  private track(request: ClientRequest): void {
    this.requests.add(request);
    request.once('close', () => this.requests.delete(request));
  }
}
