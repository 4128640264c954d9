import { finalsLedger, type AnomalyReason } from '../timeline/finals.js';
import { optional } from '../util/optional.js';
import { responseLedger, type ResponseAnomaly } from '../timeline/responses.js';
import type { HttpExchange, InputRecord, ReceivedFrame, SentFrame, SessionTimeline, SpeechAnalysis } from '../timeline/types.js';
import { DEFAULT_PLAYBACK_BUFFER_MS, playback, type Playback } from './playback.js';

/**
 * Views: what every metric and renderer reads instead of raw events. A session's view is
 * derived once per timeline and memoized, so splitting into inputs, attributing
 * transcripts and finding chunks happen once, however many metrics and outputs ask.
 * Views only arrange events; scoring transcripts is the metrics' (`metrics/quality.ts`).
 */

/** A stream of text events on one channel. */
export interface TextStream {
  /** Every text event (deltas and finals, anomalies left out), in arrival order. */
  events: ReceivedFrame[];
  /**
   * Events that carried new text: the non-empty deltas; or, when a server sends no
   * non-empty delta at all, its finals that have text.
   */
  textEvents: ReceivedFrame[];
  /** The finals that answered the input: one, or one per server item. */
  finals: ReceivedFrame[];
  /** The last of them. */
  final?: ReceivedFrame;
  /** The finalized text: the finals (one per server item), in order. */
  text?: string;
}

/**
 * An event out of the protocol's order, recorded, counted, never used: a final transcript
 * that answered no input (`timeline/finals.ts`), or a speech-to-speech response event out
 * of its response's order (`timeline/responses.ts`).
 */
export interface Anomaly {
  event: ReceivedFrame;
  reason: AnomalyReason | ResponseAnomaly;
  /** The input in progress when it arrived (with server turn detection, its item's input). */
  input: number;
}

/** An audio stream as it arrived: each chunk's arrival and duration. */
export interface AudioStream {
  chunks: Array<{ t: number; ms: number; bytes: number }>;
  totalMs: number;
  /**
   * The audio the server says it emitted: the largest cumulative duration it reported
   * (vLLM-Omni's `metadata.audio_duration_ms`, so a reset mid-response never adds up
   * twice), else `totalMs` from the payloads' lengths.
   */
  emittedMs: number;
}

export interface ResponseView {
  /** The server's response id, or `input:N` where the dialect gives none. */
  id: string;
  input: number;
  started?: ReceivedFrame;
  done?: ReceivedFrame;
  /** With client turn detection, the commit that asked for it (its input's end control, sent before it started). */
  requested?: SentFrame;
  status: 'done' | 'cancelled' | 'failed' | 'pending';
  text: TextStream;
  transcript: TextStream;
  audio: AudioStream;
  /** Playback of the audio by a player that starts once `bufferMs` is buffered (memoized per buffer). */
  playback(bufferMs: number): Playback;
}

export interface InputView {
  index: number;
  /** The planned input (absent only in timelines that lack it). */
  plan?: InputRecord;
  /** Its media frames (audio or text), in send order. */
  media: SentFrame[];
  startControl?: SentFrame;
  /** The control that ended it: the final commit, end of text, or the flush of a continuous stream. */
  endControl?: SentFrame;
  /** The media frame holding the end of speech (audio inputs). */
  eosFrame?: SentFrame;
  /** HTTP: the request that carried the input, and its response. */
  request?: HttpExchange;
  /** The transcript of the input (speech-to-text). */
  transcript: TextStream;
  /** Server items attributed to this input. */
  items: number;
  /** Anomalies received while it was in progress (finals: its items', with server turn detection). */
  anomalies: Anomaly[];
  /** The well-formed responses that answered it. */
  responses: ResponseView[];
  /** Speech to speech: the response still in progress when this input's speech started to leave (the user spoke over the agent). */
  bargeIn?: { speechSentMs: number; response: ResponseView };
  /** Every frame received while it was in progress, in arrival order. */
  received: ReceivedFrame[];
  /** The audio of its responses, in arrival order (speech generation). */
  audio: AudioStream;
  /** That audio played by a player that starts once the timeline's playback buffer (default 200 ms) is full (memoized). */
  playback(): Playback;
  /** The audio frame holding stream position `ms` (start exclusive, end inclusive). */
  frameAt(ms: number): SentFrame | undefined;
  /** Speech generation: the after-run analysis of the audio received for it. */
  analysis?: SpeechAnalysis;
}

