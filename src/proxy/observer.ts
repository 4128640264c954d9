import type { CompletionPolicy, WebSocketDialect } from '../dialects/dialect.js';
import { decoderOf, ProtocolViolation } from '../dialects/dialect.js';
import { AudioFrameEnds } from '../session/audio-frame-ends.js';
import { TEXT_LIMITS } from '../dialects/text-limits.js';
import { TextBudget } from '../session/bounds.js';
import { cutTextFailure } from '../session/session-caps.js';
import { classifySocketError, newTimeline } from '../session/runner.js';
import {
  isSpeechTask,
  type AskedFor,
  type AudioInput,
  type Control,
  type Failure,
  type SentFrame,
  type SessionOutcome,
  type SessionRecord,
  type SessionTimeline,
  type Stage,
  type TextInput,
  type TurnDetection,
  type WebSocketTransport,
} from '../timeline/types.js';
import type { ConnectionHooks } from './relay.js';

/** What the proxy hears of a session: it reached the server, and it ended (once). */
export interface SessionEvents {
  opened(session: ObservedSession): void;
  ended(record: SessionRecord, session: ObservedSession): void;
}

/** A dialect the proxy can read a connection with. */
export type MeteredDialect = WebSocketDialect & Required<Pick<WebSocketDialect, 'readSent'>>;

/** What a connection's dialect is read with, as the client's configuration says: who ends turns, and the rate the server's audio is in. */
export interface MeterSettings {
  turnDetection: TurnDetection;
  outputRate: number;
}

/** Close codes that end a session normally: normal closure, going away, none given. */
const NORMAL_CLOSES = new Set([1000, 1001, 1005]);

/**
 * One proxied connection, metered passively: the neutral timeline the benchmark's
 * runner would have recorded, built from copies of the frames as the proxy sees them.
 * Client frames become `sent` (the dialect's `readSent`: audio spans from the payload's
 * length, text pieces by their characters, controls by name), server frames `received`
 * (the dialect's `decode`, audio measured but not kept), both stamped on arrival at the
 * proxy. Inputs are what the client ended: an input opens with its first audio, text or
 * start control and ends with its end control (for speech generation, the send that
 * forces synthesis, TTFA's anchor), its end of speech the end of its audio
 * (`eos_source: audio_end`: the proxy knows no dataset, so no reference either). Under
 * server turn detection, once the session ends, the one stream is cut into an input
 * per utterance the server's VAD found (at each speech start after the first), its end
 * of speech where the server said (`eos_source: vad`).
 * The dialect's completion policy judges server errors as in a benchmark; the outcome
 * comes from them and from the close. The dialect is read with what the client asked
 * for (`meter`): a change of who ends turns starts the policy over on what it has seen,
 * and a PCM rate the client names sizes the server's audio that follows.
 */
export class ObservedSession implements ConnectionHooks {
  readonly timeline: SessionTimeline;
  private readonly transport: WebSocketTransport = { kind: 'websocket' };
  private readonly text = new TextBudget();
  private readonly frameEnds = new AudioFrameEnds();
  private dialect: MeteredDialect;
  /** The dialect's decoder for this connection (a new one when the dialect is rebuilt). */
  private decode: WebSocketDialect['decode'];
  private policy: CompletionPolicy;
  private failure: (Omit<Failure, 'stage'> & { stage: Stage }) | undefined;
  private input = 0;
  private inputOpen = false;
  private streamMs = 0;
  /** Characters of the client's text (speech generation) still kept, all inputs together. */
  private textLeft = TEXT_LIMITS.sessionChars;
  private configured = false;
  /** The model the client's session configuration (else its URL) named, else ''. */
  model = '';
  /** The voice and format its configuration asked for, where it named them. */
  private readonly asked: AskedFor = {};
  /** Cleared once the session is told ended: the record is final. */
  private events: SessionEvents | undefined;

  constructor(
    private readonly index: number,
    startMs: number,
    /** The dialect with these settings. */
    private readonly meter: (settings: MeterSettings) => MeteredDialect,
    private settings: MeterSettings,
    private readonly upstreamUrl: string,
    events: SessionEvents,
  ) {
    this.dialect = meter(settings);
    this.decode = decoderOf(this.dialect);
    this.timeline = newTimeline(this.dialect.task, settings.turnDetection, startMs, startMs, this.transport);
    this.policy = this.dialect.policy();
    this.events = events;
  }

  /** Whether both sides were upgraded (the connection reached the server). */
  get upgraded(): boolean {
    return this.transport.openMs !== undefined;
  }

  opened(t: number): void {
    this.transport.openMs = t;
    this.events?.opened(this);
  }

  refused(_t: number, status: number, error?: NodeJS.ErrnoException): void {
    const failure = error
      ? classifySocketError(error, 'connect', this.upstreamUrl)
      : { class: 'upgrade_status' as const, httpStatus: status, message: `server answered the WebSocket upgrade with HTTP ${status}` };
    this.fail(failure);
    this.end();
  }

