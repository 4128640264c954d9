import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderHtml } from '../src/report/html/index.js';
import { run } from '../src/run/run.js';
import { parseFaultScenario } from '../src/server/faults/faults.js';
import { DEFAULT_SPEECH_LATENCY } from '../src/server/models/speech-synth.js';
import type { ChartSpec } from '../src/report/html/chart-spec.js';

function charts(page: string): ChartSpec[] {
  const match = /<script type="application\/json" id="voxbench-data">(.*?)<\/script>/s.exec(page);
  assert.ok(match, 'the page embeds its data');
  return Object.values((JSON.parse(match[1]!) as { charts: Record<string, ChartSpec> }).charts);
}

describe('HTML report of speech generation', () => {
  it('draws each session playing back, its stall marked', async () => {
    const { report } = await run({
      protocol: 'vllm-omni-speech',
      maxSessions: 2,
      // Playback starts with 200 ms buffered; after 300 ms of audio (due by 40 ms) the server pauses 1000 ms: a stall
      // in playback unless that audio came some 700 ms late. (After 600 ms of audio, a pause of 700 ms left a stall
      // only if the audio came within about 100 ms of its time, which a busy machine does not promise.)
      server: { speechLatency: { ...DEFAULT_SPEECH_LATENCY, firstAudioMs: 20, rtf: 0.1, jitterMs: 0 }, faults: [parseFaultScenario('stall-after:300,1000')] },
    });
    const page = renderHtml(report);
    assert.match(page, /<section id="playback"><h2>Speech playback<\/h2>/);
    const playback = charts(page).filter((c) => c.id.startsWith('playback-'));
    assert.equal(playback.length, 2);
    for (const chart of playback) {
      const stall = chart.series.find((s) => s.label === 'stall');
      assert.ok(stall, `a stall series: ${chart.series.map((s) => s.label).join(', ')}`);
      // The fault's stall; a machine that kept the client from reading for 100 ms after it may add one.
      assert.ok(stall.x.length >= 1, 'the stall is marked');
      assert.match(stall.notes![0]!, /^stall of \d+(\.\d)? ms$/);
      const received = chart.series.find((s) => s.label === 'audio received')!;
      const played = chart.series.find((s) => s.label === 'audio played')!;
      assert.equal(played.y.at(-1), received.y.at(-1), 'everything received is played');
    }
  });

  it('leaves the playback section out of a transcription report', async () => {
    const { report } = await run({ maxSessions: 1, pace: { kind: 'none' } });
    assert.doesNotMatch(renderHtml(report), /id="playback"/);
  });
});
