/**
 * The neutral timeline (report version 2): the one data shape shared by every layer,
 * whatever the workload, transport or dialect.
 *
 * A session records what the client planned to send (`inputs`), every frame it sent
 * (`sent`) and every frame it received (`received`), with the transport's own facts.
 * Dialects translate wire frames into `ReceivedFrame`s, runners stamp everything on the
 * run's monotonic clock, views and metrics are pure functions of it, and reports store
 * it so every figure can be recomputed later. All times are milliseconds since the run's
 * clock origin (see `src/clock.ts`).
 */

/** What is exchanged: audio in and text out, text in and audio out, both at once; streamed or as one request. */
export type Task = 'stt' | 'tts' | 's2s' | 'batch_stt' | 'batch_tts';
export const TASKS: readonly Task[] = ['stt', 'tts', 's2s', 'batch_stt', 'batch_tts'];

/** Tasks whose responses are generated speech: streamed, or one body per request. */
export function isSpeechTask(task: string | undefined): boolean {
  return task === 'tts' || task === 'batch_tts';
}

/** Where end of speech comes from: dataset word timings, an energy detector, or the end of the audio. */
export type EosSource = 'label' | 'vad' | 'audio_end';

/**
 * Who ends input units: the client (a commit per utterance, an end of text), or the
 * server, whose voice activity detection commits turns out of one continuous stream.
 */
export type TurnDetection = 'client' | 'server';

/** Who spoke when: one speaker's stretch of speech, ms of the session's audio stream (a reference turn, or a server's labelled words joined). */
export interface SpeakerTurn {
  speaker: string;
  startMs: number;
  endMs: number;
}

/**
 * A word as the server placed and labelled it (Deepgram's `words[]`, Speechmatics'
 * `results[]`, AssemblyAI's turn words), times in ms of the session's audio stream.
 * Kept per word, not per event, because one event can carry the words of two speakers.
 */
export interface ReceivedWord {
  text: string;
  startMs?: number;
  endMs?: number;
  /** The server's label, as sent (Deepgram's number as text; Speechmatics' `UU` is unknown). */
  speaker?: string;
}

/** The no-score zone around each reference turn boundary: `ms` of the zone's whole width centred on the boundary (`per: 'total'`), or `ms` on each side (`per: 'side'`). */
export interface Collar {
  ms: number;
  per: 'total' | 'side';
}

/**
 * The rules speaker attribution is scored by (src/metrics/diarization/rules.ts names
 * which tool each matches), recorded in the timeline once figures are built.
 */
export interface DiarizationRules {
  collar: Collar;
  /** Time where two or more reference speakers talk at once: scored, or left out of every figure. */
  overlap: 'scored' | 'skipped';
  /**
   * The scored time of a recording without a UEM: from the first to the last turn of the
   * reference and hypothesis together (`extents`, as pyannote.metrics and dscore), or of
   * the reference alone. A recording's UEM, where it has one, is its scored time.
   */
  region: 'extents' | 'reference-extent';
  /**
   * DER pairs speakers one to one (Hungarian) for the most time together within the
   * scored time (`scored-time`, pyannote.metrics) or within the whole region, before
   * collars and overlap are taken out (`whole-region`, md-eval and so dscore). The two
   * differ only with a collar or skipped overlap, and then only in confusion.
   */
  mapping: 'scored-time' | 'whole-region';
  /** JER pairs speakers for the most time together (`overlap`, pyannote.metrics' JaccardErrorRate) or the highest summed Jaccard index (`jaccard`, dscore's JER). */
  jerMapping: 'overlap' | 'jaccard';
}

/** One utterance to stream, and where it sits in the session's audio stream (ms from its start). */
export interface AudioInput {
  kind: 'audio';
  index: number;
  sampleId: string;
  split: string;
  /** The dataset's reference transcript, for WER; null when it has none. */
  reference: string | null;
  /** The input's language: the sample's label, else the run's `--language`; unset when neither says. */
  language?: string;
  /** The normalizer (id) its WER and CER are scored with; unset in reports from before it was recorded: voxbench-basic-2. */
  normalizer?: string;
  /** Where each reference word ends in the stream (ms), from the dataset's word timings, when it has them. */
  words?: Array<{ word: string; endMs: number }>;
  /** The sample's reference speaker turns, placed in the stream; absent without turns or past `TURN_LIMIT` of them. */
  turns?: SpeakerTurn[];
  /** Start of the input's audio (silence before the utterance included). */
  audioStartMs: number;
  speechStartMs: number;
  /** End of speech, from `eosSource`. */
  speechEndMs: number;
  eosSource: EosSource;
  /** End of the input's audio (trailing silence included). */
  audioEndMs: number;
}

