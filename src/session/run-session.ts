import WebSocket, { type RawData } from 'ws';
import type { ProtocolAdapter } from '../adapters/adapter.js';
import type { Clock } from '../clock.js';
import type {
  Failure,
  IncompleteReason,
  SessionOutcome,
  SessionTimeline,
  Stage,
} from '../timeline/types.js';
import type { Pace } from './pace.js';
import type { PreparedTurn } from './prepare.js';

/** Per-stage time limits in ms; a session that exceeds one fails with that stage named. */
export interface StageTimeouts {
  connectMs: number;
  readyMs: number;
  finalMs: number;
}

export const DEFAULT_TIMEOUTS: StageTimeouts = { connectMs: 10_000, readyMs: 10_000, finalMs: 30_000 };

export interface SessionPlan {
  url: string;
  headers: Record<string, string>;
  adapter: ProtocolAdapter;
  turns: PreparedTurn[];
  pace: Pace;
  /** When the load profile meant this session to start. */
  plannedStartMs: number;
  /** Stay connected this long after the last turn, as idle sessions do. */
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
  timeouts: StageTimeouts;
  clock: Clock;
  /** Aborting ends the session as incomplete; the reason must be an IncompleteReason. */
  signal?: AbortSignal;
  /** Extra options for the `ws` client (TLS settings, agents). */
  socketOptions?: WebSocket.ClientOptions;
}

export interface SessionResult {
  timeline: SessionTimeline;
  outcome: SessionOutcome;
}

/** Sends not yet written to the socket allowed when unpaced, so the socket never buffers without bound. */
const UNPACED_WINDOW = 8;
export const DEFAULT_ACK_WINDOW_MS = 1000;
/** How long an unpaced session waits for a first acknowledgement before treating the server as one that sends none. */
export const ACK_PROBE_MS = 250;
/** Server turn detection: how long after the stream ends a session waits for a lagging VAD, unless every turn is final. */
export const SERVER_VAD_GRACE_MS = 1000;

/**
 * Runs one session: connects, waits for the session to be ready, streams each turn's
 * audio against absolute deadlines, asks for the final transcript and waits for it.
 * It only sends, receives and timestamps; meaning comes from the adapter and metrics.
 * It never throws: every way a session can end is an outcome.
 */
