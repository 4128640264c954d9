import type { CompletionPolicy, Verdict } from './dialect.js';
import { finalsLedger } from '../timeline/finals.js';
import type { ReceivedFrame, TurnDetection } from '../timeline/types.js';

/**
 * Completion for streaming transcription: an input is done when its final transcript
 * arrives (client commits); with server turn detection, when every item the server's
 * VAD committed has its transcript and no speech is in progress. Which input a final
 * answers is the ledger's rule (`timeline/finals.ts`): a final before the input's final
 * commit, or a repeat, answers none, so the session keeps waiting for the real one.
 * Every error and failed transcription ends the session, bar a refused settings update
 * (`scope: 'update'`), after which the stream goes on with its settings: it is counted
 * (`updates_refused`), not a failure; and bar a commit refused for want of audio
 * (`scope: 'commit'`) once the client has flushed the end of a server-VAD stream: the
 * client flushes while it still sees speech, but the VAD's stop and commit may already be
 * on the wire, and then the refusal only says the VAD had committed everything first.
 */
export function transcriptionPolicy(turnDetection: TurnDetection): CompletionPolicy {
  let ready = false;
  const ledger = finalsLedger(turnDetection);
  /** Inputs whose final transcript has arrived (client turn detection). */
  const done = new Set<number>();
  /** Final transcripts that answered an input or item. */
  let finals = 0;
  /** Server turn detection: items in speech, and committed items awaiting their transcript. */
  const speaking = new Set<string>();
  const awaiting = new Set<string>();
  let lastCommittedMs = -Infinity;
  let flushed = false;
  return {
    get ready() {
      return ready;
    },
    controlSent: (frame) => {
      if (frame.control === 'flush') flushed = true;
      ledger.sent(frame);
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
          awaiting.add(item);
          lastCommittedMs = event.t;
          break;
        case 'text_final': {
          const answer = ledger.final(event);
          if ('anomaly' in answer) break;
          finals++;
          done.add(answer.input);
          awaiting.delete(item);
          break;
        }
        case 'error':
        case 'text_failed':
          if (event.scope === 'update' || (event.scope === 'commit' && flushed)) break;
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
    inputDone: (index) => done.has(index),
    speaking: () => speaking.size > 0,
    settled: (sinceMs) => speaking.size === 0 && awaiting.size === 0 && lastCommittedMs >= sinceMs,
    allFinal: (inputs) => finals >= inputs,
  };
}