/** One text to send (to be spoken, or to be answered). */
export interface TextInput {
  kind: 'text';
  index: number;
  sampleId: string;
  split: string;
  text: string;
  /** Characters of `text` (code points), for cost per million characters. */
  chars: number;
}

/** A unit of work the client planned to send. */
export type InputRecord = AudioInput | TextInput;

/** A frame that is not media: what it asked of the server. */
export type Control =
  /** Configures the session once it is ready (e.g. the opening `session.update`). */
  | 'session_config'
  /** Opens an input (e.g. vLLM's non-final commit that starts generation). */
  | 'input_start'
  /** Ends an input and asks for its final result (a final commit, end of text). */
  | 'input_end'
  /** Server turn detection: commits speech still in progress at the end of the stream. */
  | 'flush'
  /** A mid-stream settings change. */
  | 'session_update'
  | 'response_request'
  | 'cancel'
  /** Frames a client sends in reaction to what it receives or on a timer (`WebSocketDialect.reactions`): */
  /** an acknowledgement of a server event by its sequence number, */
  | 'event_ack'
  /** a player's report of the response audio it has played, */
  | 'playback_ack'
  /** a keep-alive, */
  | 'heartbeat'
  /** and the session's orderly end, before the socket closes. */
  | 'session_close'
  /** A request of a request/response transport (HTTP), body included. */
  | 'request';

/** One frame handed to the transport: media (an audio span or a text span) or a named control. */
export interface SentFrame {
  /** Sent, stamped right after the write. */
  t: number;
  /** The input it belongs to. */
  input: number;
  bytes: number;
  kind: 'audio' | 'text' | 'control';
  /** Media: when the pacer meant to send it; null when unpaced. A control sent on a schedule (a mid-stream `session_update`): when it was due. */
  plannedMs?: number | null;
  /** Audio: position in the session's audio stream, ms. */
  audioStartMs?: number;
  audioEndMs?: number;
  /** Audio: silence the client streamed while it waited between utterances (`--wait-audio silence`), part of no input's media. */
  silence?: true;
  /** Text: the characters of the input's text it carries, [start, end). */
  charStart?: number;
  charEnd?: number;
  control?: Control;
}

/** What a received frame means, whatever the dialect called it. */
export type ReceivedKind =
  | 'ready'
  | 'updated'
  | 'speech_started'
  | 'speech_stopped'
  | 'committed'
  | 'text_delta'
  | 'text_final'
  | 'text_failed'
  | 'response_started'
  | 'audio'
  | 'audio_final'
  | 'response_done'
  | 'response_cancelled'
  /** The server's acknowledgement of audio consumed (`audioEndMs`). */
  | 'progress'
  | 'error'
  | 'other';

/** Which text a text event carries: a transcript of the input, a response's text, or the transcript of a response's audio. */
export type TextChannel = 'input_transcript' | 'response_text' | 'response_transcript';

