import WebSocket, { type RawData } from 'ws';
import {
  decoderOf,
  ProtocolViolation,
  type CompletionPolicy,
  type HttpAudioChannel,
  type Reaction,
  type Reactions,
  type WebSocketDialect,
} from '../dialects/dialect.js';
import type { Clock } from '../runtime/clock.js';
import type { ChannelRecord, Control, Counters, Failure, SentFrame, SessionTimeline, StreamGate, WebSocketTransport } from '../timeline/types.js';
import { speedOf, type Pace } from './pace.js';
import type { PreparedChunk, PreparedSilence, PreparedTurn } from './prepare.js';
import type { PreparedText, PreparedTextChunk } from './prepare-text.js';
import { FRAME_LIMITS, TextBudget } from './bounds.js';
import { errorText, parserOf } from './message-size.js';
import { deadlinesOf, type Deadlines } from '../runtime/deadlines.js';
import { AudioFrameEnds } from './audio-frame-ends.js';
import { AudioKeeper } from './received-audio.js';
import { CappedReceived } from './session-caps.js';
import { classifySocketError, Ending, newTimeline, type RunnerBase, type SessionResult, type StageTimeouts } from './runner.js';
import { closeAfterSession, libraryCloseCode, PING_FLOOD, PONG_BACKLOG, serverCloseFailure } from './ws-close.js';
import { ChannelPublisher, channelRequest, type PublishingSession } from './channel-publisher.js';
import { claimChannel } from './channel-claims.js';

export interface WebSocketPlan extends RunnerBase {
  url: string;
  headers: Record<string, string>;
  dialect: WebSocketDialect;
  /** The inputs, chunked and encoded before the clock starts: audio turns, or prompts (speech generation). */
  inputs: Array<PreparedTurn | PreparedText>;
  pace: Pace;
  /** Stay connected this long after the last input, as idle sessions do. */
  idleMs?: number;
  /** Send a mid-stream `session.update` at each of these points of the audio (ms of audio, so pace-independent). */
  updatesAtMs?: readonly number[];
  /**
   * Unpaced: the most audio (ms) sent but not yet acknowledged by the server's
   * `progress` events; 0 turns acknowledgements off.
   */
  ackWindowMs?: number;
  /**
   * What the run has learnt about the server, shared by its sessions: whether it
   * acknowledges audio. Unknown, a session that fills the window waits up to
   * `ACK_PROBE_MS` for a first acknowledgement before concluding it never comes.
   */
  serverAcks?: { known?: boolean };
  /** Mask frames with random keys; else with the all-zero key. */
  maskFrames?: boolean;
  /** Server turn detection: before streaming the next utterance, wait until the server has answered every one so far. */
  waitForAnswer?: boolean;
  /**
   * Server turn detection: start utterance k (its index here; the first has none) this long
   * (ms of audio) after the answer to the last one begins to sound, so the user speaks over
   * it; an utterance without one follows the last at once (or, with `waitForAnswer`, once it is answered).
   */
  bargeInsAtMs?: ReadonlyArray<number | undefined>;
  /** While it waits between utterances (`waitForAnswer`, `bargeInsAtMs`), the client streams this silence at its pace, as a live microphone does; without it, or unpaced, the stream pauses. */
  silence?: PreparedSilence;
  /** Holds the stream until the level's other sessions are connected too (a connect phase); absent, the session streams once it is ready. */
  gate?: StreamGate;
  /** Extra options for the `ws` client (TLS settings, agents). */
  socketOptions?: WebSocket.ClientOptions;
}

/**
 * The masking key for every client frame, left all zeros. RFC 6455 (section 5.3) has
 * clients mask with random keys so that script in a browser cannot craft bytes that a
 * caching proxy on the path misreads; a benchmark client runs no one else's script. A
 * zero key leaves each frame's payload as it is, so `ws` sends the prepared buffer
 * without copying it or XOR-ing every byte (`--mask-frames` restores random keys).
 * Given this function, `ws` keeps a zeroed key buffer per socket, and it stays zero.
 */
function zeroMask(): void {}

