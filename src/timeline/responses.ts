import type { ReceivedFrame } from './types.js';

/**
 * Whether a speech-to-speech response event is in order. The completion policy asks as
 * events arrive, and the views replay a stored timeline through the same rules, so what
 * ended a wait and what the figures count agree. A response is created once, carries
 * its audio, and ends once; vLLM-Omni ends it with a terminal `response.listen` that a
 * `response.done` then follows. An event out of that order is a protocol anomaly: it
 * starts, ends or answers nothing, and the response it names is left out of every
 * figure. Only events that carry a response id are judged.
 */
export type ResponseAnomaly =
  /** A done (or cancel) before its `response.created`: a premature done, whose response comes after it. */
  | 'done_before_created'
  /** A done for a response id never created. */
  | 'unknown_response_done'
  /** A second done for one response. */
  | 'duplicate_done'
  /** Audio for a response after its done. */
  | 'audio_after_done'
  /** A second `response.created` for one id. */
  | 'duplicate_created'
  /** A cumulative `audio_duration_ms` that is negative or absurd (see `plausibleDuration`). */
  | 'bad_audio_duration';

const RESPONSE_ANOMALIES: Record<ResponseAnomaly, true> = {
  done_before_created: true,
  unknown_response_done: true,
  duplicate_done: true,
  audio_after_done: true,
  duplicate_created: true,
  bad_audio_duration: true,
};

export function isResponseAnomaly(reason: string): reason is ResponseAnomaly {
  return Object.hasOwn(RESPONSE_ANOMALIES, reason);
}

export interface ResponseLedger {
  /** A received event: undefined when it is in order (or names no response), else why not. */
  judge(event: ReceivedFrame): ResponseAnomaly | undefined;
}

/**
 * `createdLater`: ids that a `response.created` names anywhere in the session, which only
 * a view of the whole timeline knows; it tells a premature done from an unknown one
 * (live the two look alike, and are treated alike).
 */
export function responseLedger(createdLater: ReadonlySet<string> = new Set()): ResponseLedger {
  const responses = new Map<string, { state: 'open' | 'listened' | 'done'; receivedMs: number }>();
  return {
    judge(event) {
      const id = event.responseId;
      if (id === undefined) return undefined;
      const response = responses.get(id);
      switch (event.kind) {
        case 'response_started':
          if (response) return 'duplicate_created';
          responses.set(id, { state: 'open', receivedMs: 0 });
          return undefined;
        case 'response_done':
        case 'response_cancelled':
          if (!response) return createdLater.has(id) ? 'done_before_created' : 'unknown_response_done';
          if (response.state === 'done' || (response.state === 'listened' && event.type === 'response.listen')) return 'duplicate_done';
          response.state = response.state === 'open' && event.type === 'response.listen' ? 'listened' : 'done';
          return undefined;
        case 'audio':
          if (!response) return undefined;
          if (response.state !== 'open') return 'audio_after_done';
          response.receivedMs += event.audioMs ?? 0;
          return event.cumulativeAudioMs === undefined || plausibleDuration(event.cumulativeAudioMs, response.receivedMs) ? undefined : 'bad_audio_duration';
        default:
          return undefined;
      }
    },
  };
}

/**
 * A server's cumulative duration against the audio received for the response so far: it
 * may restart mid-response (smaller), but never be negative, and a count beyond twice
 * what arrived, plus a second of slack for rounding and framing, describes audio that
 * was never sent.
 */
function plausibleDuration(reportedMs: number, receivedMs: number): boolean {
  return Number.isFinite(reportedMs) && reportedMs >= 0 && reportedMs <= 2 * receivedMs + 1000;
}

/**
 * When the answer sounding at `t` began to sound: the first audio of the response that
 * last sent audio by `t`, unless that response had ended by then; undefined when none was
 * sounding. A barge-in is timed from it, as a listener hears it: when the client plays
 * one (`run --barge-in-at`, a replay) and when a recording's is measured.
 */
export function soundingSince(received: readonly ReceivedFrame[], t: number): number | undefined {
  const firstAudio = new Map<string, number>();
  const ended = new Set<string>();
  let last: string | undefined;
  for (const frame of received) {
    if (frame.t > t) break;
    const id = frame.responseId ?? '';
    if (frame.kind === 'audio' && frame.audioBytes) {
      if (!firstAudio.has(id)) firstAudio.set(id, frame.t);
      last = id;
    } else if (frame.kind === 'response_done' || frame.kind === 'response_cancelled') ended.add(id);
  }
  return last === undefined || ended.has(last) ? undefined : firstAudio.get(last);
}