  clientFrame(t: number, data: Buffer, isBinary: boolean): void {
    if (!this.events) return; // ended: the record is final
    const { counters, sent } = this.timeline;
    counters.framesSent++;
    counters.bytesSent += data.length;
    const reading = this.dialect.readSent(data, isBinary);
    if ((reading.kind === 'text' || reading.kind === 'control') && reading.outputRate !== undefined && reading.outputRate !== this.settings.outputRate) {
      this.settings = { ...this.settings, outputRate: reading.outputRate };
      this.dialect = this.meter(this.settings);
      this.decode = decoderOf(this.dialect);
    }
    if (reading.kind === 'text') {
      this.openInput();
      const current = this.timeline.inputs[this.input] as TextInput;
      const charStart = current.chars;
      current.chars += codePoints(reading.text);
      const kept = reading.text.slice(0, Math.max(0, this.textLeft));
      this.textLeft -= kept.length;
      current.text += kept;
      if (reading.model !== undefined) this.model ||= reading.model.slice(0, TEXT_LIMITS.fieldChars);
      sent.push({ t, input: this.input, bytes: data.length, kind: 'text', plannedMs: null, charStart, charEnd: current.chars });
      // The same frame forces synthesis: an end of input, carried by it (so no bytes of its own).
      if (reading.ends) this.sendControl(t, 0, 'input_end');
      return;
    }
    if (reading.kind === 'audio') {
      this.openInput();
      const audioStartMs = this.streamMs;
      this.streamMs += (reading.pcmBytes / 2 / this.dialect.sampleRate) * 1000;
      this.frameEnds.sent(this.streamMs);
      sent.push({ t, input: this.input, bytes: data.length, kind: 'audio', plannedMs: null, audioStartMs, audioEndMs: this.streamMs });
      const current = this.timeline.inputs[this.input] as AudioInput;
      current.speechEndMs = current.audioEndMs = this.streamMs;
      return;
    }
    if (reading.kind !== 'control') return;
    if (reading.model !== undefined) this.model = reading.model.slice(0, TEXT_LIMITS.fieldChars);
    if (reading.voice !== undefined) this.asked.voice = reading.voice.slice(0, TEXT_LIMITS.fieldChars);
    if (reading.format !== undefined) this.asked.format = reading.format.slice(0, TEXT_LIMITS.fieldChars);
    if (reading.control === 'session_config' && reading.turnDetection !== undefined) this.detectTurnsBy(reading.turnDetection);
    this.sendControl(t, data.length, reading.control);
  }

  /** A control the client sent, as the benchmark's runner records it. */
  private sendControl(t: number, bytes: number, sent: Control): void {
    let control = sent;
    if (control === 'session_config') {
      if (this.configured) control = 'session_update';
      this.configured = true;
    } else if (control === 'input_start') {
      this.inputOpen = false; // a start control always opens the next input
      this.openInput();
    } else if (control === 'input_end') {
      if (this.timeline.turnDetection === 'server') control = 'flush';
      else this.openInput();
    }
    const frame: SentFrame = { t, input: this.input, bytes, kind: 'control', control };
    this.timeline.sent.push(frame);
    this.policy.controlSent(frame);
    if (control === 'input_end') this.inputOpen = false;
  }

  serverFrame(t: number, data: Buffer, isBinary: boolean): void {
    if (!this.events) return;
    const { counters, received } = this.timeline;
    counters.framesReceived++;
    counters.bytesReceived += data.length;
    this.transport.firstReceivedMs ??= t;
    let events;
    try {
      events = this.decode(data, isBinary);
    } catch (err) {
      received.push({ t, type: isBinary ? '(binary)' : '(invalid)', kind: 'other', input: this.input });
      this.fail({ class: 'protocol_violation', message: err instanceof ProtocolViolation ? err.message : `cannot decode a frame: ${(err as Error).message}` });
      return;
    }
    for (const { payload: _audio, ...event } of events) {
      // Audio is measured, never kept: the record stays small whatever the server speaks.
      const frame = { t, input: this.input, ...this.text.bound(this.frameEnds.place(event)) };
      received.push(frame);
      // A cut text is not what the server said: the session gives no figures, as in a benchmark.
      if (frame.truncated) this.fail(cutTextFailure(frame, frame.truncated.chars));
      const verdict = this.policy.observe(frame);
      if (this.policy.ready) this.transport.readyMs ??= t;
      if (verdict) this.fail(verdict.end);
    }
  }

  unreadable(_t: number, side: 'client' | 'server', message: string): void {
    this.fail({
      class: 'protocol_violation',
      message: `the proxy cannot read the ${side}'s frames (${message}); the connection is still forwarded but no longer metered`,
    });
  }

