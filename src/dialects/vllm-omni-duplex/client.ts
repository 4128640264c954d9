import { jsonSentReader, jsonBytesDecoder, type Reaction, type Reactions, type SessionSettings, type WebSocketDialect } from '../dialect.js';
import { wireTurnDetection, type OpenAITurnDetection } from '../realtime-common.js';
import { interpretConversationEvent, readConversationSent } from '../s2s-events.js';
import { conversationPolicy } from '../s2s-policy.js';
import type { ReceivedFrame } from '../../timeline/types.js';

const INPUT_RATE = 16_000;
const OUTPUT_RATE = 24_000;
/** How often a player reports its playback (vLLM-Omni's eval runner acks every 0.25 s). */
export const PLAYBACK_ACK_MS = 250;
/** vLLM-Omni's DuplexClient heartbeat period. */
export const HEARTBEAT_MS = 30_000;

/**
 * vLLM-Omni full-duplex realtime (`/v1/realtime?duplex=1`, MiniCPM-o 4.5).
 *
 * connect (`duplex=1&model=M&autostart=0`) → `session.created` → `session.update
 * {session: {modalities, formats, rates, turn_detection, extra_body}}` →
 * `input_audio_buffer.append {audio, format, sample_rate_hz, duration_ms, audio_end_ms}`*
 * → with client turn detection `input_audio_buffer.commit {final, response_create}` →
 * `response.created` → `response.output_audio.delta` (or the older `response.audio.delta`,
 * `metadata.audio_duration_ms` cumulative) with transcript deltas → `response.done` (or
 * `response.listen` with its id). The client acknowledges every event carrying
 * `server_event_seq` (`session.event_ack`), reports what its player has played
 * (`playback.ack`), beats `session.heartbeat` and ends with `session.close`.
 */
export function vllmOmniDuplexDialect(settings: { model: string; turnDetection: OpenAITurnDetection; instructions?: string }): WebSocketDialect {
  const update = (session?: SessionSettings): string => {
    const instructions = session?.instructions ?? settings.instructions;
    return JSON.stringify({
      type: 'session.update',
      session: {
        model: settings.model,
        modalities: ['audio', 'text'],
        input_audio_format: 'pcm16',
        output_audio_format: 'pcm16',
        sample_rate_hz: INPUT_RATE,
        audio: { input: { sample_rate_hz: INPUT_RATE }, output: { sample_rate_hz: OUTPUT_RATE } },
        turn_detection: wireTurnDetection(settings.turnDetection),
        ...(instructions !== undefined ? { instructions } : {}),
        ...(session?.referenceAudio !== undefined ? { ref_audio: session.referenceAudio } : {}),
        extra_body: { auto_response: true },
      },
    });
  };
  const sessionUpdate = update();
  const commit = JSON.stringify({ type: 'input_audio_buffer.commit', final: true, response_create: true });
  return {
    name: 'vllm-omni-duplex',
    task: 's2s',
    transport: 'websocket',
    sampleRate: INPUT_RATE,
    turnDetection: settings.turnDetection.type === 'none' ? 'client' : 'server',
    readyEvent: 'session.created',
    policy: conversationPolicy,
    connectUrl: (target) => {
      const url = new URL(target);
      if (url.pathname.endsWith('/realtime') && !url.searchParams.has('duplex')) url.searchParams.set('duplex', '1');
      if (!url.searchParams.has('model')) url.searchParams.set('model', settings.model);
      url.searchParams.set('autostart', '0'); // autostart would race session.update
      return url.toString();
    },
    upgradeHeaders: () => ({}),
    sessionFrames: (session) => [session?.instructions === undefined && session?.referenceAudio === undefined ? sessionUpdate : update(session)],
    sessionUpdateFrame: () => sessionUpdate,
    inputStartFrame: () => null,
    audioFrame: (pcm16, span) => appendFramer(pcm16)(span).toString(),
    audioFramer: appendFramer,
    inputEndFrame: () => commit,
    flushFrame: () => commit,
    decode: jsonBytesDecoder('vllm-omni-duplex', (data) => interpretConversationEvent(data, OUTPUT_RATE)),
    readSent: jsonSentReader(readConversationSent),
    reactions: duplexReactions,
  };
}

/**
 * A duplex client's own frames: an ack for every sequenced event, a player's playback
 * reports, heartbeats and the closing event. The player starts each response's audio as
 * it arrives and plays it at the session's pace, stalling when it runs out.
 */
function duplexReactions({ speed }: { speed: number }): Reactions {
  /** Per response: audio received, when it will all have played (run clock), what was last reported. */
  const players = new Map<string, { itemId?: string; receivedMs: number; runsOutMs: number; reportedMs: number }>();
  let lastBeat: number | undefined;
  return {
    received(event: ReceivedFrame): Reaction[] {
      // A cancelled answer is flushed from the player, as a barge-in does: nothing more of it plays.
      if (event.kind === 'response_cancelled') players.delete(event.responseId ?? '');
      else if (event.kind === 'audio' && event.audioMs) {
        const id = event.responseId ?? '';
        const player = players.get(id) ?? { receivedMs: 0, runsOutMs: event.t, reportedMs: 0 };
        if (event.itemId !== undefined) player.itemId = event.itemId;
        player.receivedMs += event.audioMs;
        player.runsOutMs = Math.max(player.runsOutMs, event.t) + event.audioMs / speed;
        players.set(id, player);
      }
      return event.serverSeq === undefined ? [] : [{ frame: `{"type":"session.event_ack","server_event_seq":${event.serverSeq}}`, control: 'event_ack' }];
    },
    sent: () => [],
    tickMs: PLAYBACK_ACK_MS,
    tick(now: number): Reaction[] {
      const frames: Reaction[] = [];
      lastBeat ??= now;
      if (now - lastBeat >= HEARTBEAT_MS / speed) {
        lastBeat = now;
        frames.push({ frame: '{"type":"session.heartbeat"}', control: 'heartbeat' });
      }
      for (const [id, player] of players) {
        const playedMs = round(player.receivedMs - Math.max(0, (player.runsOutMs - now) * speed));
        if (playedMs <= player.reportedMs) continue;
        player.reportedMs = playedMs;
        const item = player.itemId !== undefined ? { item_id: player.itemId } : {};
        frames.push({
          frame: JSON.stringify({ type: 'playback.ack', played_ms: playedMs, committed_ms: playedMs, response_id: id, ...item }),
          control: 'playback_ack',
        });
      }
      return frames;
    },
    closing: () => [{ frame: '{"type":"session.close"}', control: 'session_close' }],
  };
}

/** `input_audio_buffer.append` frames of one payload, base64-encoded once; a send copies it beside its span's few bytes. */
function appendFramer(pcm16: Buffer): (span: { startMs: number; endMs: number }) => Buffer {
  const head = Buffer.from(
    `{"type":"input_audio_buffer.append","audio":"${pcm16.toString('base64')}","format":"pcm16","sample_rate_hz":${INPUT_RATE},"duration_ms":`,
  );
  return (span) => {
    const tail = Buffer.from(`${round(span.endMs - span.startMs)},"audio_end_ms":${round(span.endMs)}}`);
    return Buffer.concat([head, tail], head.length + tail.length);
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
