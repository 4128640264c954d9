import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type WebSocket from 'ws';
import { StreamRecognizer } from '../../server/models/recognizer.js';
import { EmissionQueue } from '../../server/sessions/emission-queue.js';
import type { SessionContext } from '../../server/sessions/session-context.js';
import { SessionFaults } from '../../server/faults/session-faults.js';
import { faultOf } from '../../server/faults/faults.js';
import type { RequestContext, SimulatedDialect } from '../../server/simulated-dialect.js';
import { keyAccepted } from '../spec.js';
import { LIVEPEER, SAMPLE_RATE, TRANSCRIBE_PATH } from './spec.js';
import { serveTrickle, TRICKLE_PREFIX, TrickleChannel } from '../../server/sessions/trickle.js';

/** A session `/transcribe` opened that no WebSocket took within this long is dropped, channel and all. */
const UNCLAIMED_MS = 60_000;
const BYTES_PER_SECOND = SAMPLE_RATE * 2;

/** Sessions opened by `/transcribe` and not yet joined by their WebSocket, by id; and every open channel, by name. */
const unclaimed = new Map<string, TrickleChannel>();
const channels = new Map<string, TrickleChannel>();
/** The last session `/transcribe` opened: `shared-session` hands it out again while its channel is open. */
let last: { session: string; channel: TrickleChannel; body: object } | undefined;

/**
 * The app's HTTP side: `POST /transcribe` opens a session (a Trickle channel of its own and
 * the WebSocket path that joins it), and the Trickle server takes the channel's segments.
 * Unlike the example app, which holds one session at a time, it serves any number at once:
 * the WebSocket path it answers names the session (`/ws?session=…`).
 */
function serveApp(req: IncomingMessage, res: ServerResponse, ctx: RequestContext): boolean {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path !== TRANSCRIBE_PATH) return serveTrickle(req, res, path, channels);
  if (req.method !== 'POST') {
    res.writeHead(405, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `POST ${TRANSCRIBE_PATH} opens a session` }));
    return true;
  }
  if (ctx.apiKey !== undefined && !keyAccepted(LIVEPEER, { headers: req.headers }, ctx.apiKey)) {
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Unauthorized' }));
    return true;
  }
  const shared = faultOf(ctx.pickFaults(), 'shared-session') !== undefined;
  req.resume();
  req.on('end', () => {
    if (shared && last && !last.channel.closed) {
      unclaimed.set(last.session, last.channel); // a second WebSocket joins it: one channel, two readers
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(last.body));
      return;
    }
    const session = randomBytes(8).toString('hex');
    const name = `transcribe-${session}`;
    const channel = new TrickleChannel();
    channels.set(name, channel);
    unclaimed.set(session, channel);
    setTimeout(() => {
      if (unclaimed.delete(session)) channels.delete(name);
    }, UNCLAIMED_MS).unref();
    const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
    const body = { session, in: `${scheme}://${req.headers.host ?? 'localhost'}${TRICKLE_PREFIX}${name}`, ws: `${LIVEPEER.path}?session=${session}` };
    last = { session, channel, body };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  return true;
}

/**
 * One session of the app, from its WebSocket: it reads the session's Trickle channel
 * segment by segment as the segments are written, hears the audio with the server's
 * recognizer, acknowledges each segment read (`progress`), streams the words as `delta`s
 * after the latency model's delay and, once the publisher closes the channel, the rest,
 * `done`, its `stats`, and closes the socket. A segment older than the channel's ring when
 * its turn comes is gone: the reader jumps to the latest, as the Trickle subscriber does,
 * and nothing tells the client (`drop-segment` loses one so, on purpose).
 */
class LivepeerSession {
  private readonly recognizer: StreamRecognizer;
  private readonly emissions = new EmissionQueue();
  private readonly faults: SessionFaults;
  private readonly startedAt = performance.now();
  /** The segment being read, and how many of its chunks have been. */
  private seq = 0;
  private chunksRead = 0;
  private dropSeq: number | undefined;
  private finalizing = false;
  private bytes = 0;
  private transcript = '';
  private firstAudioAt: number | undefined;
  private lastAudioAt: number | undefined;
  private firstWordAt: number | undefined;
  private readonly counts = { deltas: 0, words: 0, eventsSent: 0, bytesSent: 0, commands: 0, segments: 0, resets: 0 };

  constructor(
    private readonly ws: WebSocket,
    private readonly ctx: SessionContext,
    private readonly channel: TrickleChannel,
    private readonly dispose: () => void,
  ) {
    this.recognizer = new StreamRecognizer(ctx.references, SAMPLE_RATE);
    const drop = faultOf(ctx.faults, 'drop-segment');
    if (drop) this.dropSeq = drop.segment - 1;
    this.faults = new SessionFaults(ctx.faults, ws, ctx.socket, {
      errorFrame: (code, message) => JSON.stringify({ type: 'error', message, code }),
      deltaFrame: () => ['{"type":"delta","delta":"', '"}'],
      noiseFrame: () => '{"type":"delta","delta":""}',
    });
    ws.on('close', () => {
      this.emissions.clear();
      this.channel.onChange = () => {};
      this.dispose();
    });
    if (this.faults.reach('open')) return;
    ws.on('message', () => this.counts.commands++);
    channel.onChange = this.pull;
    this.pull();
  }

