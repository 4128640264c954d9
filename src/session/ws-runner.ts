import WebSocket, { type RawData } from 'ws';
import { ProtocolViolation, type Reaction, type WebSocketDialect } from '../dialects/dialect.js';
import type { Control, SentFrame, StreamGate, WebSocketTransport } from '../timeline/types.js';
import type { Pace } from './pace.js';
import type { PreparedSilence, PreparedTurn } from './prepare.js';
import type { PreparedText } from './prepare-text.js';
import { TextBudget } from './bounds.js';
import { errorText, parserOf } from './message-size.js';
import { deadlinesOf, type Deadline } from '../deadlines.js';
import { AudioKeeper } from './received-audio.js';
import { CappedReceived } from './session-caps.js';
import { SlicedWork } from '../sliced-work.js';
import { classifySocketError, Ending, newTimeline, type RunnerBase, type SessionResult } from './runner.js';

export interface WebSocketPlan extends RunnerBase {
  url: string;
  headers: Record<string, string>;
  dialect: WebSocketDialect;
  /** The inputs, chunked and encoded before the clock starts: audio turns, or prompts (speech generation). */
  inputs: Array<PreparedTurn | PreparedText>;
  pace: Pace;
  /** Stay connected this long after the last input, as idle sessions do. */
  idleMs?: number;
  /** Send a mid-stream `session.update` this far into the audio (ms of audio, so pace-independent). */
  updateAtMs?: number;
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
  /** Server turn detection: start the next utterance this long (ms of audio) after the answer to the last one begins to sound, so the user speaks over it. */
  bargeInAtMs?: number;
  /** While it waits between utterances (`waitForAnswer`, `bargeInAtMs`), the client streams this silence at its pace, as a live microphone does; without it, or unpaced, the stream pauses. */
  silence?: PreparedSilence;
  /** Holds the stream until the level's other sessions are connected too (a connect phase); absent, the session streams once it is ready. */
  gate?: StreamGate;
  /** Extra options for the `ws` client (TLS settings, agents). */
  socketOptions?: WebSocket.ClientOptions;
}

/** Sends not yet written to the socket allowed when unpaced, so the socket never buffers without bound. */
const UNPACED_WINDOW = 8;
export const DEFAULT_ACK_WINDOW_MS = 1000;
/** How long an unpaced session waits for a first acknowledgement before treating the server as one that sends none. */
export const ACK_PROBE_MS = 250;
/** Server turn detection: how long after the stream ends a session waits for a lagging VAD, unless every input is final. */
export const SERVER_VAD_GRACE_MS = 1000;
/** After the session, how long a server has to answer the closing handshake before the socket is cut. */
export const CLOSE_GRACE_MS = 1000;
/** Pongs owed to the server's pings before the client gives up on a ping flood (as `ws` itself does). */
const PONG_BACKLOG = 60;
/** Close codes `ws` sends when it rejects a frame (RFC 6455 section 7.4.1); any other rejection is a protocol error, 1002. */
const LIBRARY_CLOSE_CODES: Record<string, number> = { WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: 1009, WS_ERR_INVALID_UTF8: 1007 };

/**
 * The masking key for every client frame, left all zeros. RFC 6455 (section 5.3) has
 * clients mask with random keys so that script in a browser cannot craft bytes that a
 * caching proxy on the path misreads; a benchmark client runs no one else's script. A
 * zero key leaves each frame's payload as it is, so `ws` sends the prepared buffer
 * without copying it or XOR-ing every byte (`--mask-frames` restores random keys).
 * Given this function, `ws` keeps a zeroed key buffer per socket, and it stays zero.
 */
function zeroMask(): void {}

/**
 * Runs one WebSocket session: connects, waits until the dialect's policy says it is
 * ready, streams each input's media against absolute deadlines, ends each input (or,
 * with server turn detection, flushes the one stream) and waits until the policy says
 * the work is done. It only sends, receives and timestamps; meaning comes from the
 * dialect. It never throws: every way a session can end is an outcome.
 */