export interface ReceivedFrame {
  /** Receive time, taken before the frame is parsed. */
  t: number;
  /** The wire `type` as sent, for people and for later re-interpretation. */
  type: string;
  kind: ReceivedKind;
  /** The input being sent or awaited when the frame arrived. */
  input: number;
  /** The server's id of the input item (conversation item) the event is about. */
  itemId?: string;
  /** The server's id of the response the event belongs to. */
  responseId?: string;
  channel?: TextChannel;
  /** Text carried by the event (may be empty: empty deltas never count as text). A final without it closes the deltas before it: their text is its own. */
  text?: string;
  /** The speaker the server labelled the text with (AssemblyAI `speaker_label`), as sent. */
  speaker?: string;
  /** The text's words with their times and speakers, where the server labels speakers (kept only then). */
  words?: ReceivedWord[];
  /**
   * A partial hypothesis of the text after the last lasting text (Speechmatics' and Scribe's
   * partials), which the next partial or lasting text replaces: it counts as text received,
   * never as words of the transcript.
   */
  provisional?: true;
  /** Set when `text` was cut to the session's limits (src/session/bounds.ts): the full text's length and SHA-256. */
  truncated?: { chars: number; sha256: string };
  /** Audio carried by the event: payload bytes, and their duration from the payload's length (never decoded here). */
  audioBytes?: number;
  audioMs?: number;
  /** Audio: the response's audio so far as the server counts it (vLLM-Omni's cumulative `metadata.audio_duration_ms`). */
  cumulativeAudioMs?: number;
  /** The server's sequence number of the event (vLLM-Omni `server_event_seq`), which the client acknowledges. */
  serverSeq?: number;
  /** A response's start: the latencies the server measured itself, with where it measured from. */
  serverMetrics?: { ttftMs?: number; ttfpMs?: number; origin?: string };
  /** Audio positions the server reports (VAD speech start and end; for `progress`, audio consumed so far; for a transcript event, the audio it transcribes: Deepgram's `start`, `start + duration`), ms of the input stream. */
  audioStartMs?: number;
  audioEndMs?: number;
  /** `progress` that counts frames, not time (Speechmatics' `AudioAdded.seq_no`): the audio frames taken so far; the runner sets `audioEndMs` to the end of the last. */
  audioFrames?: number;
  code?: string;
  message?: string;
  /**
   * Errors: whether the dialect says it ends the session, fails one response, refuses one mid-stream settings
   * update (the session goes on with its settings: Deepgram's `ConfigureFailure`), or refuses a commit for want
   * of uncommitted audio (OpenAI's `input_audio_buffer_commit_empty`, vLLM-Omni's `input_audio_buffer_empty`: after the closing flush of a server-VAD
   * stream, the VAD had committed everything first, so it is benign there; see `stt-policy.ts`).
   */
  scope?: 'session' | 'response' | 'update' | 'commit';
  /** What the server reported about its work (token counts, timings), as numbers under their wire names, and where it said so. */
  usage?: { source: string; values: Record<string, number> };
}

export interface CloseRecord {
  t: number;
  code: number;
  reason: string;
  by: 'client' | 'server';
}

export interface WebSocketTransport {
  kind: 'websocket';
  /** The client's TCP port, to find the connection in a packet capture or a server's log. */
  localPort?: number;
  openMs?: number;
  firstReceivedMs?: number;
  readyMs?: number;
  close?: CloseRecord;
  /** Audio published over HTTP beside the socket (Livepeer's Trickle channel): the opening request and each segment. */
  channel?: ChannelRecord;
}

/** A session whose audio goes over HTTP while its events come over the WebSocket. */
export interface ChannelRecord {
  /** The request that opened the session: sent, and answered (status). */
  openStartMs: number;
  openEndMs?: number;
  openStatus?: number;
  segments: PublishedSegment[];
  /** The request that ended the audio (its end of input). */
  endMs?: number;
  /** A session that ended before its end of input: when it closed its channel all the same, so the app stops reading it and the next session starts on a clean one. */
  closedMs?: number;
}

/** One segment of published audio: its request, what the server answered, and when the server acknowledged consuming it. */
export interface PublishedSegment {
  startMs: number;
  /** The last byte of its body written. */
  endMs?: number;
  bytes: number;
  /** Where its audio ends in the session's stream, ms. */
  audioEndMs: number;
  status?: number;
  /** The server's sequence number for it (`Lp-Trickle-Seq`). */
  seq?: number;
  /** The server's acknowledgement of the audio through its end received. */
  ackMs?: number;
  /** Why it counts as lost: refused as gone (a 470), or never acknowledged. */
  lost?: string;
}

/** One HTTP request and its response. */
export interface HttpExchange {
  input: number;
  startMs: number;
  /** The last byte of the body written. */
  uploadEndMs?: number;
  /** Response headers received. */
  headersMs?: number;
  status?: number;
  /** The response body complete (or cut). */
  endMs?: number;
  /** Whether the request went over a kept-alive connection (the attempt that got the answer, after a retry). */
  reusedConnection?: boolean;
  /**
   * Times the request was sent again on a new connection because a kept-alive one died
   * before any byte of its answer (at most 1); the times above are then the last attempt's.
   */
  retries?: number;
  /** The server's own timings from its response headers (`server-timing` durations, `openai-processing-ms`), ms by name. */
  serverTiming?: Record<string, number>;
}

export interface HttpTransport {
  kind: 'http';
  requests: HttpExchange[];
}

