import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rawServer, messageText } from './helpers.js';
import { renderSummary } from '../src/report/console.js';
import type { Report } from '../src/report/schema.js';
import { run, type RunOptions } from '../src/run/run.js';
import { exitCodeOf } from '../src/run/run-outcome.js';
import { sessionView, type SessionView } from '../src/views/session-view.js';

/**
 * Servers that send finals out of turn, over real sockets: a final before the final
 * commit, extra finals for one turn, a late repeat of an earlier turn's final. Each is
 * recorded and counted as a protocol anomaly, never taken for a turn's final, and the
 * session waits for the real one.
 */

const REFERENCE_1 = 'The birch canoe slid on the smooth planks.';
const REFERENCE_2 = 'Glue the sheet to the dark blue background.';
/** Two substitutions in eight words: WER 0.25. */
const FIRST_FINAL_1 = 'the birch canoe slid on a smooth plank';

/** vLLM's wire: `answer` is called on every append and commit the client sends. */
function vllmServer(answer: (event: { type: string; final?: boolean }, send: (event: object) => void) => void): Promise<string> {
  return rawServer((send, ws) => {
    send({ type: 'session.created' });
    ws.on('message', (raw) => answer(JSON.parse(messageText(raw)) as { type: string; final?: boolean }, send));
  });
}

async function oneSession(
  options: RunOptions,
): Promise<{ report: Report; view: SessionView; metrics: Report['benchmarks'][number]['sessions'][number]['metrics'] }> {
  const { report } = await run({ model: 'm', maxSessions: 1, ...options });
  const session = report.benchmarks[0]!.sessions[0]!;
  assert.deepEqual(session.outcome, { status: 'completed' });
  return { report, view: sessionView(session.timeline), metrics: session.metrics };
}

/** Every latency of every turn is there and not negative. */
function assertLatencies(metrics: { inputs: Array<Record<string, number>> }): void {
  for (const turn of metrics.inputs) {
    for (const name of ['ttft_ms', 'ttlt_ms', 'finalization_ms', 'commit_to_flush_ms', 'turn_ms']) {
      assert.ok(turn[name]! >= 0, `${name} ${turn[name]} is not negative`);
    }
  }
}