  closed(t: number, code: number, reason: string, by: 'client' | 'server'): void {
    if (!this.events) return;
    this.transport.close = { t, code, reason, by };
    if (!NORMAL_CLOSES.has(code)) {
      const named = this.dialect.closeReasonCode?.(reason);
      this.fail({
        class: 'abnormal_close',
        closeCode: code,
        ...(named !== undefined ? { code: named } : {}),
        message: `connection closed abnormally by the ${by} with code ${code}${reason ? ` (${reason})` : ''}`,
      });
    } else if (by === 'server' && this.unanswered()) {
      this.fail({ class: 'server_closed', closeCode: code, message: `server closed the session (code ${code}) before every input had its final transcript` });
    }
    this.end();
  }

  /** The proxy stops with the connection still open: the session is incomplete. */
  interrupt(): void {
    this.end({ status: 'incomplete', reason: 'interrupted', stage: this.stage() });
  }

  private end(outcome: SessionOutcome = this.failure ? { status: 'failed', failure: this.failure } : { status: 'completed' }): void {
    const events = this.events;
    if (!events) return;
    this.events = undefined;
    if (this.timeline.turnDetection === 'server') this.splitServerTurns();
    // The rate the audio was read at: sent, or (speech generation) asked for.
    this.timeline.asked = { ...this.asked, sampleRate: this.dialect.sampleRate };
    events.ended({ ...this.identity(), outcome }, this);
  }

  /**
   * Server turn detection: the stream as one input per utterance the server detected.
   * Input k runs from the start of utterance k (the stream's start for the first) to
   * that of utterance k+1, so each server item lies in its own input; audio frames go
   * to the input their audio starts in, and the flush stays with the last.
   */
  private splitServerTurns(): void {
    const { received, sent } = this.timeline;
    const starts = received.filter((e) => e.kind === 'speech_started' && e.audioStartMs !== undefined).map((e) => e.audioStartMs!);
    const stops = received.filter((e) => e.kind === 'speech_stopped' && e.audioEndMs !== undefined).map((e) => e.audioEndMs!);
    if (starts.length === 0) return;
    const bounds = [0, ...starts.slice(1), this.streamMs];
    this.timeline.inputs = starts.map((speechStartMs, index): AudioInput => ({
      kind: 'audio',
      index,
      sampleId: `observed:${this.index}.${index}`,
      split: 'observed',
      reference: null,
      audioStartMs: bounds[index]!,
      speechStartMs,
      speechEndMs: stops[index] ?? bounds[index + 1]!,
      eosSource: stops[index] !== undefined ? 'vad' : 'audio_end',
      audioEndMs: bounds[index + 1]!,
    }));
    const last = starts.length - 1;
    let input = 0;
    for (const frame of sent) {
      if (frame.kind === 'audio') while (input < last && frame.audioStartMs! >= bounds[input + 1]!) input++;
      frame.input = frame.control === 'flush' ? last : frame.kind === 'audio' ? input : 0;
    }
  }

  private identity(): Omit<SessionRecord, 'outcome'> {
    const { inputs } = this.timeline;
    return { index: this.index, sampleIds: inputs.map((i) => `observed:${this.index}.${i.index}`), split: 'observed', timeline: this.timeline };
  }

  private fail(failure: Omit<Failure, 'stage'>): void {
    this.failure ??= { ...failure, stage: this.stage() };
  }

  private stage(): Stage {
    if (this.transport.openMs === undefined) return 'connect';
    if (this.transport.readyMs === undefined) return 'ready';
    return this.inputOpen || this.timeline.inputs.length === 0 ? 'streaming' : 'final';
  }

  /** Whether an input the client ended still awaits its final. */
  private unanswered(): boolean {
    const ended = new Set(this.timeline.sent.filter((f) => f.control === 'input_end').map((f) => f.input));
    return [...ended].some((i) => !this.policy.inputDone(i));
  }

  private openInput(): void {
    if (this.inputOpen) return;
    this.inputOpen = true;
    const { inputs } = this.timeline;
    this.input = inputs.length;
    if (isSpeechTask(this.timeline.task)) {
      inputs.push({ kind: 'text', index: this.input, sampleId: `observed:${this.index}.${this.input}`, split: 'observed', text: '', chars: 0 });
      return;
    }
    const at = this.streamMs;
    inputs.push({
      kind: 'audio',
      index: this.input,
      sampleId: `observed:${this.index}.${this.input}`,
      split: 'observed',
      reference: null,
      audioStartMs: at,
      speechStartMs: at,
      speechEndMs: at,
      eosSource: 'audio_end',
      audioEndMs: at,
    });
  }

  /** The client's configuration says who ends turns: the policy starts over and replays what it has seen. */
  private detectTurnsBy(turnDetection: TurnDetection): void {
    if (turnDetection === this.timeline.turnDetection) return;
    this.timeline.turnDetection = turnDetection;
    this.settings = { ...this.settings, turnDetection };
    this.dialect = this.meter(this.settings);
    this.decode = decoderOf(this.dialect);
    this.policy = this.dialect.policy();
    for (const frame of this.timeline.received) this.policy.observe(frame);
    for (const frame of this.timeline.sent) if (frame.kind === 'control') this.policy.controlSent(frame);
  }
}

/** Characters of `text` as the benchmark counts them: code points. */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
