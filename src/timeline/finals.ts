import type { Control, ReceivedFrame, SentFrame, TurnDetection } from './types.js';

/**
 * Which input a final transcript answers. The completion policy asks as events arrive,
 * and the views replay a stored timeline through the same rules, so what ended a wait
 * and what the figures count are always the same final.
 *
 * With client turn detection a final answers the earliest end control (final commit,
 * HTTP request) not yet answered: inputs are answered in commit order. A final that
 * arrives while no end control awaits one, or that repeats an item already final,
 * answers nothing: it is a protocol anomaly, recorded but never an input's final. With
 * server turn detection inputs come from the server's items, so only repeats count.
 */
export type AnomalyReason =
  /** No end control awaited a final: one sent before its input's final commit, or a late extra one (without item ids the two look alike). */
  | 'unrequested'
  /** Its item already had its final. */
  | 'duplicate'
  /** Text that arrived before any audio of the input in progress was sent: it cannot be about that input (client turn detection). */
  | 'stale'
  /** Text of an input (client turn detection) or a server item that had already had its final: the answer was over, so it is no part of it. */
  | 'after_final';

export type FinalAnswer = { input: number } | { anomaly: AnomalyReason };

export interface FinalsLedger {
  /** A frame the client sent, in send order: end controls open a wait for a final. */
  sent(frame: SentFrame): void;
  /** A final received: the input it answers (server turn detection: the input in progress), or why it answers none. */
  final(event: ReceivedFrame): FinalAnswer;
}

/** Controls a final answers: the end of a client-ended input, and an HTTP request. */
const ANSWERED: ReadonlySet<Control | undefined> = new Set<Control>(['input_end', 'request']);

export function finalsLedger(turnDetection: TurnDetection): FinalsLedger {
  /** Inputs whose end control was sent, in send order; those before `answered` have their final. */
  const ended: number[] = [];
  let answered = 0;
  const finalItems = new Set<string>();
  return {
    sent(frame) {
      if (turnDetection === 'client' && frame.kind === 'control' && ANSWERED.has(frame.control)) ended.push(frame.input);
    },
    final(event) {
      if (event.itemId !== undefined && finalItems.has(event.itemId)) return { anomaly: 'duplicate' };
      let input = event.input;
      if (turnDetection === 'client') {
        if (answered === ended.length) return { anomaly: 'unrequested' };
        input = ended[answered++]!;
      }
      if (event.itemId !== undefined) finalItems.add(event.itemId);
      return { input };
    },
  };
}