/** How long a server that answers the client's closing frames (`Reactions.awaitsClose`) has to close the socket. */
const CLOSING_ANSWER_MS = 2_000;

/**
 * One WebSocket session's state, and the work done per frame: its socket and what
 * the socket's events do, every send stamped and recorded, every received frame
 * stamped, kept and shown to the dialect's policy. What the session waits for is
 * `ending.recheck`, owned by one wait at a time: an `Ending.until`, or a send loop
 * (ws-send-loop.ts); socket events and the ending re-check it.
 */
export class WebSocketSession {
  readonly dialect: WebSocketDialect;
  readonly clock: Clock;
  readonly timeouts: StageTimeouts;
  readonly policy: CompletionPolicy;
  private readonly decode: WebSocketDialect['decode'];
  readonly reactions: Reactions | undefined;
  /** What an input's result is called in timeout messages. */
  readonly resultName: string;
  readonly transport: WebSocketTransport = { kind: 'websocket' };
  readonly timeline: SessionTimeline;
  readonly ending: Ending;
  /** The thread's one deadline scheduler, shared with every session on this clock. */
  readonly deadlines: Deadlines;
  /** The input being sent or awaited: frames sent and received are recorded against it. */
  input = 0;
  /** Audio position the server acknowledged consuming, when it acknowledges at all. */
  ackedMs: number | undefined;
  /** The dialect's periodic reactions, from the session's configuration to its end. */
  ticker: NodeJS.Timeout | undefined;
  private readonly counters: Counters;
  private readonly text = new TextBudget();
  private readonly audio: AudioKeeper;
  private readonly frameEnds = new AudioFrameEnds();
  private readonly received: CappedReceived;
  /** Unset until it connects: a session with an audio channel opens over HTTP first. */
  private ws: WebSocket | undefined;
  /** Where the audio goes when the dialect publishes it over HTTP (`audioChannel`). */
  private publisher: ChannelPublisher | undefined;
  /** Gives back the server session this session holds (`claimChannel`). */
  private releaseChannel: (() => void) | undefined;
  private opening: { destroy(): void } | undefined;
  private pongsOwed = 0;
  /** The closing frames went before the session ended (`closeStream`). */
  private closingSent = false;
  private readonly removeAbort: () => void;

  constructor(readonly plan: WebSocketPlan) {
    const { dialect, clock } = plan;
    this.dialect = dialect;
    this.clock = clock;
    this.timeouts = plan.timeouts;
    this.policy = dialect.policy();
    this.decode = decoderOf(dialect);
    this.reactions = dialect.reactions?.({ speed: speedOf(plan.pace) });
    this.resultName = dialect.task === 's2s' ? 'answer' : 'final transcript';
    this.timeline = newTimeline(dialect.task, dialect.turnDetection, plan.plannedStartMs, clock.now(), this.transport);
    this.counters = this.timeline.counters;
    this.ending = new Ending(clock);
    this.deadlines = deadlinesOf(clock);
    this.audio = new AudioKeeper(plan.keepAudioBytes ?? 0);
    this.received = new CappedReceived(this.timeline.received, plan.caps);
    this.removeAbort = this.ending.onAbort(plan.signal);
    if (dialect.audioChannel) void this.openChannel(dialect.audioChannel);
    else this.connect(dialect.connectUrl(plan.url));
  }

  private connect(url: string): void {
    const { dialect, plan } = this;
    this.ws = new WebSocket(url, {
      headers: { ...dialect.upgradeHeaders(), ...plan.headers },
      perMessageDeflate: false,
      // A larger message is refused on its frame header, before ws buffers it (its default, 100 MiB, costs five times that to decode).
      maxPayload: FRAME_LIMITS.messageBytes,
      // Pongs are answered here, so a close the client makes on a ping flood is known to be the client's.
      autoPong: false,
      ...(plan.maskFrames ? {} : { generateMask: zeroMask }),
      ...plan.socketOptions,
    });
    this.listen(this.ws);
  }