export interface SessionView {
  timeline: SessionTimeline;
  inputs: InputView[];
  /** The well-formed responses: a response any anomaly names is left out of every figure. */
  responses: ResponseView[];
  /** Every anomaly of the session, in arrival order. */
  anomalies: Anomaly[];
  /** Mid-stream settings changes sent. */
  updates: SentFrame[];
}

const memo = new WeakMap<SessionTimeline, SessionView>();

export function sessionView(timeline: SessionTimeline): SessionView {
  let view = memo.get(timeline);
  if (!view) {
    view = buildView(timeline);
    memo.set(timeline, view);
  }
  return view;
}

/**
 * Lets go of a timeline's view once nothing will ask for it again (a session read from
 * the log and digested). A view kept in the memo is kept by every young-generation
 * collection until its timeline is found dead, which V8 decides only afterwards: at
 * 10,000 sessions that copied and promoted 70 MB of views and timelines already done
 * with (issue 38).
 */
export function forgetView(timeline: SessionTimeline): void {
  memo.delete(timeline);
}

/** Controls about the whole session, which do not make an input exist. */
const SESSION_CONTROLS: ReadonlySet<string> = new Set(['session_config', 'session_update', 'event_ack', 'playback_ack', 'heartbeat', 'session_close']);
const TEXT_KINDS: ReadonlySet<string> = new Set(['text_delta', 'text_final']);
const RESPONSE_KINDS: ReadonlySet<string> = new Set(['response_started', 'audio', 'audio_final', 'response_done', 'response_cancelled']);

