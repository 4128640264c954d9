import type { CompletionPolicy, Verdict } from './dialect.js';
import type { ReceivedFrame, SentFrame } from '../timeline/types.js';

/**
 * Completion for a speech-to-speech conversation: an input is answered when a response
 * that started after its commit has ended (done, cancelled, or failed on its own, or a
 * vLLM-Omni `response.listen` with its id). With server turn detection the work is
 * settled when no speech is in progress, every item the server committed has had a
 * response start, and every response has ended. A response that starts before any
 * commit (the model speaking unprompted) is waited for too, but answers no input. Only
 * session-scope errors end the session; a response's own failure ends that response.
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
  /** Items the server committed that no response has started for yet. */
  let awaiting = 0;
  let lastCommittedMs = -Infinity;
  /** Responses whose audio has begun. */
  const audible = new Set<string>();
  const end = (event: ReceivedFrame): void => {
    const id = event.responseId ?? '';
    ended.push(open.get(id) ?? event.t);
    open.delete(id);
  };
  return {
    get ready() {
      return ready;
    },
    controlSent(frame: SentFrame) {
      if (frame.control === 'input_end') commits[frame.input] ??= frame.t;
    },
    observe(event: ReceivedFrame): Verdict {
      const item = event.itemId ?? '';
      switch (event.kind) {
        case 'ready':
          ready = true;
          break;
        case 'speech_started':
          speaking.add(item);
          break;
        case 'speech_stopped':
          speaking.delete(item);
          break;
        case 'committed':
          speaking.delete(item);
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
          if (event.scope === 'response') {
            if (event.responseId !== undefined && open.has(event.responseId)) end(event);
            break;
          }
          return { end: { class: 'server_error', ...(event.code ? { code: event.code } : {}), message: `server error${event.code ? ` ${event.code}` : ''}: ${event.message ?? ''}`.trim() } };
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