export interface Counters {
  bytesSent: number;
  bytesReceived: number;
  framesSent: number;
  framesReceived: number;
}

/** What a client asked of the server beyond its inputs. */
export interface AskedFor {
  /** Speech generation: the voice and the audio format asked for. */
  voice?: string;
  format?: string;
  /** The audio's sample rate: of the audio sent (transcription, speech to speech), or asked for (speech generation), Hz. */
  sampleRate?: number;
}

export interface SessionTimeline {
  task: Task;
  turnDetection: TurnDetection;
  /** When the load profile meant the session to start; `startMs` is when it did (connect or first request). */
  plannedStartMs: number;
  startMs: number;
  inputs: InputRecord[];
  sent: SentFrame[];
  received: ReceivedFrame[];
  transport: WebSocketTransport | HttpTransport;
  counters: Counters;
  /** Speech generation: the audio the listener's simulated player buffers before it starts, ms (default 200). */
  playbackBufferMs?: number;
  /** Speech generation: the after-run analysis of each input's received audio (computed once its benchmark has finished). */
  analysis?: SpeechAnalysis[];
  /** Events received past the session's `--max-session-events`: counted, not kept (the session failed as `answer_too_large`). */
  overflow?: ReceivedOverflow;
  /** What the client asked for (voice, format, sample rate), where known; absent in reports from before it was recorded. */
  asked?: AskedFor;
  /** The rules its speaker labels are scored by, set from the run's when figures are built (as each input's normalizer); pyannote.metrics' defaults when absent. */
  diarizationRules?: DiarizationRules;
}

/** What a session received past the events it keeps (src/session/session-caps.ts). */
export interface ReceivedOverflow {
  events: number;
  /** Audio payload bytes and duration those events carried. */
  audioBytes: number;
  audioMs: number;
  /** Characters of text they carried, and the SHA-256 of that text joined in arrival order (absent when none). */
  textChars: number;
  textSha256?: string;
  /** Arrival of the first and the last of them. */
  firstMs: number;
  lastMs: number;
}

/** What the after-run analysis found in one input's received audio; never computed while sessions run. */
export interface SpeechAnalysis {
  input: number;
  /** The audio as decoded: its duration and sample rate. */
  audioMs: number;
  sampleRate: number;
  /** Silence before the first audible 10 ms frame (energy onset); null when none is audible. */
  leadingSilenceMs: number | null;
  /** Samples at full scale, and 20 ms frames below the speech threshold, as shares of the audio. */
  clippingRatio: number;
  silenceRatio: number;
  /** Where the audio disagrees with what was declared (rate, sample format, whole samples); empty when it agrees. */
  formatProblems: string[];
  /** Set when the session's audio limit kept only part of the audio: the figures are of that part. */
  truncated?: true;
  /** The round trip: the audio transcribed by a transcription server, scored against the text sent. */
  asr?: AsrResult;
}

export type AsrResult =
  | {
      target: string;
      protocol: string;
      model: string;
      normalizer: string;
      text: string;
      errors: { substitutions: number; deletions: number; insertions: number; words: number };
    }
  | { target: string; protocol: string; model: string; error: string };

/** The stage a session was in when it stopped; timeouts name it. HTTP: writing the request, awaiting its status, reading its body. */
export type Stage = 'connect' | 'ready' | 'streaming' | 'final' | 'idle' | 'upload' | 'status' | 'body';

export type FailureClass =
  | 'connect_refused'
  | 'connect_error'
  | 'upgrade_status'
  | 'http_status'
  | 'tls'
  | 'timeout'
  | 'abnormal_close'
  | 'server_closed'
  /** An HTTP connection that closed or reset before the response's status line. */
  | 'connection_lost'
  /** An HTTP response body that ended before the dialect saw it complete. */
  | 'stream_cut'
  /** The server sent more than a session keeps or takes: `--max-session-events`, `--max-session-mb`. */
  | 'answer_too_large'
  | 'server_error'
  /** A successful speech answer whose body is not audio (an error page, a JSON error). */
  | 'not_audio'
  /** Audio the client published that the server never consumed (a Trickle segment gone, or never acknowledged). */
  | 'audio_lost'
  /** The server never acknowledged any audio it read (Livepeer's app sent no `progress`): the client, which publishes the next segment only once the last is acknowledged, cannot go on. */
  | 'no_backpressure'
  /** The server handed this session a session (its id, channel or stream) another session of the run was still using: their audio would mix, so it was not run. */
  | 'shared_session'
  | 'protocol_violation';

