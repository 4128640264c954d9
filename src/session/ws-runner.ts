import type { StreamGate } from '../timeline/types.js';
import type { Deadline } from '../runtime/deadlines.js';
import type { SessionResult } from './runner.js';
import { WebSocketSession, type WebSocketPlan } from './ws-session.js';
import { clientInputs, serverInputs } from './ws-turns.js';

export type { WebSocketPlan } from './ws-session.js';
export { DEFAULT_ACK_WINDOW_MS } from './ws-unpaced.js';

/**
 * Runs one WebSocket session: connects, waits until the dialect's policy says it is
 * ready, streams each input's media against absolute deadlines, ends each input (or,
 * with server turn detection, flushes the one stream) and waits until the policy says
 * the work is done. It only sends, receives and timestamps; meaning comes from the
 * dialect. It never throws: every way a session can end is an outcome.
 *
 * The session's state and per-frame work are in ws-session.ts (socket events and close
 * classification in ws-close.ts); the inputs' order in ws-turns.ts; how their media is
 * sent in ws-pacing.ts (on the schedule) and ws-unpaced.ts (the unpaced window).
 */
export function runWebSocketSession(plan: WebSocketPlan): Promise<SessionResult> {
  const session = new WebSocketSession(plan);
  return flow(session)
    .then(() => session.closeChannel())
    .then(() => session.finish());
}

async function flow(s: WebSocketSession): Promise<void> {
  const { plan, dialect, ending, transport, policy, reactions, timeouts, clock } = s;
  await ending.until('connect', () => transport.openMs !== undefined, timeouts.connectMs, 'the WebSocket to open');
  const first = plan.inputs[0];
  const configure = (): void => {
    for (const frame of dialect.sessionFrames(first?.kind === 'text' ? undefined : first)) s.sendControl(frame, 'session_config');
  };
  if (dialect.configuresAtOpen && !ending.outcome) configure();
  await ending.until('ready', () => policy.ready, timeouts.readyMs, `the server's ${dialect.readyEvent} event`);
  if (ending.outcome) return;
  if (!dialect.configuresAtOpen) configure();
  if (plan.gate && dialect.turnDetection === 'client') s.sendInputStart();
  // Ticking from before the level's gate: a keep-alive must hold a socket that waits there too.
  if (reactions?.tickMs) s.ticker = setInterval(() => s.react(reactions.tick(clock.now())), reactions.tickMs);
  const startAt = plan.gate ? await gated(s, plan.gate) : undefined;
  if (ending.outcome) return;
  await (dialect.turnDetection === 'client' ? clientInputs(s, startAt) : serverInputs(s, startAt));
  if (ending.outcome) return;
  if (plan.idleMs) await ending.until('idle', () => false, plan.idleMs);
  if (reactions?.awaitsClose) await s.closeStream();
  if (ending.outcome) return;
  const unkept = s.unkept();
  if (unkept) s.fail(unkept);
  ending.end({ status: 'completed' });
}

/**
 * Waits at the level's gate: says the session is ready, then waits for the gate's time
 * (which it returns). A gate held longer than a connect and a ready timeout opens for
 * this session alone: its stream then starts late, never not at all.
 */
async function gated(s: WebSocketSession, gate: StreamGate): Promise<number> {
  const { ending, deadlines, clock, timeouts } = s;
  gate.ready();
  let openAt: number | undefined;
  let waiting = true;
  let due: Deadline | undefined;
  void gate.startAt.then((t) => {
    if (!waiting) return;
    due = deadlines.at(t, () => {
      openAt = t;
      ending.recheck?.();
    });
  });
  await ending.until('ready', () => openAt !== undefined, timeouts.connectMs + timeouts.readyMs);
  waiting = false;
  due?.cancel();
  return openAt ?? clock.now();
}
