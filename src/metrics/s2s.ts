import type { InputView, ResponseView, SessionView } from '../views/session-view.js';
import { elapsed } from './anchors.js';

/**
 * Speech-to-speech figures as vLLM-Omni's duplex client defines them
 * (`timing_summary`, `global_timing_summary`), plus what a caller hears. Pure
 * functions of views; the catalog names them.
 */

/** Audio the simulated listener buffers before playing an answer, ms. */
export const AGENT_PLAYBACK_BUFFER_MS = 200;

/** A response's start: the commit sent when the client committed, else `response.created` received. */
export function responseStart(r: ResponseView): number | undefined {
  return r.requested?.t ?? r.started?.t;
}

/** The first non-empty text or transcript delta of a response. */
export function firstText(r: ResponseView): number | undefined {
  const text = r.text.textEvents[0]?.t ?? Infinity;
  const transcript = r.transcript.textEvents[0]?.t ?? Infinity;
  const first = Math.min(text, transcript);
  return first === Infinity ? undefined : first;
}

/** The first non-empty audio delta of a response. */
export function firstAudio(r: ResponseView): number | undefined {
  return r.audio.chunks.find((c) => c.bytes > 0)?.t;
}

export function lastAudio(r: ResponseView): number | undefined {
  for (let i = r.audio.chunks.length - 1; i >= 0; i--) if (r.audio.chunks[i]!.bytes > 0) return r.audio.chunks[i]!.t;
  return undefined;
}

/** A response's audio generation: `response.created` received to its last audio packet. */
export const responseGeneration = (r: ResponseView): number | undefined => elapsed(r.started?.t, lastAudio(r));

/** (last audio packet − `response.created`) / emitted audio duration. */
export function responseRtf(r: ResponseView): number | undefined {
  const generation = responseGeneration(r);
  return generation !== undefined && r.audio.emittedMs > 0 ? generation / r.audio.emittedMs : undefined;
}

/** The input stream's start: the session's first audio sent. */
export function streamStart(s: SessionView): number | undefined {
  let start: number | undefined;
  for (const input of s.inputs) {
    const t = input.media[0]?.t;
    if (t !== undefined && (start === undefined || t < start)) start = t;
  }
  return start;
}

function earliest(s: SessionView, at: (r: ResponseView) => number | undefined): number | undefined {
  let first: number | undefined;
  for (const r of s.responses) {
    const t = at(r);
    if (t !== undefined && (first === undefined || t < first)) first = t;
  }
  return first;
}

export const streamTtft = (s: SessionView): number | undefined => elapsed(streamStart(s), earliest(s, firstText));
export const streamTtfp = (s: SessionView): number | undefined => elapsed(streamStart(s), earliest(s, firstAudio));

/** The session's audio generation: input stream start to the last audio received. */
export function streamGeneration(s: SessionView): number | undefined {
  let last: number | undefined;
  for (const r of s.responses) {
    const t = lastAudio(r);
    if (t !== undefined && (last === undefined || t > last)) last = t;
  }
  return elapsed(streamStart(s), last);
}

/** The sum of each response's emitted audio. */
export const streamEmittedMs = (s: SessionView): number => s.responses.reduce((sum, r) => sum + r.audio.emittedMs, 0);

/** (last audio received − stream start) / the sum of each response's emitted audio. */
export function streamRtf(s: SessionView): number | undefined {
  const generation = streamGeneration(s);
  const emitted = streamEmittedMs(s);
  return generation !== undefined && emitted > 0 ? generation / emitted : undefined;
}

/** End of the user's speech (the frame holding it sent) to the first audio of an answer to it. */
export function voiceToVoice(v: InputView): number | undefined {
  const eos = v.eosFrame?.t;
  if (eos === undefined) return undefined;
  let first: number | undefined;
  for (const r of v.responses) {
    const t = r.audio.chunks.find((c) => c.bytes > 0 && c.t >= eos)?.t;
    if (t !== undefined && (first === undefined || t < first)) first = t;
  }
  return elapsed(eos, first);
}

/** The user's speech over the agent, to the agent stopping: its cancellation (or its last audio after it), else its last audio. */
export function bargeInStop(v: InputView): number | undefined {
  if (!v.bargeIn) return undefined;
  const { response, speechSentMs } = v.bargeIn;
  const last = lastAudio(response);
  const stop = response.status === 'cancelled' ? Math.max(response.done!.t, last ?? -Infinity) : last;
  return elapsed(speechSentMs, stop);
}

/** Responses no end of speech asked for: none was sent since the previous response started (the model speaking unprompted). */
export function unpromptedResponses(s: SessionView): number {
  const eos = s.inputs.flatMap((v) => (v.eosFrame ? [v.eosFrame.t] : []));
  const starts = s.responses.flatMap((r) => (r.started ? [r.started.t] : [])).sort((a, b) => a - b);
  let previous = -Infinity;
  let count = 0;
  for (const t of starts) {
    if (!eos.some((e) => e > previous && e <= t)) count++;
    previous = t;
  }
  return count;
}
