import type { InputView, SessionView } from '../views/session-view.js';

/** A named moment on a view: metrics that are intervals are defined by two of them. */
export interface Anchor<V> {
  name: string;
  /** The event, for people (definitions, tooltips). */
  description: string;
  at(view: V): number | undefined;
}

export const anchor = <V>(name: string, description: string, at: (view: V) => number | undefined): Anchor<V> => ({ name, description, at });

/** `to - from` when both moments exist: every interval voxbench reports is this one subtraction. */
export function elapsed(from: number | undefined, to: number | undefined): number | undefined {
  return from === undefined || to === undefined ? undefined : to - from;
}

/** The interval from one anchor to another on a view. */
export const span = <V>(from: Anchor<V>, to: Anchor<V>, view: V): number | undefined => elapsed(from.at(view), to.at(view));

/** Every anchor a metric may start or end at, by the view it reads. */
export const ANCHORS = {
  input: {
    start: anchor<InputView>(
      'input.start',
      'first audio chunk of the turn sent (streams), or its request started (HTTP)',
      (v) => v.media[0]?.t ?? v.request?.startMs,
    ),
    request_start: anchor<InputView>('request.start', "the input's HTTP request started", (v) => v.request?.startMs),
    upload_end: anchor<InputView>('request.upload_end', "the last byte of the request's body written", (v) => v.request?.uploadEndMs),
    response_end: anchor<InputView>('request.end', 'the response body complete', (v) => v.request?.endMs),
    first_sent: anchor<InputView>('input.first_sent', 'first audio chunk of the turn sent', (v) => v.media[0]?.t),
    last_sent: anchor<InputView>('input.last_sent', 'last audio chunk of the turn sent', (v) => v.media[v.media.length - 1]?.t),
    eos_sent: anchor<InputView>('input.eos_sent', 'end of speech: send time of the chunk holding the last speech sample', (v) => v.eosFrame?.t),
    end_sent: anchor<InputView>(
      'input.end_sent',
      'final commit sent (the control that ends the input, or the flush of a continuous stream)',
      (v) => v.endControl?.t,
    ),
    transcript_first_text: anchor<InputView>('transcript.first_text', 'first non-empty transcript text received', (v) => v.transcript.textEvents[0]?.t),
    transcript_last_event: anchor<InputView>('transcript.last_event', 'last transcript event received (the final included)', (v) =>
      v.transcript.final ? v.transcript.events[v.transcript.events.length - 1]?.t : undefined,
    ),
    transcript_final: anchor<InputView>(
      'transcript.final',
      "the input's final transcript received (transcription.done, or ...input_audio_transcription.completed)",
      (v) => v.transcript.final?.t,
    ),
  },
  session: {
    planned_start: anchor<SessionView>('session.planned_start', 'planned start of the session (load profile)', (s) => s.timeline.plannedStartMs),
    start: anchor<SessionView>('session.start', 'actual connect start', (s) => s.timeline.startMs),
    open: anchor<SessionView>('transport.open', 'WebSocket open', (s) => (s.timeline.transport.kind === 'websocket' ? s.timeline.transport.openMs : undefined)),
    close: anchor<SessionView>('transport.close', 'close', (s) => (s.timeline.transport.kind === 'websocket' ? s.timeline.transport.close?.t : undefined)),
    update_sent: anchor<SessionView>('session.update_sent', 'mid-stream session.update sent', (s) => s.updates[0]?.t),
    update_confirmed: anchor<SessionView>('session.update_confirmed', 'the next session.updated received', (s) => {
      const update = s.updates[0];
      return update ? s.timeline.received.find((e) => e.kind === 'updated' && e.t >= update.t)?.t : undefined;
    }),
  },
};
