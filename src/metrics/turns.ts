import { maxOf } from './stats.js';
import type { ChunkRecord, CommitRecord, ServerEventRecord, SessionTimeline, TurnRecord } from '../timeline/types.js';

/** One turn's slice of a session timeline: the events every STT metric is defined on. */
export interface TurnView {
  turn: number;
  /** The planned turn (absent only in timelines that lack it). */
  plan?: TurnRecord;
  chunks: ChunkRecord[];
  finalCommit?: CommitRecord;
  /** Every transcript event of the turn (deltas and finals), in arrival order. */
  transcriptEvents: ServerEventRecord[];
  /**
   * Events that carried new text: the non-empty deltas; or, when a server sends no
   * non-empty delta at all, its final transcripts that have text.
   */
  textEvents: ServerEventRecord[];
  /** The turn's last final transcript. */
  final?: ServerEventRecord;
  /** The turn's transcript as the server finalized it: its final transcripts (one per server item), in order. */
  transcript?: string;
  /** Server items (VAD-committed turns) attributed to this turn. */
  items: number;
}

const isTranscript = (e: ServerEventRecord): boolean => e.kind === 'transcript_delta' || e.kind === 'transcript_final';

/**
 * Splits a timeline into turns. With client turn detection an event belongs to the
 * turn in progress when it arrived. With server turn detection each server item is
 * attributed to the planned turn whose audio overlaps its speech span most (from the
 * server's `speech_started` / `speech_stopped` positions), so a VAD that splits or
 * merges utterances still lands its text on the right turn.
 */
export function turnViews(timeline: SessionTimeline): TurnView[] {
  const count = maxOf([...timeline.chunks, ...timeline.commits].map((c) => c.turn + 1), timeline.turns.length);
  const turnOf = timeline.turnDetection === 'server' ? itemTurns(timeline) : undefined;
  const eventsByTurn = Array.from({ length: count }, () => [] as ServerEventRecord[]);
  const itemsByTurn = Array.from({ length: count }, () => new Set<string>());
  for (const event of timeline.events) {
    if (!isTranscript(event)) continue;
    const turn = (event.itemId !== undefined ? turnOf?.get(event.itemId) : undefined) ?? event.turn;
    eventsByTurn[Math.min(turn, count - 1)]?.push(event);
    if (event.itemId !== undefined) itemsByTurn[Math.min(turn, count - 1)]?.add(event.itemId);
  }
  return eventsByTurn.map((transcriptEvents, turn) => {
    const finals = transcriptEvents.filter((e) => e.kind === 'transcript_final');
    const deltas = transcriptEvents.filter((e) => e.kind === 'transcript_delta' && (e.text ?? '') !== '');
    const final = finals[finals.length - 1];
    return {
      turn,
      ...optional('plan', timeline.turns[turn]),
      chunks: timeline.chunks.filter((c) => c.turn === turn),
      ...optional('finalCommit', timeline.commits.find((c) => c.turn === turn && c.kind === 'final')),
      transcriptEvents,
      textEvents: deltas.length > 0 ? deltas : finals.filter((e) => e.text),
      ...optional('final', final),
      ...optional('transcript', finals.length > 0 ? finals.map((e) => e.text ?? '').join(' ') : undefined),
      items: itemsByTurn[turn]!.size,
    };
  });
}

/** Server items to planned turns, by the overlap of the item's speech span with each turn's audio. */
function itemTurns(timeline: SessionTimeline): Map<string, number> {
  const spans = new Map<string, { start?: number; end?: number; turn: number }>();
  for (const e of timeline.events) {
    if (e.itemId === undefined) continue;
    const span = spans.get(e.itemId) ?? { turn: e.turn };
    if (e.kind === 'speech_started' && e.audioStartMs !== undefined) span.start = e.audioStartMs;
    if (e.kind === 'speech_stopped' && e.audioEndMs !== undefined) span.end = e.audioEndMs;
    spans.set(e.itemId, span);
  }
  const result = new Map<string, number>();
  for (const [item, span] of spans) {
    if (span.start === undefined) {
      result.set(item, span.turn);
      continue;
    }
    const start = span.start;
    const end = span.end ?? start;
    let best = span.turn;
    let bestOverlap = -Infinity;
    for (const t of timeline.turns) {
      const overlap = Math.min(end, t.audioEndMs) - Math.max(start, t.audioStartMs);
      if (overlap > bestOverlap) {
        bestOverlap = overlap;
        best = t.turn;
      }
    }
    result.set(item, best);
  }
  return result;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
