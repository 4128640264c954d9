import type { CompletionPolicy, Verdict } from './dialect.js';
import { responseLedger } from '../timeline/responses.js';
import type { ReceivedFrame, SentFrame } from '../timeline/types.js';

/**
 * Completion for a speech-to-speech conversation: an input is answered when a response
 * that started after its commit has ended (done, cancelled, or failed on its own, or a
 * vLLM-Omni `response.listen` with its id). With server turn detection the work is
 * settled when no speech is in progress, every item the server committed has had a
 * response start, and every response has ended. A response that starts before any
 * commit (the model speaking unprompted) is waited for too, but answers no input. Only
 * session-scope errors end the session; a response's own failure ends that response, and
 * a commit refused for want of audio after the closing flush of a server-VAD stream is the
 * VAD having committed everything first (see `stt-policy.ts`); so is an item the flush
 * committed in which the server heard no speech start (the silence after the VAD's stop),
 * for which no answer is awaited.
 * An event out of order (`timeline/responses.ts`: a done before its response was
 * created, a second done or `response.created`) starts, ends and answers nothing, so a
 * premature done never ends the session before its response has arrived.
 */
export function conversationPolicy(): CompletionPolicy {
  let ready = false;
  /** Responses started and not ended, with their start. */
  const open = new Map<string, number>();
  /** Starts of the responses that have ended. */
  const ended: number[] = [];
  /** When each input's commit was sent (client turn detection). */
  const commits: number[] = [];
  const speaking = new Set<string>();
  /** Items whose speech the server heard start. */
  const heard = new Set<string>();
  /** Items the server committed that no response has started for yet. */
  let awaiting = 0;
  let lastCommittedMs = -Infinity;
  /** Responses whose audio has begun. */
  const audible = new Set<string>();
  const ledger = responseLedger();
  let flushed = false;
  /** Ends an open response (once: a response-scope error may end it before its done). */
  const end = (event: ReceivedFrame): void => {
    const id = event.responseId ?? '';
    const startedMs = open.get(id);
    if (startedMs === undefined) return;
    ended.push(startedMs);
    open.delete(id);
  };
  return {
    get ready() {
      return ready;
    },
    controlSent(frame: SentFrame) {
      if (frame.control === 'input_end') commits[frame.input] ??= frame.t;
      if (frame.control === 'flush') flushed = true;
    },
    observe(event: ReceivedFrame): Verdict {
      if (ledger.judge(event) !== undefined) return undefined; // an anomaly, which the views count
      const item = event.itemId ?? '';
      switch (event.kind) {
        case 'ready':
          ready = true;
          break;
        case 'speech_started':
          // One input buffer, one speech at a time: a new start ends any the server left open
          // (a VAD that restarted, its position gone back), which would otherwise never stop.
          speaking.clear();
          speaking.add(item);
          heard.add(item);
          break;
        case 'speech_stopped':
          speaking.delete(item);
          break;
        case 'committed':
          speaking.delete(item);
          // The flush's own item of silence (the VAD had committed the speech first): no speech to answer.
          if (flushed && event.itemId !== undefined && !heard.has(item)) break;
          awaiting++;
          lastCommittedMs = event.t;
          break;
        case 'response_started':
          open.set(event.responseId ?? '', event.t);
          awaiting = Math.max(0, awaiting - 1);
          break;
        case 'audio':
          if (event.audioBytes) audible.add(event.responseId ?? '');
          break;
        case 'response_done':
        case 'response_cancelled':
          end(event);
          break;
        case 'error':
          if (event.scope === 'commit' && flushed) break;
          if (event.scope === 'response') {
            if (event.responseId !== undefined) end(event);
            break;
          }
          return {
            end: {
              class: 'server_error',
              ...(event.code ? { code: event.code } : {}),
              message: `server error${event.code ? ` ${event.code}` : ''}: ${event.message ?? ''}`.trim(),
            },
          };
      }
      return undefined;
    },
    inputDone: (index) => commits[index] !== undefined && ended.some((startedMs) => startedMs >= commits[index]!),
    speaking: () => speaking.size > 0,
    settled: (sinceMs) => speaking.size === 0 && awaiting === 0 && open.size === 0 && lastCommittedMs >= sinceMs,
    allFinal: (inputs) => open.size === 0 && awaiting === 0 && ended.length >= inputs,
    answering: (inputs) => audible.size >= inputs,
  };
}
