import type { ChunkRecord, CommitRecord, ServerEventRecord, SessionTimeline } from '../timeline/types.js';

/** One turn's slice of a session timeline: the events every STT metric is defined on. */
export interface TurnView {
  turn: number;
  chunks: ChunkRecord[];
  finalCommit?: CommitRecord;
  /** Every transcript event of the turn (deltas and the final), in arrival order. */
  transcriptEvents: ServerEventRecord[];
  /**
   * Events that carried new text: the non-empty deltas; or, when a server sends no
   * non-empty delta at all, its final transcript if that has text.
   */
  textEvents: ServerEventRecord[];
  final?: ServerEventRecord;
}

export function turnViews(timeline: SessionTimeline): TurnView[] {
  const count = Math.max(
    0,
    ...timeline.chunks.map((c) => c.turn + 1),
    ...timeline.commits.map((c) => c.turn + 1),
  );
  return Array.from({ length: count }, (_, turn) => {
    const transcriptEvents = timeline.events.filter(
      (e) => e.turn === turn && (e.kind === 'transcript_delta' || e.kind === 'transcript_final'),
    );
    const final = transcriptEvents.find((e) => e.kind === 'transcript_final');
    const deltas = transcriptEvents.filter((e) => e.kind === 'transcript_delta' && (e.text ?? '') !== '');
    const textEvents = deltas.length > 0 ? deltas : final && final.text ? [final] : [];
    return {
      turn,
      chunks: timeline.chunks.filter((c) => c.turn === turn),
      ...optional('finalCommit', timeline.commits.find((c) => c.turn === turn && c.kind === 'final')),
      transcriptEvents,
      textEvents,
      ...optional('final', final),
    };
  });
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
