import type { SessionRecord } from '../timeline/types.js';
import { sessionView } from '../views/session-view.js';
import { turnColumns } from './csv.js';
import { duplexSessionRows } from './duplex-metrics.js';
import type { SessionFacts } from './schema.js';

/** What the outputs read of one session's timeline beyond its metrics (`SessionFacts`), taken while the timeline is at hand. */
export function sessionFacts(record: SessionRecord): SessionFacts {
  const { timeline } = record;
  const view = sessionView(timeline);
  const lastSent = new Map<number, number>();
  for (const frame of timeline.sent) lastSent.set(frame.input, Math.max(frame.t, lastSent.get(frame.input) ?? -Infinity));
  const columns = turnColumns(new Set([timeline.task]));
  let textChars = 0;
  for (const input of timeline.inputs) if (input.kind === 'text') textChars += input.chars;
  const close = timeline.transport.kind === 'websocket' ? timeline.transport.close : undefined;
  // Every key always set (undefined where absent): objects built of conditional spreads took about a tenth more of the
  // figures a report holds (issue 38); the outputs read an absent key and an undefined one alike.
  return {
    close,
    // The record's own list where it is the same (it is, but for a session that failed before its inputs were planned).
    inputSampleIds: sameIds(record.sampleIds, timeline.inputs) ? record.sampleIds : timeline.inputs.map((t) => t.sampleId),
    inputs: view.inputs.map((input, i) => {
      const last = lastSent.get(i);
      return {
        index: input.index,
        sampleId: input.plan?.sampleId,
        split: input.plan?.split,
        lastSentMs: last,
        columns: Object.fromEntries(columns.map((c) => [c.head, c.value(input)])),
      };
    }),
    responseStatuses: view.responses.length > 0 ? view.responses.map((r) => r.status) : NONE,
    textChars,
    audioReceived: timeline.received.some((f) => f.kind === 'audio'),
    duplex: timeline.task === 's2s' ? duplexSessionRows(view) : undefined,
  };
}

/** One empty list for every session without responses (streaming transcription): kept per session until the outputs are written. */
const NONE: string[] = [];

function sameIds(ids: readonly string[], inputs: ReadonlyArray<{ sampleId: string }>): boolean {
  return ids.length === inputs.length && inputs.every((input, i) => input.sampleId === ids[i]);
}