function buildView(timeline: SessionTimeline): SessionView {
  let count = timeline.inputs.length;
  for (const frame of timeline.sent) if (!SESSION_CONTROLS.has(frame.control ?? '')) count = Math.max(count, frame.input + 1);
  const inputOf = timeline.turnDetection === 'server' ? itemInputs(timeline) : undefined;
  const clamp = (input: number): number => Math.min(input, count - 1);
  /** The input a transcript event is about: its item's, with server turn detection, else the one in progress. */
  const inputOfText = (event: ReceivedFrame): number => clamp((event.itemId !== undefined ? inputOf?.get(event.itemId) : undefined) ?? event.input);
  const flushAnswers = timeline.turnDetection === 'server' ? emptyFlushAnswers(timeline, inputOfText) : undefined;
  // The flush ended no turn when it found nothing to commit (the VAD's commit won the race): commit_to_flush_ms
  // is then absent, as for every turn the server committed.
  const flushFoundNothing =
    (flushAnswers?.size ?? 0) > 0 || timeline.received.some((e) => e.kind === 'error' && e.scope === 'commit' && timeline.turnDetection === 'server');
  const transcripts = Array.from({ length: count }, () => [] as ReceivedFrame[]);
  const items = Array.from({ length: count }, () => new Set<string>());
  const responseFrames = new Map<string, { input: number; frames: ReceivedFrame[] }>();
  const received = Array.from({ length: count }, () => [] as ReceivedFrame[]);
  const ledger = finalsLedger(timeline.turnDetection);
  const controls = timeline.sent.filter((f) => f.kind === 'control');
  let replayed = 0;
  const anomalies: Anomaly[] = [];
  /** Transcript deltas no final has closed yet: the text of their item's next final. */
  let unsettled: ReceivedFrame[] = [];
  /** Deltas of finals that answered no input: never a turn's text. */
  const dropped = new Set<ReceivedFrame>();
  /** Inputs (client turn detection) and server items whose final has arrived: text for them after it is an anomaly. */
  const finalInputs = new Set<number>();
  const finalItems = new Set<string>();
  const responseOrder =
    timeline.task === 's2s'
      ? responseLedger(new Set(timeline.received.flatMap((e) => (e.kind === 'response_started' && e.responseId !== undefined ? [e.responseId] : []))))
      : undefined;
  /** Responses an anomaly names. */
  const illFormed = new Set<string>();
  const firstMediaMs: number[] = [];
  // When each input's content started to leave: its first media frame, or its request.
  for (const frame of timeline.sent) if (frame.kind !== 'control' || frame.control === 'request') firstMediaMs[frame.input] ??= frame.t;
  for (const event of timeline.received) {
    if (count > 0) received[clamp(event.input)]!.push(event);
    if (TEXT_KINDS.has(event.kind) && (event.channel ?? 'input_transcript') === 'input_transcript') {
      if (count === 0) continue;
      if (flushAnswers?.has(event)) continue;
      let input = inputOfText(event);
      if (event.kind === 'text_delta' && timeline.turnDetection === 'client' && !(event.t >= (firstMediaMs[input] ?? Infinity))) {
        anomalies.push({ event, reason: 'stale', input });
        continue;
      }
      const settled = timeline.turnDetection === 'client' ? finalInputs.has(input) : event.itemId !== undefined && finalItems.has(event.itemId);
      if (event.kind === 'text_delta' && event.text && settled) {
        anomalies.push({ event, reason: 'after_final', input });
        continue;
      }
      if (event.kind === 'text_final') {
        // The controls sent before it arrived, so the ledger judges it as the policy did live.
        while (replayed < controls.length && controls[replayed]!.t <= event.t) ledger.sent(controls[replayed++]!);
        const answer = ledger.final(event);
        const own = unsettled.filter((d) => d.itemId === event.itemId);
        unsettled = unsettled.filter((d) => d.itemId !== event.itemId);
        if ('anomaly' in answer) {
          anomalies.push({ event, reason: answer.anomaly, input });
          // Its deltas go with it: a late repeat of an earlier turn's text is never this turn's first text.
          for (const delta of own) dropped.add(delta);
          continue;
        }
        if (timeline.turnDetection === 'client') input = clamp(answer.input);
        finalInputs.add(input);
        if (event.itemId !== undefined) finalItems.add(event.itemId);
      } else {
        unsettled.push(event);
      }
      transcripts[input]!.push(event);
      if (event.itemId !== undefined) items[input]!.add(event.itemId);
    } else if (event.responseId !== undefined || RESPONSE_KINDS.has(event.kind) || (event.channel && event.channel !== 'input_transcript')) {
      const reason = responseOrder?.judge(event);
      if (reason !== undefined) {
        anomalies.push({ event, reason, input: clamp(event.input) });
        illFormed.add(event.responseId!);
        continue;
      }
      const id = event.responseId ?? `input:${event.input}`;
      const group = responseFrames.get(id) ?? { input: event.input, frames: [] };
      group.frames.push(event);
      responseFrames.set(id, group);
    }
  }
  const media = Array.from({ length: count }, () => [] as SentFrame[]);
  const starts: Array<SentFrame | undefined> = [];
  const ends: Array<SentFrame | undefined> = [];
  const updates: SentFrame[] = [];
  for (const frame of timeline.sent) {
    if (frame.silence) continue; // streamed while waiting, of no input
    if (frame.kind !== 'control') media[frame.input]?.push(frame);
    else if (frame.control === 'input_start') starts[frame.input] ??= frame;
    else if (frame.control === 'input_end' || (frame.control === 'flush' && !flushFoundNothing)) ends[frame.input] ??= frame;
    else if (frame.control === 'session_update') updates.push(frame);
  }
  const requests = timeline.transport.kind === 'http' ? timeline.transport.requests : [];
  const eosFrames = media.map((frames, index) => {
    const plan = timeline.inputs[index];
    return plan?.kind === 'audio' ? audioFrameAt(frames, plan.speechEndMs) : undefined;
  });
  const responses = [...responseFrames]
    .filter(([id]) => !illFormed.has(id))
    .map(([id, group]) => {
      const startedMs = group.frames.find((f) => f.kind === 'response_started')?.t ?? group.frames[0]!.t;
      const input = timeline.task === 's2s' ? (answeredInput(eosFrames, startedMs) ?? group.input) : group.input;
      const end = ends[input];
      const requested = timeline.turnDetection === 'client' && end?.control === 'input_end' && end.t <= startedMs ? end : undefined;
      return responseView(id, input, group.frames, requested);
    });
  const inputs = transcripts.map((events, index): InputView => {
    const plan = timeline.inputs[index];
    const frames = media[index]!;
    const frameAt = (ms: number): SentFrame | undefined => audioFrameAt(frames, ms);
    const transcript = textStream(dropped.size > 0 ? events.filter((e) => !dropped.has(e)) : events);
    const answers = responses.filter((r) => r.input === index);
    const audio = answers.length === 1 ? answers[0]!.audio : audioStream(answers.flatMap((r) => r.audio.chunks).sort((a, b) => a.t - b.t));
    let played: Playback | undefined;
    return {
      index,
      ...optional('plan', plan),
      media: frames,
      ...optional('startControl', starts[index]),
      ...optional('endControl', ends[index]),
      ...optional('eosFrame', eosFrames[index]),
      ...optional(
        'request',
        requests.find((r) => r.input === index),
      ),
      transcript,
      items: items[index]!.size,
      anomalies: anomalies.filter((a) => a.input === index),
      responses: answers,
      ...optional('bargeIn', timeline.task === 's2s' && plan?.kind === 'audio' ? bargeInOf(frames, plan.speechStartMs, responses) : undefined),
      received: received[index]!,
      audio,
      playback: () => (played ??= playback(audio.chunks, timeline.playbackBufferMs ?? DEFAULT_PLAYBACK_BUFFER_MS)),
      ...optional(
        'analysis',
        timeline.analysis?.find((a) => a.input === index),
      ),
      frameAt,
    };
  });
  return { timeline, inputs, responses, anomalies, updates };
}