export function runSession(plan: SessionPlan): Promise<SessionResult> {
  const { adapter, clock, timeouts } = plan;
  const timeline: SessionTimeline = {
    turnDetection: adapter.turnDetection,
    turns: [],
    plannedStartMs: plan.plannedStartMs,
    connectStartMs: clock.now(),
    chunks: [],
    commits: [],
    updates: [],
    events: [],
    bytesSent: 0,
    bytesReceived: 0,
    framesSent: 0,
    framesReceived: 0,
  };
  let stage: Stage = 'connect';
  let turn = 0;
  /** Turns whose final transcript has arrived (client turn detection). */
  let finalsReceived = 0;
  /** Final transcripts received, all turns. */
  let finals = 0;
  /** Server turn detection: items in speech, and committed items awaiting their transcript. */
  const speaking = new Set<string>();
  const awaiting = new Set<string>();
  let lastCommittedMs = -Infinity;
  /** Audio position the server acknowledged consuming, when it acknowledges at all. */
  let ackedMs: number | undefined;
  let outcome: SessionOutcome | undefined;
  /** Re-checks whatever the session is waiting for; set by the current wait. */
  let recheck: (() => void) | undefined;

  const end = (result: SessionOutcome): void => {
    outcome ??= result;
    recheck?.();
  };
  const fail = (failure: Omit<Failure, 'stage'>): void => end({ status: 'failed', failure: { ...failure, stage } });

  const ws = new WebSocket(adapter.connectUrl(plan.url), {
    headers: { ...adapter.upgradeHeaders(), ...plan.headers },
    perMessageDeflate: false,
    ...plan.socketOptions,
  });

  ws.on('open', () => {
    timeline.openMs = clock.now();
    stage = 'ready'; // frames may arrive before the flow resumes
    recheck?.();
  });
  ws.on('unexpected-response', (request, response) => {
    fail({ class: 'upgrade_status', httpStatus: response.statusCode ?? 0, message: `server answered the WebSocket upgrade with HTTP ${response.statusCode} ${response.statusMessage ?? ''}`.trim() });
    request.destroy();
  });
  ws.on('error', (err: NodeJS.ErrnoException) => fail(classifySocketError(err, stage, plan.url)));
  ws.on('message', (data: RawData, isBinary: boolean) => {
    const t = clock.now();
    const bytes = data as Buffer;
    timeline.framesReceived++;
    timeline.bytesReceived += bytes.length;
    timeline.firstEventMs ??= t;
    if (isBinary) {
      timeline.events.push({ t, type: '(binary)', kind: 'other', turn });
      fail({ class: 'protocol_violation', message: `server sent a binary frame (${bytes.length} bytes); ${adapter.name} speaks JSON text frames` });
      return;
    }
    let event;
    try {
      event = adapter.interpret(bytes.toString('utf8'));
    } catch (err) {
      timeline.events.push({ t, type: '(invalid)', kind: 'other', turn });
      fail({ class: 'protocol_violation', message: (err as Error).message });
      return;
    }
    timeline.events.push({ t, turn, ...event });
    const item = event.itemId ?? '';
    switch (event.kind) {
      case adapter.readyKind:
        timeline.readyMs ??= t;
        break;
      case 'speech_started':
        speaking.add(item);
        break;
      case 'speech_stopped':
        speaking.delete(item);
        break;
      case 'input_committed':
        speaking.delete(item);
        awaiting.add(item);
        lastCommittedMs = t;
        break;
      case 'transcript_final':
        finals++;
        finalsReceived = Math.max(finalsReceived, turn + 1);
        awaiting.delete(item);
        break;
      case 'progress':
        ackedMs = Math.max(ackedMs ?? 0, event.audioEndMs ?? 0);
        if (plan.serverAcks) plan.serverAcks.known = true;
        break;
      case 'error':
      case 'transcript_failed':
        fail({ class: 'server_error', ...(event.code ? { code: event.code } : {}), message: `server error${event.code ? ` ${event.code}` : ''}: ${event.message ?? ''}`.trim() });
    }
    recheck?.();
  });
  ws.on('close', (code: number, reason: Buffer) => {
    timeline.close ??= { t: clock.now(), code, reason: reason.toString(), by: 'server' };
    if (code === 1000 || code === 1005) {
      fail({ class: 'server_closed', closeCode: code, message: `server closed the session (code ${code}) before it was finished` });
    } else {
      fail({ class: 'abnormal_close', closeCode: code, message: `connection closed abnormally with code ${code}${reason.length ? ` (${reason})` : ''}` });
    }
  });

  const onAbort = (): void => end({ status: 'incomplete', reason: plan.signal!.reason as IncompleteReason, stage });
  if (plan.signal?.aborted) onAbort();
  plan.signal?.addEventListener('abort', onAbort, { once: true });

  const send = (frame: Buffer | string, callback?: () => void): number => {
    ws.send(frame, { binary: false }, callback);
    const t = clock.now();
    timeline.framesSent++;
    timeline.bytesSent += typeof frame === 'string' ? Buffer.byteLength(frame) : frame.length;
    return t;
  };

  /**
   * Resolves once `done()` holds or the session has ended. After `limitMs` the stage
   * fails with a timeout naming what it was `waitingFor`; without one, the wait simply ends.
   */
  const until = (next: Stage, done: () => boolean, limitMs: number, waitingFor?: string): Promise<void> => {
    stage = next;
    return new Promise((resolve) => {
      let elapsed = false;
      const deadline = clock.now() + limitMs;
      const expire = (): void => {
        // Timers may fire a fraction of a millisecond early against the clock.
        const left = deadline - clock.now();
        if (left > 0) timer = setTimeout(expire, Math.ceil(left));
        else if (waitingFor !== undefined) fail({ class: 'timeout', message: `timed out after ${limitMs} ms waiting for ${waitingFor}` });
        else {
          elapsed = true;
          recheck?.();
        }
      };
      let timer = setTimeout(expire, limitMs);
      recheck = () => {
        if (outcome || elapsed || done()) {
          clearTimeout(timer);
          recheck = undefined;
          resolve();
        }
      };
      recheck();
    });
  };

  /**
   * Streams one turn's chunks. Paced chunks are due at `t0 + (offsetMs + position) / speed`:
   * deadlines are absolute, so timer lateness never accumulates, within a turn or across
   * the turns of one continuous stream.
   */
  const stream = (prepared: PreparedTurn, offsetMs: number, t0: number): Promise<void> => {
    stage = 'streaming';
    const chunks = prepared.chunks;
    let k = 0;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(timer);
        clearTimeout(probe);
        clearTimeout(stall);
        recheck = undefined;
        resolve();
      };
      recheck = () => {
        if (outcome) done();
      };
      let probe: NodeJS.Timeout | undefined;
      let stall: NodeJS.Timeout | undefined;
      const record = (seq: number, plannedMs: number | null, sentMs: number): void => {
        const chunk = chunks[seq]!;
        timeline.chunks.push({
          seq: timeline.chunks.length,
          turn,
          plannedMs,
          sentMs,
          audioStartMs: offsetMs + chunk.audioStartMs,
          audioEndMs: offsetMs + chunk.audioEndMs,
          bytes: chunk.frame.length,
        });
      };
      if (plan.pace.kind === 'none') {
        let inFlight = 0;
        const windowMs = plan.ackWindowMs ?? DEFAULT_ACK_WINDOW_MS;
        const server = plan.serverAcks ?? {};
        const sentEnd = (): number => timeline.chunks.at(-1)?.audioEndMs ?? 0;
        const acknowledged = (): boolean => {
          if (windowMs === 0 || server.known === false) return true;
          // Within the window, or everything sent so far acknowledged (a window smaller than a chunk).
          if (offsetMs + chunks[k]!.audioEndMs - (ackedMs ?? 0) <= windowMs || sentEnd() <= (ackedMs ?? 0)) return true;
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
        const pump = (): void => {
          if (outcome) return done();
          clearTimeout(stall);
          while (k < chunks.length && inFlight < UNPACED_WINDOW && acknowledged()) {
            inFlight++;
            const seq = k++;
            record(seq, null, send(chunks[seq]!.frame, () => {
              inFlight--;
              if (k === chunks.length && inFlight === 0) done();
              else pump();
            }));
          }
        };
        recheck = pump; // acknowledgements open the window
        return pump();
      }
      const speed = plan.pace.speed;
      const due = (i: number): number => t0 + (offsetMs + chunks[i]!.audioStartMs) / speed;
      const tick = (): void => {
        if (outcome) return done();
        let now = clock.now();
        while (k < chunks.length && due(k) <= now) {
          record(k, due(k), send(chunks[k]!.frame));
          k++;
          now = clock.now();
        }
        if (k === chunks.length) return done();
        timer = setTimeout(tick, Math.ceil(due(k) - now));
      };
      tick();
    });
  };

  /** Sends the mid-stream `session.update` at its time, if one is planned. */
  const scheduleUpdate = (t0: number): NodeJS.Timeout | undefined => {
    if (plan.updateAtMs === undefined) return undefined;
    return setTimeout(() => {
      if (!outcome) timeline.updates.push({ sentMs: send(adapter.sessionUpdateFrame()) });
    }, Math.max(0, t0 + plan.updateAtMs / speedOf(plan.pace) - clock.now()));
  };

  const startTurn = (prepared: PreparedTurn, offsetMs: number): void => {
    timeline.turns.push({
      turn,
      sampleId: prepared.sampleId,
      split: prepared.split,
      reference: prepared.reference,
      ...(prepared.words ? { words: prepared.words.map((w) => ({ word: w.word, endMs: offsetMs + w.endMs })) } : {}),
      audioStartMs: offsetMs,
      speechStartMs: offsetMs + prepared.speechStartMs,
      speechEndMs: offsetMs + prepared.speechEndMs,
      eosSource: prepared.eosSource,
      audioEndMs: offsetMs + prepared.audioMs,
    });
  };

  /** Client turn detection: each turn is committed, and its final awaited, before the next. */
  const clientTurns = async (): Promise<void> => {
    let offsetMs = 0;
    let update: NodeJS.Timeout | undefined;
    for (; turn < plan.turns.length && !outcome; turn++) {
      const prepared = plan.turns[turn]!;
      startTurn(prepared, offsetMs);
      const startFrame = adapter.turnStartFrame();
      if (startFrame) timeline.commits.push({ turn, kind: 'start', sentMs: send(startFrame) });
      const t0 = clock.now();
      update ??= scheduleUpdate(t0);
      await stream(prepared, offsetMs, t0 - offsetMs / speedOf(plan.pace));
      offsetMs += prepared.audioMs;
      if (outcome) break;
      timeline.commits.push({ turn, kind: 'final', sentMs: send(adapter.turnEndFrame()) });
      await until('final', () => finalsReceived > turn, timeouts.finalMs, 'the final transcript');
    }
    clearTimeout(update);
  };

  /**
   * Server turn detection: one continuous stream; the server's VAD commits turns. At the
   * end, speech still in progress is flushed with a commit, then every committed item's
   * transcript is awaited.
   */
  const serverTurns = async (): Promise<void> => {
    const t0 = clock.now();
    const update = scheduleUpdate(t0);
    let offsetMs = 0;
    for (; turn < plan.turns.length && !outcome; turn++) {
      const prepared = plan.turns[turn]!;
      startTurn(prepared, offsetMs);
      await stream(prepared, offsetMs, t0);
      offsetMs += prepared.audioMs;
    }
    clearTimeout(update);
    if (outcome) return;
    turn = plan.turns.length - 1;
    // A server whose VAD lags may still report speech from the end of the stream.
    await until('final', () => finals >= plan.turns.length || speaking.size > 0, SERVER_VAD_GRACE_MS);
    if (outcome) return;
    let flushedMs = -Infinity;
    if (speaking.size > 0) {
      flushedMs = send(adapter.turnEndFrame());
      timeline.commits.push({ turn, kind: 'final', sentMs: flushedMs });
    }
    await until(
      'final',
      () => speaking.size === 0 && awaiting.size === 0 && lastCommittedMs >= flushedMs,
      timeouts.finalMs,
      'the transcripts of all committed turns',
    );
  };

  const flow = async (): Promise<void> => {
    await until('connect', () => timeline.openMs !== undefined, timeouts.connectMs, 'the WebSocket to open');
    await until('ready', () => timeline.readyMs !== undefined, timeouts.readyMs, `the server's ${adapter.readyKind.replace('_', '.')} event`);
    if (outcome) return;
    for (const frame of adapter.sessionFrames()) send(frame);
    await (adapter.turnDetection === 'client' ? clientTurns() : serverTurns());
    if (outcome) return;
    if (plan.idleMs) await until('idle', () => false, plan.idleMs);
    end({ status: 'completed' });
  };

  return flow().then(() => {
    plan.signal?.removeEventListener('abort', onAbort);
    // The timeline is final from here: later socket events must not change what was returned.
    ws.removeAllListeners();
    ws.on('error', () => {});
    if (ws.readyState === WebSocket.OPEN) {
      timeline.close ??= { t: clock.now(), code: 1000, reason: '', by: 'client' };
      ws.close(1000);
    } else {
      ws.terminate();
    }
    return { timeline, outcome: outcome! };
  });
}

function speedOf(pace: Pace): number {
  return pace.kind === 'none' ? 1 : pace.speed;
}

const TLS_CODE = /^(ERR_SSL|ERR_TLS|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/;

function classifySocketError(err: NodeJS.ErrnoException, stage: Stage, url: string): Omit<Failure, 'stage'> {
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return { class: 'connect_refused', message: `connection refused by ${new URL(url).host} (is the server running?)` };
  if (TLS_CODE.test(code)) return { class: 'tls', message: `TLS error: ${err.message}` };
  if (code.startsWith('WS_ERR_')) return { class: 'protocol_violation', message: err.message };
  if (stage === 'connect') return { class: 'connect_error', message: `cannot connect to ${new URL(url).host}: ${err.message}` };
  return { class: 'abnormal_close', closeCode: 1006, message: `connection lost: ${err.message}` };
}