  /** Opens the session over HTTP (the connect stage), then connects the socket it names and publishes the audio where it says. */
  private async openChannel(channel: HttpAudioChannel): Promise<void> {
    const { plan, clock } = this;
    const record: ChannelRecord = { openStartMs: clock.now(), segments: [] };
    this.transport.channel = record;
    const { body: payload, ...open } = channel.open(plan.url);
    const { request, answer } = channelRequest({ ...open, headers: { ...open.headers, ...plan.headers } }, plan.socketOptions, payload);
    this.opening = request;
    let opened;
    try {
      const { status, body } = await answer;
      Object.assign(record, { openEndMs: clock.now(), openStatus: status });
      if (status < 200 || status > 299) {
        const text = body.toString('utf8', 0, 200).trim();
        return this.fail({
          class: 'http_status',
          httpStatus: status,
          message: `server answered the session's opening request with HTTP ${status}${text ? `: ${text}` : ''}`,
        });
      }
      opened = channel.opened(plan.url, body);
    } catch (err) {
      if (err instanceof ProtocolViolation) return this.fail({ class: 'protocol_violation', message: err.message });
      return this.fail(classifySocketError(err as NodeJS.ErrnoException, 'connect', open.url, 'http'));
    }
    if (this.ending.outcome) return;
    const claim = claimChannel(opened);
    if ('shared' in claim) {
      return this.fail({
        class: 'shared_session',
        message: `the server handed this session the ${claim.shared}, which another session of the run is still using: their audio would mix, so it was not run`,
      });
    }
    this.releaseChannel = claim.release;
    this.publisher = new ChannelPublisher(this.publishing, channel, record, opened.publishUrl, {
      sampleRate: this.dialect.sampleRate,
      ackTimeoutMs: this.timeouts.finalMs,
      tls: plan.socketOptions,
    });
    this.connect(opened.socketUrl);
  }

  /** What the channel's publisher records through. */
  private readonly publishing: PublishingSession = {
    now: () => this.clock.now(),
    recordAudio: (t, bytes, span, plannedMs) => {
      this.counters.framesSent++;
      this.counters.bytesSent += bytes;
      this.timeline.sent.push({ t, input: this.input, bytes, kind: 'audio', plannedMs, audioStartMs: span.startMs, audioEndMs: span.endMs });
    },
    recordInputEnd: (t) => {
      this.recordControl(t, 0, 'input_end');
      this.ending.recheck?.();
    },
    fail: (failure) => this.fail(failure),
    ended: () => this.ending.outcome !== undefined,
    deltasSince: (t) => this.timeline.received.filter((e) => e.kind === 'text_delta' && e.text && e.t >= t).length,
  };

  fail(failure: Omit<Failure, 'stage'>): void {
    this.ending.fail(failure);
  }

  /** Writes a frame and stamps it right after the write (a stamp before it could precede the wire). */
  send(frame: Buffer | string, binary = false, callback?: () => void): number {
    this.ws!.send(frame, { binary }, callback);
    const t = this.clock.now();
    this.counters.framesSent++;
    this.counters.bytesSent += typeof frame === 'string' ? Buffer.byteLength(frame) : frame.length;
    return t;
  }

  /** `plannedMs`: when a control sent on a schedule (a mid-stream update) was due. */
  sendControl(frame: string, control: Control, plannedMs?: number): number {
    return this.recordControl(this.send(frame), Buffer.byteLength(frame), control, plannedMs);
  }

  /**
   * Ends the input: the dialect's end frame; or its audio channel's end request, once the
   * audio is acknowledged, which it waits for, still streaming (paced, pieces may be held).
   */
  async endInput(): Promise<void> {
    const { publisher } = this;
    if (!publisher) {
      this.sendControl(this.dialect.inputEndFrame(), 'input_end');
      return;
    }
    publisher.end();
    await this.ending.until('streaming', () => publisher.ended, this.timeouts.finalMs, 'the last audio to be acknowledged');
  }

  private recordControl(t: number, bytes: number, control: Control, plannedMs?: number): number {
    const sent: SentFrame = { t, input: this.input, bytes, kind: 'control', control, ...(plannedMs !== undefined ? { plannedMs } : {}) };
    this.timeline.sent.push(sent);
    this.policy.controlSent(sent);
    if (this.reactions) this.react(this.reactions.sent(sent));
    return t;
  }