  /** Reads on through the channel as far as it has been written. */
  private readonly pull = (): void => {
    while (!this.faults.gone && !this.finalizing) {
      const segment = this.channel.segment(this.seq);
      if (segment === undefined) return;
      if (segment === 'gone') {
        if (this.channel.closed) return this.finalize();
        this.counts.resets++;
        this.seq = this.channel.next - 1;
        this.chunksRead = 0;
        continue;
      }
      if (segment.seq === this.dropSeq) {
        this.dropSeq = undefined;
        this.seq++;
        continue;
      }
      while (this.chunksRead < segment.chunks.length && !this.faults.gone) this.consume(segment.chunks[this.chunksRead++]!);
      if (!segment.ended) return;
      this.counts.segments++;
      if (!this.faults.has('no-progress')) this.send({ type: 'progress', audio_bytes: this.bytes });
      this.seq++;
      this.chunksRead = 0;
    }
  };

  private consume(pcm: Buffer): void {
    const now = performance.now();
    this.firstAudioAt ??= now;
    if (this.faults.reach('streaming')) return;
    this.bytes += pcm.length;
    this.lastAudioAt = now;
    for (const word of this.faults.words(this.recognizer.feed(pcm))) this.schedule(word.text);
  }

  /** The publisher closed the channel: the rest of the words, then `done`, `stats`, and the socket's close. */
  private finalize(): void {
    this.finalizing = true;
    if (this.faults.reach('final')) return;
    for (const word of this.faults.words(this.recognizer.flush())) this.schedule(word.text);
    if (this.faults.has('never-finalize')) return;
    this.emissions.push(performance.now() + this.ctx.latency.finalize(this.ctx.openSessions()), () => {
      const doneAt = performance.now();
      this.sendDone();
      if (this.faults.has('duplicate-final')) this.sendDone();
      this.send({ type: 'stats', ...this.stats(doneAt) });
      if (!this.faults.gone) this.ws.close(1000);
    });
  }

  private schedule(word: string): void {
    this.emissions.push(performance.now() + this.ctx.latency.delay(this.ctx.openSessions()), () => {
      const delta = ` ${word}`;
      this.transcript += delta;
      this.counts.deltas++;
      this.counts.words++;
      this.firstWordAt ??= performance.now();
      this.send({ type: 'delta', delta, transcript: this.transcript.trim(), word_count: this.counts.words, sentiment: 'neu' });
    });
  }

  private sendDone(): void {
    this.send({ type: 'done', delta: '', transcript: this.transcript.trim(), word_count: this.counts.words, sentiment: 'neu' });
  }

  /** The app's closing figures, on its own clock, shaped as stats.py's (seconds, rounded to the millisecond). */
  private stats(doneAt: number): object {
    const s = (ms: number | undefined): number | null => (ms === undefined ? null : Math.round(ms) / 1000);
    const first = this.firstAudioAt ?? doneAt;
    const audioSeconds = this.bytes / BYTES_PER_SECOND;
    const elapsed = s(doneAt - this.startedAt)!;
    const { deltas, words, eventsSent, bytesSent, commands, segments, resets } = this.counts;
    return {
      transcription: {
        audio_seconds: audioSeconds,
        wall_seconds: s(doneAt - first),
        realtime_factor: audioSeconds > 0 ? (doneAt - first) / 1000 / audioSeconds : null,
        time_to_first_word_s: s(this.firstWordAt !== undefined ? this.firstWordAt - first : undefined),
        finalize_tail_s: s(this.lastAudioAt !== undefined ? doneAt - this.lastAudioAt : undefined),
        deltas,
        words,
      },
      websocket: {
        elapsed_s: elapsed,
        events_sent: eventsSent + 1,
        deltas_sent: deltas,
        bytes_sent: bytesSent,
        send_failures: 0,
        commands_received: commands,
        send_rate_hz: elapsed > 0 ? (eventsSent + 1) / elapsed : 0,
      },
      trickle: {
        elapsed_s: elapsed,
        get_attempts: segments + resets + 1,
        get_retries: 0,
        get_404_eos: 1,
        get_470_reset: resets,
        get_failures: 0,
        segments_delivered: segments,
        seq_gap_events: 0,
        wait_ms_total: 0,
      },
    };
  }

  private send(event: object): void {
    const text = JSON.stringify(event);
    this.counts.eventsSent++;
    this.counts.bytesSent += Buffer.byteLength(text);
    this.faults.deliver(text);
  }
}

/** The app's WebSocket joins the session its `/transcribe` opened, named in its query; any other is closed at once. */
function open(ws: WebSocket, ctx: SessionContext, upgrade: { url: URL }): void {
  const session = upgrade.url.searchParams.get('session') ?? '';
  const channel = unclaimed.get(session);
  if (!channel) {
    ws.close(1008, `no session ${session.slice(0, 40)}: POST ${TRANSCRIBE_PATH} first`);
    return;
  }
  unclaimed.delete(session);
  new LivepeerSession(ws, ctx, channel, () => channels.delete(`transcribe-${session}`));
}

export const simulatedLivepeer = {
  ...LIVEPEER,
  inputRate: SAMPLE_RATE,
  request: serveApp,
  open,
} satisfies SimulatedDialect;
