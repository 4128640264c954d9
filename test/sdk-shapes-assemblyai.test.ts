import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { ASSEMBLYAI } from '../src/dialects/assemblyai/spec.js';
import { run } from '../src/run/run.js';
import { CLI, recordingRelay, twoSpeakerHarvard } from './helpers.js';
import { assertTypes as assertSdkTypes } from './sdk-types.js';

/**
 * The AssemblyAI messages of a real session, both ways, held to the official SDK's types
 * (`assemblyai`'s `src/types/streaming`): the built-in server's (`Begin`, `Turn` with
 * pending and labelled words, the formatted copy, `SpeakerRevision`, `Termination`) and the
 * client's (`UpdateConfiguration`, `ForceEndpoint`, `Terminate`), relayed and compiled as
 * `<message> satisfies <SDK type>`, from `voxbench serve` itself (its flags included). If
 * either side drifts from the service's shape, this fails.
 */
const PREAMBLE = `import type { StreamingEventMessage, StreamingOperationMessage } from 'assemblyai';`;

describe('assemblyai in the shapes of its official SDK', () => {
  it('the built-in server and the client, a labelled session with pending words, a formatted turn and a speaker revision', async () => {
    const data = await twoSpeakerHarvard();
    const server = await serve(['--data', data, '--pending-words', '20', '--speaker-revision', '--speaker-confusion', '1']);
    const relay = await recordingRelay(`${server}${ASSEMBLYAI.path}`);
    const { report } = await run({
      target: `${relay.url}?format_turns=true`,
      protocol: 'assemblyai',
      model: ASSEMBLYAI.defaultModel,
      data,
      maxSessions: 1,
      updateAtMs: 500,
      turnDetection: { type: 'server_vad', threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: 300 },
      pace: { kind: 'realtime', speed: 8 },
    });
    assert.deepEqual(report.benchmarks[0]!.sessions[0]!.outcome, { status: 'completed' });

    assertSdkTypes(PREAMBLE, [
      ...relay.received.map((value) => ({ value, type: 'StreamingEventMessage' })),
      ...relay.sent.map((value) => ({ value, type: 'StreamingOperationMessage' })),
    ]);
    assert.deepEqual([...new Set(relay.sent.map((m) => m.type))].sort(), ['ForceEndpoint', 'Terminate', 'UpdateConfiguration']);
    assert.deepEqual([...new Set(relay.received.map((m) => m.type))].sort(), ['Begin', 'SpeakerRevision', 'Termination', 'Turn']);

    // What the types allow but do not require: each final word has its speaker, a pending word has none yet and is not in the transcript.
    type Word = { text: string; start: number; word_is_final: boolean; speaker?: string };
    const turns = relay.received.filter((m) => m.type === 'Turn') as Array<{
      transcript: string;
      end_of_turn: boolean;
      turn_is_formatted: boolean;
      words: Word[];
    }>;
    const words = turns.flatMap((t) => t.words);
    assert.ok(words.length > 0 && words.every((w) => !('speaker_label' in w)), 'no word has a speaker_label');
    assert.ok(
      words.filter((w) => w.word_is_final).every((w) => typeof w.speaker === 'string'),
      'every final word has its speaker',
    );
    const pending = turns.filter((t) => t.words.some((w) => !w.word_is_final));
    assert.ok(pending.length > 0, 'pending words were sent');
    for (const t of pending)
      assert.equal(
        t.transcript,
        t.words
          .filter((w) => w.word_is_final)
          .map((w) => w.text)
          .join(' '),
        'the transcript holds the final words only',
      );
    const ended = turns.find((t) => t.end_of_turn && !t.turn_is_formatted && t.words.length > 0)!;
    for (const t of pending) {
      const at = t.words.length - 1;
      assert.equal(t.words[at]!.start - ended.words[at]!.start, 20, '--pending-words 20: a pending word is re-timed when final');
      assert.equal(t.words[at]!.speaker, undefined, 'a pending word has no speaker yet');
    }
    const formatted = turns.filter((t) => t.turn_is_formatted && t.transcript).map((t) => t.transcript);
    assert.deepEqual(formatted, ['The birch canoe slid on the smooth planks.'], 'one full stop');
    const [revision] = relay.received.filter((m) => m.type === 'SpeakerRevision') as Array<{ revisions: Array<{ words: Word[] }> }>;
    assert.deepEqual(
      revision!.revisions[0]!.words.map((w) => w.speaker),
      ['A', 'A', 'A', 'A', 'B', 'B', 'B', 'B'],
      'the revision gives each word its reference speaker',
    );
  });
});

/** `voxbench serve` on a free port with `args`, stopped when the file ends: its WebSocket origin. */
async function serve(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--quiet', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  after(() => child.kill());
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const listening = /listening on (ws:\/\/[^/\s]+)/.exec(out);
      if (listening) resolve(listening[1]!);
    });
    child.once('exit', (code) => reject(new Error(`voxbench serve exited with ${code}: ${out}`)));
  });
}