  /** Sends what the dialect's reactions ask for, while the socket is open. */
  react(frames: Reaction[]): void {
    for (const { frame, control } of frames) if (this.ws?.readyState === WebSocket.OPEN) this.sendControl(frame, control);
  }

  /** Sends audio chunk `chunk` framed at its place in the stream, `offsetMs` on, and records it; returns where it ends. */
  sendAudio(chunk: PreparedChunk, offsetMs: number, plannedMs: number | null, written?: () => void): number {
    const span = { startMs: offsetMs + chunk.audioStartMs, endMs: offsetMs + chunk.audioEndMs };
    const frame = chunk.frame(span);
    if (this.publisher) {
      this.publisher.write(frame, span, plannedMs, written);
      return span.endMs;
    }
    const t = this.send(frame, chunk.binary, written);
    this.frameEnds.sent(span.endMs);
    this.timeline.sent.push({ t, input: this.input, bytes: frame.length, kind: 'audio', plannedMs, audioStartMs: span.startMs, audioEndMs: span.endMs });
    return span.endMs;
  }

  /** Sends one chunk of the silence a waiting microphone streams, from `startMs` of the stream, and records it. */
  sendSilence(silence: PreparedSilence, startMs: number, plannedMs: number): void {
    const span = { startMs, endMs: startMs + silence.chunkMs };
    const frame = silence.frame(span);
    this.frameEnds.sent(span.endMs);
    this.timeline.sent.push({
      t: this.send(frame, silence.binary),
      input: this.input,
      bytes: frame.length,
      kind: 'audio',
      plannedMs,
      audioStartMs: span.startMs,
      audioEndMs: span.endMs,
      silence: true,
    });
  }

  /** Sends one piece of a prompt, and records it. */
  sendTextChunk(chunk: PreparedTextChunk, plannedMs: number | null): void {
    const t = this.send(chunk.frame);
    this.timeline.sent.push({ t, input: this.input, bytes: chunk.frame.length, kind: 'text', plannedMs, charStart: chunk.charStart, charEnd: chunk.charEnd });
  }

  /** Sends the dialect's start of an input, if it has one (vLLM's opening commit). */
  sendInputStart(): void {
    const frame = this.dialect.inputStartFrame();
    if (frame) this.sendControl(frame, 'input_start');
  }

  /** Sends the closing frames of a dialect whose server answers them (`Reactions.awaitsClose`), and waits up to CLOSING_ANSWER_MS for its close. */
  async closeStream(): Promise<void> {
    this.closingSent = true;
    if (this.reactions) this.react(this.reactions.closing(this.clock.now()));
    await this.ending.until('final', () => this.transport.close !== undefined, CLOSING_ANSWER_MS);
  }

  /** A session that publishes over a channel and ended before its end of input ends the channel, and waits for the answer (channel-publisher.ts). */
  async closeChannel(): Promise<void> {
    await this.publisher?.close();
  }

  /**
   * Ends the session's work once its outcome is decided: frees the gate and the timers,
   * closes the socket, and returns the result once the socket is closed: every frame
   * received before the close is in it, those that came after the session decided to end too.
   */
  async finish(): Promise<SessionResult> {
    this.plan.gate?.ready(); // a session that ended before it was ready must not hold the others
    this.removeAbort();
    clearInterval(this.ticker);
    if (this.reactions && !this.closingSent) this.react(this.reactions.closing(this.clock.now()));
    this.opening?.destroy();
    void this.publisher?.close();
    this.releaseChannel?.();
    if (this.ws) await closeAfterSession(this.ws, this.transport, this.clock);
    const kept = this.audio.result();
    const overflow = this.received.result();
    if (overflow) this.timeline.overflow = overflow;
    return { timeline: this.timeline, outcome: this.ending.outcome!, ...(kept ? { audio: kept } : {}) };
  }

  /** The failure of a session whose received events were not all kept; undefined when all were. */
  unkept(): Omit<Failure, 'stage'> | undefined {
    return this.received.unkept();
  }

