import { jsonSentReader, jsonBytesDecoder, type Reactions, type WebSocketDialect } from '../dialect.js';
import { wireTurnDetection, type OpenAITurnDetection } from '../realtime-common.js';
import { interpretConversationEvent, readConversationSent } from '../s2s-events.js';
import { conversationPolicy } from '../s2s-policy.js';

/** OpenAI's `audio/pcm`: PCM16 at 24 kHz, both ways. */
const RATE = 24_000;

/**
 * OpenAI Realtime conversation sessions (`?model=gpt-realtime`), as voice agents use them.
 *
 * connect → `session.created` → `session.update {session: {type: "realtime",
 * output_modalities: ["audio"], audio: {input: {format, turn_detection, transcription},
 * output: {format, voice}}}}` → `input_audio_buffer.append`* → with `server_vad` or
 * `semantic_vad` the server commits and answers (a stream that ends mid-utterance is flushed
 * with a commit, then `response.create` once it is committed); with `turn_detection: null` the
 * client sends `input_audio_buffer.commit` then `response.create` → `response.created` →
 * `response.output_audio.delta` / `response.output_audio_transcript.delta` (beta:
 * `response.audio.delta` / `response.audio_transcript.delta`, both accepted) →
 * `response.done {response: {status}}`.
 */
export function openaiRealtimeDialect(settings: { model: string; turnDetection: OpenAITurnDetection; instructions?: string }): WebSocketDialect {
  /** OpenAI takes instructions per session, and no reference voice. */
  const update = (instructions: string | undefined): string =>
    JSON.stringify({
      type: 'session.update',
      session: {
        type: 'realtime',
        model: settings.model,
        output_modalities: ['audio'],
        ...(instructions !== undefined ? { instructions } : {}),
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: RATE },
            turn_detection: wireTurnDetection(settings.turnDetection),
            transcription: { model: 'gpt-4o-mini-transcribe' },
          },
          output: { format: { type: 'audio/pcm', rate: RATE }, voice: 'marin' },
        },
      },
    });
  const sessionUpdate = update(settings.instructions);
  const commit = JSON.stringify({ type: 'input_audio_buffer.commit' });
  const responseCreate = JSON.stringify({ type: 'response.create', response: { output_modalities: ['audio'] } });
  const askForAnswer = [{ frame: responseCreate, control: 'response_request' }] as const;
  // A client commit asks for no answer by itself: `response.create` follows it at once.
  const clientTurns = (): Reactions => ({
    received: () => [],
    sent: (frame) => (frame.control === 'input_end' ? [...askForAnswer] : []),
    tickMs: 0,
    tick: () => [],
    closing: () => [],
  });
  /**
   * Server VAD: the closing flush is a plain commit too, and the VAD's `create_response` answers
   * only the VAD's own commits ("Committing the input audio buffer will trigger input audio
   * transcription …, but it will not create a response from the model"), so once the server
   * commits the speech the flush cut, the client asks for its answer. That commit is the one whose
   * speech the VAD never stopped: a commit during VAD activation sends no `speech_stopped` (the
   * `speech_started` reference). A flush that raced the VAD's stop commits no speech (refused,
   * or an item of the silence after the stop) and the VAD's commit has its own answer: no
   * second one is asked for.
   */
  const serverTurns = (): Reactions => {
    let flushed = false;
    let speaking = false;
    return {
      received(event) {
        if (event.kind === 'speech_started' || event.kind === 'speech_stopped') speaking = event.kind === 'speech_started';
        else if (event.kind === 'committed') {
          const cut = flushed && speaking;
          speaking = false;
          if (cut) return [...askForAnswer];
        }
        return [];
      },
      sent(frame) {
        if (frame.control === 'flush') flushed = true;
        return [];
      },
      tickMs: 0,
      tick: () => [],
      closing: () => [],
    };
  };
  return {
    name: 'openai-realtime',
    task: 's2s',
    transport: 'websocket',
    sampleRate: RATE,
    turnDetection: settings.turnDetection.type === 'none' ? 'client' : 'server',
    readyEvent: 'session.created',
    policy: conversationPolicy,
    connectUrl: (target) => {
      const url = new URL(target);
      if (!url.searchParams.has('model')) url.searchParams.set('model', settings.model);
      return url.toString();
    },
    upgradeHeaders: () => ({}),
    sessionFrames: (session) => [session?.instructions === undefined ? sessionUpdate : update(session.instructions)],
    sessionUpdateFrame: () => sessionUpdate,
    inputStartFrame: () => null,
    audioFrame: (pcm16) => `{"type":"input_audio_buffer.append","audio":"${pcm16.toString('base64')}"}`,
    inputEndFrame: () => commit,
    flushFrame: () => commit,
    decode: jsonBytesDecoder('openai-realtime', (data) => interpretConversationEvent(data, RATE)),
    readSent: jsonSentReader(readConversationSent),
    reactions: settings.turnDetection.type === 'none' ? clientTurns : serverTurns,
  };
}