function textStream(events: ReceivedFrame[]): TextStream {
  const finals = events.filter((e) => e.kind === 'text_final');
  const deltas = events.filter((e) => e.kind === 'text_delta' && (e.text ?? '') !== '');
  return {
    events,
    textEvents: deltas.length > 0 ? deltas : finals.filter((e) => e.text),
    finals,
    ...optional('final', finals[finals.length - 1]),
    ...optional('text', finals.length > 0 ? finalTexts(events).join(' ') : undefined),
  };
}

/** Each final's text: its own, or, for a final that carries none (Speechmatics' `EndOfUtterance`), that of the lasting deltas since the last final. */
function finalTexts(events: readonly ReceivedFrame[]): string[] {
  const texts: string[] = [];
  let since = '';
  for (const e of events) {
    if (e.kind === 'text_delta' && !e.provisional) since += e.text ?? '';
    else if (e.kind === 'text_final') {
      texts.push(e.text ?? since.trim());
      since = '';
    }
  }
  return texts;
}

/** The response in progress (started, not yet ended) when the first frame of speech at `speechStartMs` was sent. */
function bargeInOf(frames: readonly SentFrame[], speechStartMs: number, responses: readonly ResponseView[]): InputView['bargeIn'] {
  const speech = frames.find((f) => (f.audioEndMs ?? -Infinity) > speechStartMs);
  if (!speech) return undefined;
  const t = speech.t;
  const response = responses.find((r) => r.started !== undefined && r.started.t <= t && (r.done?.t ?? Infinity) > t);
  return response ? { speechSentMs: t, response } : undefined;
}

/** Speech to speech: a response answers the last input whose end of speech had been sent when it started. */
function answeredInput(eosFrames: ReadonlyArray<SentFrame | undefined>, startedMs: number): number | undefined {
  let answered: number | undefined;
  eosFrames.forEach((frame, index) => {
    if (frame && frame.t <= startedMs) answered = index;
  });
  return answered;
}

function responseView(id: string, input: number, frames: ReceivedFrame[], requested: SentFrame | undefined): ResponseView {
  const started = frames.find((f) => f.kind === 'response_started');
  const done = frames.find((f) => f.kind === 'response_done' || f.kind === 'response_cancelled');
  const failed = frames.some((f) => f.kind === 'error');
  const chunks = frames.filter((f) => f.kind === 'audio').map((f) => ({ t: f.t, ms: f.audioMs ?? 0, bytes: f.audioBytes ?? 0 }));
  const reported = frames.flatMap((f) => (f.kind === 'audio' && f.cumulativeAudioMs !== undefined ? [f.cumulativeAudioMs] : []));
  const onChannel = (channel: string) => textStream(frames.filter((f) => TEXT_KINDS.has(f.kind) && f.channel === channel));
  const played = new Map<number, Playback>();
  return {
    id,
    input,
    ...optional('started', started),
    ...optional('done', done),
    ...optional('requested', requested),
    status: failed ? 'failed' : done?.kind === 'response_cancelled' ? 'cancelled' : done ? 'done' : 'pending',
    text: onChannel('response_text'),
    transcript: onChannel('response_transcript'),
    audio: audioStream(chunks, reported),
    playback(bufferMs) {
      let result = played.get(bufferMs);
      if (!result) played.set(bufferMs, (result = playback(chunks, bufferMs)));
      return result;
    },
  };
}