export function runWebSocketSession(plan: WebSocketPlan): Promise<SessionResult> {
  const { dialect, clock, timeouts } = plan;
  const policy = dialect.policy();
  const reactions = dialect.reactions?.({ speed: speedOf(plan.pace) });
  /** What an input's result is called in timeout messages. */
  const result = dialect.task === 's2s' ? 'answer' : 'final transcript';
  const transport: WebSocketTransport = { kind: 'websocket' };
  const timeline = newTimeline(dialect.task, dialect.turnDetection, plan.plannedStartMs, clock.now(), transport);
  const { counters } = timeline;
  const ending = new Ending(clock);
  const deadlines = deadlinesOf(clock);
  const text = new TextBudget();
  const audio = new AudioKeeper(plan.keepAudioBytes ?? 0);
  const received = new CappedReceived(timeline.received, plan.caps);
  let input = 0;
  /** Audio position the server acknowledged consuming, when it acknowledges at all. */
  let ackedMs: number | undefined;
  const fail = ending.fail.bind(ending);
  const until = ending.until.bind(ending);

  const ws = new WebSocket(dialect.connectUrl(plan.url), {
    headers: { ...dialect.upgradeHeaders(), ...plan.headers },
    perMessageDeflate: false,
    // Pongs are answered here, so a close the client makes on a ping flood is known to be the client's.
    autoPong: false,
    ...(plan.maskFrames ? {} : { generateMask: zeroMask }),
    ...plan.socketOptions,
  });
  let pongsOwed = 0;

  ws.on('upgrade', (response) => {
    transport.localPort = response.socket.localPort;
  });
  ws.on('open', () => {
    transport.openMs = clock.now();
    ending.stage = 'ready'; // frames may arrive before the flow resumes
    ending.recheck?.();
  });
  ws.on('unexpected-response', (request, response) => {
    fail({ class: 'upgrade_status', httpStatus: response.statusCode ?? 0, message: `server answered the WebSocket upgrade with HTTP ${response.statusCode} ${response.statusMessage ?? ''}`.trim() });
    request.destroy();
  });
  /** The client closes the connection itself: recorded now, since the socket's close event may come after the session is over. */
  const closeByClient = (code: number, reason: string): void => {
    transport.close ??= { t: clock.now(), code, reason, by: 'client' };
  };
  ws.on('error', (err: NodeJS.ErrnoException) => {
    err.message = errorText(err, parserOf(ws), 'server');
    // ws answers a malformed frame by closing with the RFC 6455 code for it.
    if (err.code?.startsWith('WS_ERR_')) closeByClient(LIBRARY_CLOSE_CODES[err.code] ?? 1002, err.message);
    fail(classifySocketError(err, ending.stage, plan.url));
  });
  ws.on('ping', (data: Buffer) => {
    if (pongsOwed >= PONG_BACKLOG) {
      closeByClient(1006, `${PONG_BACKLOG} pongs were still owed to the server's pings`);
      fail({ class: 'protocol_violation', message: `server sent pings faster than they could be answered (${PONG_BACKLOG} pongs owed); the client closed the connection` });
      ws.terminate();
      return;
    }
    pongsOwed++;
    ws.pong(data, undefined, () => pongsOwed--);
  });
  ws.on('message', (data: RawData, isBinary: boolean) => {
    const t = clock.now();
    const bytes = data as Buffer;
    counters.framesReceived++;
    counters.bytesReceived += bytes.length;
    transport.firstReceivedMs ??= t;
    const tooLarge = received.overBytes(counters.bytesReceived);
    if (tooLarge) return fail(tooLarge);
    let events;
    try {
      events = dialect.decode(bytes, isBinary);
    } catch (err) {
      received.record({ t, type: isBinary ? '(binary)' : '(invalid)', kind: 'other', input });
      fail({ class: 'protocol_violation', message: err instanceof ProtocolViolation ? err.message : `cannot decode a frame: ${(err as Error).message}` });
      return;
    }
    for (const event of events) {
      const frame = { t, input, ...text.bound(audio.take(event, input)) };
      received.record(frame, event.text);
      if (event.kind === 'progress') {
        ackedMs = Math.max(ackedMs ?? 0, event.audioEndMs ?? 0);
        if (plan.serverAcks) plan.serverAcks.known = true;
      }
      const verdict = policy.observe(frame);
      if (policy.ready) transport.readyMs ??= t;
      if (verdict) fail(verdict.end);
      if (reactions) react(reactions.received(frame));
    }
    ending.recheck?.();
  });
  ws.on('close', (code: number, reason: Buffer) => {
    // A close the client made itself is already recorded, with its reason.
    transport.close ??= { t: clock.now(), code, reason: reason.toString(), by: 'server' };
    if (code === 1000 || code === 1005) {
      fail({ class: 'server_closed', closeCode: code, message: `server closed the session (code ${code}) before it was finished` });
    } else {
      fail({ class: 'abnormal_close', closeCode: code, message: `connection closed abnormally with code ${code}${reason.length ? ` (${reason})` : ''}` });
    }
  });

  const removeAbort = ending.onAbort(plan.signal);

  const send = (frame: Buffer | string, binary = false, callback?: () => void): number => {
    ws.send(frame, { binary }, callback);
    const t = clock.now();
    counters.framesSent++;
    counters.bytesSent += typeof frame === 'string' ? Buffer.byteLength(frame) : frame.length;
    return t;
  };
  const sendControl = (frame: string, control: Control): number => {
    const t = send(frame);
    const sent: SentFrame = { t, input, bytes: Buffer.byteLength(frame), kind: 'control', control };
    timeline.sent.push(sent);
    policy.controlSent(sent);
    if (reactions) react(reactions.sent(sent));
    return t;
  };
  /** Sends what the dialect's reactions ask for, while the socket is open. */
  const react = (frames: Reaction[]): void => {
    for (const { frame, control } of frames) if (ws.readyState === WebSocket.OPEN) sendControl(frame, control);
  };
  let ticker: NodeJS.Timeout | undefined;

  /**
   * Sends `count` frames, frame i once its deadline `due(i)` has passed. Deadlines are
   * absolute, so timer lateness never accumulates, within an input or across the inputs
   * of one continuous stream; they wait in the thread's one scheduler with every other
   * session's.
   */
  const onSchedule = (count: number, due: (i: number) => number, sendOne: (i: number, plannedMs: number) => void): Promise<void> =>
    new Promise((resolve) => {
      let k = 0;
      let next: Deadline | undefined;
      const done = (): void => {
        next?.cancel();
        ending.recheck = undefined;
        resolve();
      };
      ending.recheck = () => {
        if (ending.outcome) done();
      };
      const tick = (): void => {
        if (ending.outcome) return done();
        let now = clock.now();
        while (k < count && due(k) <= now) {
          sendOne(k, due(k));
          k++;
          now = clock.now();
        }
        if (k === count) return done();
        next = deadlines.at(due(k), tick);
      };
      tick();
    });

  /** Streams one input's audio chunks; paced chunks are due at `t0 + (offsetMs + position) / speed`. */
  const stream = (prepared: PreparedTurn, offsetMs: number, t0: number): Promise<void> => {
    ending.stage = 'streaming';
    const chunks = prepared.chunks;
    let k = 0;
    let sentEndMs = offsetMs;
    return new Promise((resolve) => {
      let probe: NodeJS.Timeout | undefined;
      let stall: NodeJS.Timeout | undefined;
      let drain: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(probe);
        clearTimeout(stall);
        clearTimeout(drain);
        ending.recheck = undefined;
        resolve();
      };
      ending.recheck = () => {
        if (ending.outcome) done();
      };
      /** Sends chunk `seq` framed at its place in the stream, and records it. */
      const sendChunk = (seq: number, plannedMs: number | null, written?: () => void): void => {
        const chunk = chunks[seq]!;
        const span = { startMs: offsetMs + chunk.audioStartMs, endMs: offsetMs + chunk.audioEndMs };
        const frame = chunk.frame(span);
        const t = send(frame, chunk.binary, written);
        sentEndMs = span.endMs;
        timeline.sent.push({ t, input, bytes: frame.length, kind: 'audio', plannedMs, audioStartMs: span.startMs, audioEndMs: span.endMs });
      };
      if (plan.pace.kind === 'none') {
        let inFlight = 0;
        const windowMs = plan.ackWindowMs ?? DEFAULT_ACK_WINDOW_MS;
        const server = plan.serverAcks ?? {};
        const acknowledged = (): boolean => {
          if (windowMs === 0 || server.known === false) return true;
          // Within the window, or everything sent so far acknowledged (a window smaller than a chunk).
          if (offsetMs + chunks[k]!.audioEndMs - (ackedMs ?? 0) <= windowMs || sentEndMs <= (ackedMs ?? 0)) return true;
          if (ackedMs === undefined && server.known === undefined) {
            probe ??= setTimeout(() => {
              if (ackedMs === undefined) server.known = false;
              pump();
            }, ACK_PROBE_MS);
          }
          // A server that stops acknowledging must not hold the session forever.
          clearTimeout(stall);
          stall = setTimeout(() => fail({ class: 'timeout', message: `no acknowledgement of the audio sent for ${timeouts.finalMs} ms` }), timeouts.finalMs);
          return false;
        };
        /** A socket that takes none of the audio written to it (a server that stopped reading) must not hold the session forever. */
        const watchDrain = (): void => {
          clearTimeout(drain);
          if (inFlight > 0) {
            drain = setTimeout(() => fail({ class: 'timeout', message: `the socket took no audio for ${timeouts.finalMs} ms (the server stopped reading)` }), timeouts.finalMs);
          }
        };
        const pump = (): void => {
          if (ending.outcome) return done();
          clearTimeout(stall);
          while (k < chunks.length && inFlight < UNPACED_WINDOW && acknowledged()) {
            inFlight++;
            const seq = k++;
            sendChunk(seq, null, () => {
              inFlight--;
              if (k === chunks.length && inFlight === 0) done();
              else pump();
            });
          }
          watchDrain();
        };
        ending.recheck = pump; // acknowledgements open the window
        return pump();
      }
      const speed = plan.pace.speed;
      void onSchedule(chunks.length, (i) => t0 + (offsetMs + chunks[i]!.audioStartMs) / speed, sendChunk).then(resolve);
    });
  };

  /**
   * Streams silence from `fromMs` of the stream, each chunk due at `t0 + position / speed`
   * in the thread's one scheduler, until stopped; `stop` says where the stream has got to.
   */
  const streamSilence = (silence: PreparedSilence, fromMs: number, t0: number, speed: number): { stop(): number } => {
    let sentMs = fromMs;
    let next: Deadline | undefined;
    const tick = (): void => {
      let now = clock.now();
      while (!ending.outcome && t0 + sentMs / speed <= now) {
        const span = { startMs: sentMs, endMs: sentMs + silence.chunkMs };
        const frame = silence.frame(span);
        const plannedMs = t0 + sentMs / speed;
        timeline.sent.push({ t: send(frame, silence.binary), input, bytes: frame.length, kind: 'audio', plannedMs, audioStartMs: span.startMs, audioEndMs: span.endMs, silence: true });
        sentMs += silence.chunkMs;
        now = clock.now();
      }
      if (!ending.outcome) next = deadlines.at(t0 + sentMs / speed, tick);
    };
    tick();
    return {
      stop: () => {
        next?.cancel();
        return sentMs;
      },
    };
  };

  /** Sends a prompt: every piece at once, or (streamed, and paced) each on its token schedule from `t0`. */
  const sendText = (prepared: PreparedText, t0: number): Promise<void> => {
    ending.stage = 'streaming';
    const { chunks } = prepared;
    const sendOne = (i: number, plannedMs: number | null): void => {
      const chunk = chunks[i]!;
      const t = send(chunk.frame);
      timeline.sent.push({ t, input, bytes: chunk.frame.length, kind: 'text', plannedMs, charStart: chunk.charStart, charEnd: chunk.charEnd });
    };
    if (!prepared.streamed || plan.pace.kind === 'none') {
      for (let i = 0; i < chunks.length; i++) sendOne(i, null);
      return Promise.resolve();
    }
    const speed = plan.pace.speed;
    return onSchedule(chunks.length, (i) => t0 + chunks[i]!.atMs / speed, sendOne);
  };

  /** Sends the mid-stream `session.update` at its time, if one is planned. */
  const scheduleUpdate = (t0: number): NodeJS.Timeout | undefined => {
    if (plan.updateAtMs === undefined) return undefined;
    return setTimeout(() => {
      if (!ending.outcome) sendControl(dialect.sessionUpdateFrame(), 'session_update');
    }, Math.max(0, t0 + plan.updateAtMs / speedOf(plan.pace) - clock.now()));
  };

  const startInput = (prepared: PreparedTurn | PreparedText, offsetMs: number): void => {
    if (prepared.kind === 'text') {
      timeline.inputs.push({ kind: 'text', index: input, sampleId: prepared.sampleId, split: prepared.split, text: prepared.text, chars: prepared.chars });
      return;
    }
    timeline.inputs.push({
      kind: 'audio',
      index: input,
      sampleId: prepared.sampleId,
      split: prepared.split,
      reference: prepared.reference,
      ...(prepared.language !== undefined ? { language: prepared.language } : {}),
      ...(prepared.words ? { words: prepared.words.map((w) => ({ word: w.word, endMs: offsetMs + w.endMs })) } : {}),
      audioStartMs: offsetMs,
      speechStartMs: offsetMs + prepared.speechStartMs,
      speechEndMs: offsetMs + prepared.speechEndMs,
      eosSource: prepared.eosSource,
      audioEndMs: offsetMs + prepared.audioMs,
    });
  };

  /**
   * Waits at the level's gate: says the session is ready, then waits for the gate's time
   * (which it returns). A gate held longer than a connect and a ready timeout opens for
   * this session alone: its stream then starts late, never not at all.
   */
  const gated = async (gate: StreamGate): Promise<number> => {
    gate.ready();
    let openAt: number | undefined;
    let waiting = true;
    let due: Deadline | undefined;
    void gate.startAt.then((t) => {
      if (!waiting) return;
      due = deadlines.at(t, () => {
        openAt = t;
        ending.recheck?.();
      });
    });
    await until('ready', () => openAt !== undefined, timeouts.connectMs + timeouts.readyMs);
    waiting = false;
    due?.cancel();
    return openAt ?? clock.now();
  };

  /** Sends the dialect's start of an input, if it has one (vLLM's opening commit). */
  const startControl = (): void => {
    const frame = dialect.inputStartFrame();
    if (frame) sendControl(frame, 'input_start');
  };

  /** Client turn detection: each input is ended, and its final awaited, before the next; the first streams from `startAt` (default now). */
  const clientInputs = async (startAt?: number): Promise<void> => {
    let offsetMs = 0;
    let update: NodeJS.Timeout | undefined;
    for (; input < plan.inputs.length && !ending.outcome; input++) {
      const prepared = plan.inputs[input]!;
      startInput(prepared, offsetMs);
      // Held at a gate, the first input's start went before the wait, with the session's configuration.
      if (input > 0 || startAt === undefined) startControl();
      const t0 = input === 0 && startAt !== undefined ? startAt : clock.now();
      if (prepared.kind === 'text') {
        await sendText(prepared, t0);
      } else {
        update ??= scheduleUpdate(t0);
        await stream(prepared, offsetMs, t0 - offsetMs / speedOf(plan.pace));
        offsetMs += prepared.audioMs;
      }
      if (ending.outcome) break;
      sendControl(dialect.inputEndFrame(), 'input_end');
      const index = input;
      await until('final', () => policy.inputDone(index), timeouts.finalMs, prepared.kind === 'text' ? 'the end of the generated speech' : `the ${result}`);
    }
    clearTimeout(update);
  };

  /**
   * Server turn detection: one continuous stream; the server's VAD commits inputs. At the
   * end, speech still in progress is flushed, then every committed item's result is awaited.
   * The stream starts at `startAt` (default now).
   */
  const serverInputs = async (startAt?: number): Promise<void> => {
    let t0 = startAt ?? clock.now();
    const update = scheduleUpdate(t0);
    let offsetMs = 0;
    for (; input < plan.inputs.length && !ending.outcome; input++) {
      const prepared = plan.inputs[input]!;
      startInput(prepared, offsetMs);
      if (prepared.kind === 'text') {
        await sendText(prepared, clock.now());
        continue;
      }
      await stream(prepared, offsetMs, t0);
      offsetMs += prepared.audioMs;
      if ((plan.waitForAnswer || plan.bargeInAtMs !== undefined) && input < plan.inputs.length - 1 && !ending.outcome) {
        const answered = input + 1;
        // The microphone stays open while the user waits: silence, bounded by the waits' own limits.
        const filler = plan.silence && plan.pace.kind !== 'none' ? streamSilence(plan.silence, offsetMs, t0, plan.pace.speed) : undefined;
        if (plan.bargeInAtMs === undefined) {
          await until('final', () => policy.allFinal(answered), timeouts.finalMs, `the ${result} to utterance ${answered}`);
        } else {
          await until('final', () => policy.answering?.(answered) ?? true, timeouts.finalMs, `the ${result} to utterance ${answered} to begin`);
          if (!ending.outcome) await until('streaming', () => false, plan.bargeInAtMs / speedOf(plan.pace));
        }
        if (filler) offsetMs = filler.stop(); // the next utterance follows the silence on the same schedule
        else t0 = clock.now() - offsetMs / speedOf(plan.pace); // the stream resumes where it paused
      }
    }
    clearTimeout(update);
    if (ending.outcome) return;
    input = plan.inputs.length - 1;
    const inputs = plan.inputs.length;
    // A server whose VAD lags may still report speech from the end of the stream.
    await until('final', () => policy.allFinal(inputs) || policy.speaking(), SERVER_VAD_GRACE_MS);
    if (ending.outcome) return;
    const flushedMs = policy.speaking() ? sendControl(dialect.flushFrame(), 'flush') : -Infinity;
    await until('final', () => !policy.speaking() && policy.settled(flushedMs), timeouts.finalMs, `the ${result}s of all committed turns`);
  };

  const flow = async (): Promise<void> => {
    await until('connect', () => transport.openMs !== undefined, timeouts.connectMs, 'the WebSocket to open');
    await until('ready', () => policy.ready, timeouts.readyMs, `the server's ${dialect.readyEvent} event`);
    if (ending.outcome) return;
    const first = plan.inputs[0];
    for (const frame of dialect.sessionFrames(first?.kind === 'text' ? undefined : first)) sendControl(frame, 'session_config');
    if (plan.gate && dialect.turnDetection === 'client') startControl();
    const startAt = plan.gate ? await gated(plan.gate) : undefined;
    if (ending.outcome) return;
    if (reactions?.tickMs) ticker = setInterval(() => react(reactions.tick(clock.now())), reactions.tickMs);
    await (dialect.turnDetection === 'client' ? clientInputs(startAt) : serverInputs(startAt));
    if (ending.outcome) return;
    if (plan.idleMs) await until('idle', () => false, plan.idleMs);
    const unkept = received.unkept();
    if (unkept) fail(unkept);
    ending.end({ status: 'completed' });
  };

  return flow().then(() => {
    plan.gate?.ready(); // a session that ended before it was ready must not hold the others
    removeAbort();
    clearInterval(ticker);
    if (reactions) react(reactions.closing(clock.now()));
    // The timeline is final from here: later socket events must not change what was returned.
    ws.removeAllListeners();
    ws.on('error', () => {});
    if (ws.readyState === WebSocket.OPEN) {
      transport.close ??= { t: clock.now(), code: 1000, reason: '', by: 'client' };
      closings.push(ws);
    } else {
      ws.terminate();
    }
    const kept = audio.result();
    const overflow = received.result();
    if (overflow) timeline.overflow = overflow;
    return { timeline, outcome: ending.outcome!, ...(kept ? { audio: kept } : {}) };
  });
}

/**
 * Closing handshakes of sessions that are over, done in slices (the close frame, then
 * the server's answer and the socket's end to read), so that when many sessions end
 * at once (a level's lanes end within one chunk period) their closes do not delay the
 * last chunks of the sessions still streaming. The close is recorded when it is
 * decided; the frame follows in a gap between the deadlines of the sessions still
 * streaming, at most MAX_WAIT_MS later.
 */
const closings = new SlicedWork<WebSocket>((ws) => {
  if (ws.readyState !== WebSocket.OPEN) return;
  ws.close(1000);
  // A server that ignores the closing handshake must not keep the process alive (ws waits 30 s).
  const grace = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
  ws.once('close', () => clearTimeout(grace));
});

function speedOf(pace: Pace): number {
  return pace.kind === 'none' ? 1 : pace.speed;
}
