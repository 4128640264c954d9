import type { Deadline } from '../runtime/deadlines.js';
import { soundingSince } from '../timeline/responses.js';
import { placedTurns } from './bounds.js';
import { speedOf } from './pace.js';
import type { PreparedTurn } from './prepare.js';
import type { PreparedText } from './prepare-text.js';
import { SilenceFiller, sendPrompt, streamAudio } from './ws-pacing.js';
import type { WebSocketSession } from './ws-session.js';

/** Server turn detection: how long after the stream ends a session waits for a lagging VAD, unless every input is final. */
const SERVER_VAD_GRACE_MS = 1000;

/** Client turn detection: each input is ended, and its final awaited, before the next; the first streams from `startAt` (default now). */
export async function clientInputs(s: WebSocketSession, startAt?: number): Promise<void> {
  const { plan, ending, clock, timeouts } = s;
  let offsetMs = 0;
  let updates: Deadline[] | undefined;
  for (; s.input < plan.inputs.length && !ending.outcome; s.input++) {
    const prepared = plan.inputs[s.input]!;
    recordInput(s, prepared, offsetMs);
    // Held at a gate, the first input's start went before the wait, with the session's configuration.
    if (s.input > 0 || startAt === undefined) s.sendInputStart();
    const t0 = s.input === 0 && startAt !== undefined ? startAt : clock.now();
    if (prepared.kind === 'text') {
      await sendPrompt(s, prepared, t0);
    } else {
      updates ??= scheduleUpdates(s, t0);
      await streamAudio(s, prepared, offsetMs, t0 - offsetMs / speedOf(plan.pace));
      offsetMs += prepared.audioMs;
    }
    if (ending.outcome) break;
    await s.endInput();
    const index = s.input;
    await ending.until(
      'final',
      () => s.policy.inputDone(index),
      timeouts.finalMs,
      prepared.kind === 'text' ? 'the end of the generated speech' : `the ${s.resultName}`,
    );
  }
  for (const update of updates ?? []) update.cancel();
}

/**
 * Server turn detection: one continuous stream; the server's VAD commits inputs. At the
 * end, speech still in progress is flushed, then every committed item's result is awaited.
 * The stream starts at `startAt` (default now).
 */
export async function serverInputs(s: WebSocketSession, startAt?: number): Promise<void> {
  const { plan, ending, clock, timeouts, policy, resultName } = s;
  let t0 = startAt ?? clock.now();
  const updates = scheduleUpdates(s, t0);
  let offsetMs = 0;
  for (; s.input < plan.inputs.length && !ending.outcome; s.input++) {
    const prepared = plan.inputs[s.input]!;
    recordInput(s, prepared, offsetMs);
    if (prepared.kind === 'text') {
      await sendPrompt(s, prepared, clock.now());
      continue;
    }
    await streamAudio(s, prepared, offsetMs, t0);
    offsetMs += prepared.audioMs;
    const bargeInAtMs = plan.bargeInsAtMs?.[s.input + 1];
    if ((plan.waitForAnswer || bargeInAtMs !== undefined) && s.input < plan.inputs.length - 1 && !ending.outcome) {
      const answered = s.input + 1;
      const speed = speedOf(plan.pace);
      // The microphone stays open while the user waits: silence, bounded by the waits' own limits.
      const filler = plan.silence && plan.pace.kind !== 'none' ? new SilenceFiller(s, plan.silence, offsetMs, t0, plan.pace.speed) : undefined;
      let bargeInAt: number | undefined;
      if (bargeInAtMs === undefined) {
        await ending.until('final', () => policy.allFinal(answered), timeouts.finalMs, `the ${resultName} to utterance ${answered}`);
      } else {
        await ending.until('final', () => policy.answering?.(answered) ?? true, timeouts.finalMs, `the ${resultName} to utterance ${answered} to begin`);
        // Timed from when the answer began to sound (its first audio's arrival), not from when this wait noticed it.
        bargeInAt = (soundingSince(s.timeline.received, clock.now()) ?? clock.now()) + bargeInAtMs / speed;
        if (!ending.outcome) await ending.until('streaming', () => false, Math.max(0, bargeInAt - clock.now()));
      }
      if (filler) offsetMs = filler.stop(); // the next utterance follows the silence on the same schedule
      // A barge-in's first frame is due at its time; without a filler the stream resumes where it paused.
      if (bargeInAt !== undefined) t0 = bargeInAt - offsetMs / speed;
      else if (!filler) t0 = clock.now() - offsetMs / speed;
    }
  }
  for (const update of updates) update.cancel();
  if (ending.outcome) return;
  s.input = plan.inputs.length - 1;
  const inputs = plan.inputs.length;
  // A server whose VAD lags may still report speech from the end of the stream.
  await ending.until('final', () => policy.allFinal(inputs) || policy.speaking(), SERVER_VAD_GRACE_MS);
  if (ending.outcome) return;
  const flushedMs = policy.speaking() ? s.sendControl(s.dialect.flushFrame(), 'flush') : -Infinity;
  await ending.until('final', () => !policy.speaking() && policy.settled(flushedMs), timeouts.finalMs, `the ${resultName}s of all committed turns`);
}

/** Records input `s.input` in the timeline, placed `offsetMs` into the stream. */
function recordInput(s: WebSocketSession, prepared: PreparedTurn | PreparedText, offsetMs: number): void {
  const index = s.input;
  if (prepared.kind === 'text') {
    s.timeline.inputs.push({ kind: 'text', index, sampleId: prepared.sampleId, split: prepared.split, text: prepared.text, chars: prepared.chars });
    return;
  }
  s.timeline.inputs.push({
    kind: 'audio',
    index,
    sampleId: prepared.sampleId,
    split: prepared.split,
    reference: prepared.reference,
    ...(prepared.language !== undefined ? { language: prepared.language } : {}),
    ...(prepared.words ? { words: prepared.words.map((w) => ({ word: w.word, endMs: offsetMs + w.endMs })) } : {}),
    ...placedTurns(prepared.turns, offsetMs),
    audioStartMs: offsetMs,
    speechStartMs: offsetMs + prepared.speechStartMs,
    speechEndMs: offsetMs + prepared.speechEndMs,
    eosSource: prepared.eosSource,
    audioEndMs: offsetMs + prepared.audioMs,
  });
}

/** Sends each planned mid-stream `session.update` at its time, the stream's start being `t0`; each is recorded with when it was due. */
function scheduleUpdates(s: WebSocketSession, t0: number): Deadline[] {
  const { plan } = s;
  return (plan.updatesAtMs ?? []).map((atMs) => {
    const due = t0 + atMs / speedOf(plan.pace);
    return s.deadlines.at(due, () => {
      if (!s.ending.outcome) s.sendControl(s.dialect.sessionUpdateFrame(), 'session_update', due);
    });
  });
}