  /** Each received frame: stamped before anything else, counted, decoded, kept and shown to the policy. */
  private readonly receive = (data: RawData, isBinary: boolean): void => {
    const t = this.clock.now();
    const bytes = data as Buffer;
    const { counters, transport, received } = this;
    counters.framesReceived++;
    counters.bytesReceived += bytes.length;
    transport.firstReceivedMs ??= t;
    const tooLarge = received.overBytes(counters.bytesReceived);
    if (tooLarge) return this.fail(tooLarge);
    let events;
    try {
      events = this.decode(bytes, isBinary);
    } catch (err) {
      received.record({ t, type: isBinary ? '(binary)' : '(invalid)', kind: 'other', input: this.input });
      this.fail({ class: 'protocol_violation', message: err instanceof ProtocolViolation ? err.message : `cannot decode a frame: ${(err as Error).message}` });
      return;
    }
    const { policy, reactions } = this;
    for (const event of events) {
      const frame = { t, input: this.input, ...this.text.bound(this.audio.take(this.frameEnds.place(event), this.input)) };
      received.record(frame, event.text);
      if (event.kind === 'progress') {
        this.ackedMs = Math.max(this.ackedMs ?? 0, frame.audioEndMs ?? 0);
        if (this.plan.serverAcks) this.plan.serverAcks.known = true;
        this.publisher?.acknowledged(this.ackedMs, t);
      }
      const verdict = policy.observe(frame);
      if (policy.ready) transport.readyMs ??= t;
      if (verdict) this.fail(verdict.end);
      // A frame that came after the session decided to end is kept, but is answered no more.
      if (reactions && !this.ending.outcome) this.react(reactions.received(frame));
    }
    const textBomb = this.text.overReceived();
    if (textBomb) return this.fail(textBomb);
    this.ending.recheck?.();
  };

  /** The client closes the connection itself: recorded now, since the socket's close event may come after the session is over. */
  private closeByClient(code: number, reason: string): void {
    this.transport.close ??= { t: this.clock.now(), code, reason, by: 'client' };
  }

  private listen(ws: WebSocket): void {
    const { transport, clock, ending } = this;
    ws.on('upgrade', (response) => {
      transport.localPort = response.socket.localPort;
    });
    ws.on('open', () => {
      transport.openMs = clock.now();
      ending.stage = 'ready'; // frames may arrive before the flow resumes
      ending.recheck?.();
    });
    ws.on('unexpected-response', (request, response) => {
      this.fail({
        class: 'upgrade_status',
        httpStatus: response.statusCode ?? 0,
        message: `server answered the WebSocket upgrade with HTTP ${response.statusCode} ${response.statusMessage ?? ''}`.trim(),
      });
      request.destroy();
    });
    ws.on('error', (err: NodeJS.ErrnoException) => {
      err.message = errorText(err, parserOf(ws), 'server');
      // ws answers a malformed frame by closing with the RFC 6455 code for it.
      const code = libraryCloseCode(err);
      if (code !== undefined) this.closeByClient(code, err.message);
      this.fail(classifySocketError(err, ending.stage, this.plan.url));
    });
    ws.on('ping', (data: Buffer) => {
      if (this.pongsOwed >= PONG_BACKLOG) {
        this.closeByClient(1006, `${PONG_BACKLOG} pongs were still owed to the server's pings`);
        this.fail(PING_FLOOD);
        ws.terminate();
        return;
      }
      this.pongsOwed++;
      ws.pong(data, undefined, () => this.pongsOwed--);
    });
    ws.on('message', this.receive);
    ws.on('close', (code: number, reason: Buffer) => {
      // A close the client made itself is already recorded, with its reason.
      transport.close ??= { t: clock.now(), code, reason: reason.toString(), by: 'server' };
      if (this.closingSent && (code === 1000 || code === 1005)) return ending.recheck?.(); // the close the client asked for
      const named = this.dialect.closeReasonCode?.(reason.toString());
      this.fail({ ...serverCloseFailure(code, reason), ...(named !== undefined ? { code: named } : {}) });
    });
  }
}