/** Audio chunks in arrival order, with what the server reported emitting (cumulative durations, when it reports them). */
function audioStream(chunks: AudioStream['chunks'], reported: readonly number[] = []): AudioStream {
  const totalMs = chunks.reduce((sum, c) => sum + c.ms, 0);
  return { chunks, totalMs, emittedMs: reported.length > 0 ? reported.reduce((a, b) => Math.max(a, b)) : totalMs };
}

/**
 * Server turn detection: the finals that only say the client's closing flush found nothing
 * left to transcribe. The client flushes while it still sees speech; when the VAD's stop and
 * commit were already on the wire, a real server commits the silence the stream went on with
 * after the stop as an item of its own, whose final has an empty text. A final with empty
 * text, after the flush, for a turn that has a final with text, is that: no part of the turn,
 * nor an anomaly (the client asked for it), so the turn's final, `finalization_ms` and
 * `ttlt_ms` never depend on who won the race.
 */
function emptyFlushAnswers(timeline: SessionTimeline, inputOf: (event: ReceivedFrame) => number): Set<ReceivedFrame> {
  const answers = new Set<ReceivedFrame>();
  const flushMs = timeline.sent.find((f) => f.control === 'flush')?.t;
  if (flushMs === undefined || timeline.inputs.length === 0) return answers;
  const finals = timeline.received.filter((e) => e.kind === 'text_final' && (e.channel ?? 'input_transcript') === 'input_transcript');
  const withText = new Set(finals.filter((e) => e.text !== '').map(inputOf));
  for (const e of finals) if (e.t > flushMs && e.text === '' && withText.has(inputOf(e))) answers.add(e);
  return answers;
}

/** Binary search over audio frames in stream order. */
function audioFrameAt(frames: readonly SentFrame[], ms: number): SentFrame | undefined {
  let lo = 0;
  let hi = frames.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const frame = frames[mid]!;
    if (frame.audioEndMs === undefined || frame.audioStartMs === undefined) return frames.find((f) => f.audioStartMs! < ms && ms <= f.audioEndMs!);
    if (ms <= frame.audioStartMs) hi = mid - 1;
    else if (ms > frame.audioEndMs) lo = mid + 1;
    else return frame;
  }
  return undefined;
}

/**
 * Server items to planned inputs, by the overlap of the item's speech span (from the
 * server's `speech_started` / `speech_stopped` positions) with each input's audio, so a
 * VAD that splits or merges utterances still lands its text on the right input.
 */
function itemInputs(timeline: SessionTimeline): Map<string, number> {
  const spans = new Map<string, { start?: number; end?: number; input: number }>();
  for (const e of timeline.received) {
    if (e.itemId === undefined) continue;
    const span = spans.get(e.itemId) ?? { input: e.input };
    if (e.kind === 'speech_started' && e.audioStartMs !== undefined) span.start = e.audioStartMs;
    if (e.kind === 'speech_stopped' && e.audioEndMs !== undefined) span.end = e.audioEndMs;
    spans.set(e.itemId, span);
  }
  const result = new Map<string, number>();
  for (const [item, span] of spans) {
    if (span.start === undefined) {
      result.set(item, span.input);
      continue;
    }
    const start = span.start;
    // A stop before its start is no position: vLLM-Omni stops the speech a client's commit cuts at `audio_end_ms` 0.
    const end = span.end !== undefined && span.end >= start ? span.end : start;
    let best = span.input;
    let bestOverlap = -Infinity;
    for (const input of timeline.inputs) {
      if (input.kind !== 'audio') continue;
      const overlap = Math.min(end, input.audioEndMs) - Math.max(start, input.audioStartMs);
      if (overlap > bestOverlap) {
        bestOverlap = overlap;
        best = input.index;
      }
    }
    result.set(item, best);
  }
  return result;
}