export interface Failure {
  class: FailureClass;
  stage: Stage;
  message: string;
  /** HTTP status of a refused upgrade or a failed request. */
  httpStatus?: number;
  /** WebSocket close code. */
  closeCode?: number;
  /** Error code sent by the server. */
  code?: string;
}

/** Why a session was cut: a time limit, Ctrl-C (or SIGTERM, SIGHUP), or one of the level's error rules (load/error-stop.ts). */
export type IncompleteReason = 'max_seconds' | 'interrupted' | 'max_errors' | 'error_rate' | 'unreachable';

export type SessionOutcome =
  { status: 'completed' } | { status: 'failed'; failure: Failure } | { status: 'incomplete'; reason: IncompleteReason; stage: Stage };

/** Everything recorded about one session: identity, plan, timeline, outcome. */
export interface SessionRecord {
  /** Index of the session within its benchmark, in start order. */
  index: number;
  /** The samples the session was planned to send, one per input (even if it failed before sending). */
  sampleIds: string[];
  split: string;
  /**
   * Set when an earlier run measured this session and a resumed run kept it: that
   * run's start. Its times are moved onto this run's clock, and throughput counts each
   * run's own span, not the gap between them.
   */
  resumedFrom?: string;
  /**
   * Closed loop: when the session's lane started, ms after the benchmark start: its
   * phase, as lanes start spread over one chunk period (or `--ramp-up-s`).
   */
  laneOffsetMs?: number;
  timeline: SessionTimeline;
  outcome: SessionOutcome;
}

/** When a session ended: its close or last response, else its last recorded moment. */
export function sessionEndMs(timeline: SessionTimeline): number {
  const { transport } = timeline;
  if (transport.kind === 'websocket' && transport.close) return transport.close.t;
  let end = timeline.startMs;
  for (const frame of timeline.sent) if (frame.t > end) end = frame.t;
  for (const frame of timeline.received) if (frame.t > end) end = frame.t;
  if (timeline.overflow && timeline.overflow.lastMs > end) end = timeline.overflow.lastMs;
  if (transport.kind === 'http') for (const r of transport.requests) if (r.endMs !== undefined && r.endMs > end) end = r.endMs;
  return end;
}

/** The same timeline with every time moved by `deltaMs`: to put timelines from different clocks on one. */
export function shiftTimeline(timeline: SessionTimeline, deltaMs: number): SessionTimeline {
  const at = (t: number): number => t + deltaMs;
  const maybe = (t: number | undefined): number | undefined => (t === undefined ? undefined : at(t));
  const { transport } = timeline;
  return {
    ...timeline,
    plannedStartMs: at(timeline.plannedStartMs),
    startMs: at(timeline.startMs),
    sent: timeline.sent.map((f) => ({ ...f, t: at(f.t), ...(typeof f.plannedMs === 'number' ? { plannedMs: at(f.plannedMs) } : {}) })),
    received: timeline.received.map((f) => ({ ...f, t: at(f.t) })),
    ...(timeline.overflow ? { overflow: { ...timeline.overflow, firstMs: at(timeline.overflow.firstMs), lastMs: at(timeline.overflow.lastMs) } } : {}),
    transport:
      transport.kind === 'websocket'
        ? defined({
            kind: 'websocket' as const,
            openMs: maybe(transport.openMs),
            firstReceivedMs: maybe(transport.firstReceivedMs),
            readyMs: maybe(transport.readyMs),
            close: transport.close ? { ...transport.close, t: at(transport.close.t) } : undefined,
          })
        : {
            kind: 'http',
            requests: transport.requests.map((r) =>
              defined({ ...r, startMs: at(r.startMs), uploadEndMs: maybe(r.uploadEndMs), headersMs: maybe(r.headersMs), endMs: maybe(r.endMs) }),
            ),
          },
  };
}

/** The object without its undefined fields, so optional fields stay absent in stored JSON. */
export function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * A level's connect phase, as one session sees it: the session says once it is ready
 * to stream (or has ended without getting there), and streams from `startAt`, a time
 * on the session's clock, so that no session's connect and handshake runs while
 * another's chunks are due. `ready` may be called more than once; the first counts.
 */
export interface StreamGate {
  ready(): void;
  readonly startAt: Promise<number>;
}