describe('finals out of turn', () => {
  it('a final before the final commit is an anomaly; the session waits for the real one', async () => {
    const delayMs = 500;
    let appends = 0;
    const target = await vllmServer((event, send) => {
      if (event.type === 'input_audio_buffer.append' && appends++ === 0) send({ type: 'transcription.done', text: 'premature' });
      if (event.type === 'input_audio_buffer.commit' && event.final) {
        setTimeout(() => {
          send({ type: 'transcription.delta', delta: REFERENCE_1 });
          send({ type: 'transcription.done', text: REFERENCE_1 });
        }, delayMs);
      }
    });
    // Paced, so the first append is answered long before the final commit is sent.
    const { report, view, metrics } = await oneSession({ target, pace: { kind: 'realtime', speed: 8 }, slos: [`p95(finalization_ms)<${delayMs / 2}`] });
    const input = view.inputs[0]!;
    assert.equal(view.timeline.received.filter((e) => e.kind === 'text_final').length, 2, 'the real final was awaited');
    assert.equal(input.transcript.final!.text, REFERENCE_1);
    assert.equal(input.transcript.text, REFERENCE_1);
    assert.deepEqual(
      view.anomalies.map((a) => [a.reason, a.event.text, a.input]),
      [['unrequested', 'premature', 0]],
    );
    assert.deepEqual(input.anomalies, view.anomalies);

    const turn = metrics.inputs[0]!;
    assertLatencies(metrics);
    assert.equal(turn.commit_to_flush_ms, input.transcript.final!.t - input.endControl!.t);
    assert.equal(turn.turn_ms, input.transcript.final!.t - input.media[0]!.t);
    assert.equal(turn.rtfx, turn.audio_ms! / turn.turn_ms);
    assert.equal(turn.wer, 0);
    assert.equal(metrics.session.protocol_anomalies, 1);

    // The SLO judges the real final, which the server held back past its threshold.
    const { summary } = report.benchmarks[0]!;
    assert.equal(summary.slos[0]!.pass, false);
    assert.equal(exitCodeOf(report), 4);
    assert.deepEqual(summary.anomalies, { sessions: 1, reasons: { unrequested: 1 } });
    assert.equal(summary.metrics.protocol_anomalies!.max, 1);
    assert.match(renderSummary(report), /^protocol anomalies: unrequested final ×1 in 1 session /m);
  });

  it('of three finals for one turn, the first is its transcript and the others are counted', async () => {
    let commits = 0;
    const target = await vllmServer((event, send) => {
      if (event.type !== 'input_audio_buffer.commit' || !event.final) return;
      if (++commits === 1) {
        send({ type: 'transcription.done', text: FIRST_FINAL_1 });
        send({ type: 'transcription.done', text: 'the birch canoe slid on the smooth planks again' });
        send({ type: 'transcription.done', text: 'and once more the birch canoe' });
      } else {
        send({ type: 'transcription.done', text: REFERENCE_2 });
      }
    });
    // Paced, so the extra finals arrive while the second turn streams, as late ones do.
    const { report, view, metrics } = await oneSession({ target, turnsPerSession: 2, pace: { kind: 'realtime', speed: 8 } });
    assert.deepEqual(
      view.inputs.map((i) => i.transcript.text),
      [FIRST_FINAL_1, REFERENCE_2],
    );
    assert.deepEqual(
      metrics.inputs.map((t) => t.wer),
      [0.25, 0],
    );
    assert.deepEqual(
      view.anomalies.map((a) => a.reason),
      ['unrequested', 'unrequested'],
    );
    assert.equal(view.inputs[0]!.anomalies.length + view.inputs[1]!.anomalies.length, 2);
    assertLatencies(metrics);
    assert.equal(metrics.session.protocol_anomalies, 2);
    assert.equal(report.benchmarks[0]!.summary.quality.wer, 2 / 16);
    assert.deepEqual(report.benchmarks[0]!.summary.anomalies, { sessions: 1, reasons: { unrequested: 2 } });
  });

  it("a late repeat of turn 1's final after turn 2's commit is a duplicate, not turn 2's final", async () => {
    let commits = 0;
    const target = await rawServer((send, ws) => {
      send({ type: 'session.created', session: {} });
      ws.on('message', (raw) => {
        if ((JSON.parse(messageText(raw)) as { type: string }).type !== 'input_audio_buffer.commit') return;
        const item = `item_${++commits}`;
        send({ type: 'input_audio_buffer.committed', item_id: item });
        const completed = (item_id: string, transcript: string) => send({ type: 'conversation.item.input_audio_transcription.completed', item_id, transcript });
        if (commits === 1) return completed(item, REFERENCE_1);
        completed('item_1', REFERENCE_1);
        setTimeout(() => completed(item, REFERENCE_2), 100);
      });
    });
    const { view, metrics } = await oneSession({
      target,
      protocol: 'openai',
      model: 'gpt-4o-transcribe',
      turnsPerSession: 2,
      pace: { kind: 'none' },
      ackWindowMs: 0,
    });
    assert.deepEqual(
      view.inputs.map((i) => i.transcript.final?.itemId),
      ['item_1', 'item_2'],
      "turn 2's real final was awaited",
    );
    assert.deepEqual(
      view.anomalies.map((a) => [a.reason, a.event.itemId, a.input]),
      [['duplicate', 'item_1', 1]],
    );
    assert.deepEqual(
      metrics.inputs.map((t) => t.wer),
      [0, 0],
    );
    assertLatencies(metrics);
    assert.equal(metrics.session.protocol_anomalies, 1);
  });
});
