import type WebSocket from 'ws';
import { pcm16WavHeader } from '../../audio/wav-header.js';
import type { SessionContext } from '../../server/sessions/session-context.js';
import { SPEECH_RATE } from '../../server/sessions/speech-endpoint.js';
import { SpeechStream } from '../../server/sessions/speech-stream.js';
import type { SimulatedDialect } from '../../server/simulated-dialect.js';
import { VLLM_OMNI_SPEECH_WS } from './spec.js';

/** Largest `input.text` message vLLM-Omni takes, bytes. */
const MAX_TEXT_BYTES = 128 * 1024;

/**
 * One connection speaking vLLM-Omni's `/v1/audio/speech/stream`, newest behaviour:
 * `session.config` first (else an error and the socket closes), `input.text` pieces
 * buffered, each `input.done` one utterance (`audio.start`, binary PCM16 or a WAV file
 * per sentence, `audio.done`, `session.done`), the socket kept open for the next until
 * `session.close`. With `stream_audio` (PCM only) `audio.start` waits for the first
 * chunk; without it, it comes before generation and the audio is one WAV file.
 * Mistakes give `{type: "error", message}` and the session goes on.
 */
export class OmniSpeechSession {
  private readonly speech: SpeechStream;
  private configured = false;
  private streamAudio = false;
  private text = '';
  private utterance = 0;

  constructor(
    private readonly ws: WebSocket,
    private readonly ctx: SessionContext,
  ) {
    this.speech = new SpeechStream(
      ws,
      ctx,
      {
        errorFrame: (_code, message) => JSON.stringify({ type: 'error', message }),
        deltaFrame: () => ['{"type":"audio.chunk","audio_b64":"', '"}'],
        noiseFrame: () => '{"type":"ping"}',
      },
      SPEECH_RATE,
    );
    if (this.speech.faults.reach('open')) return;
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.speech.faults.gone) return;
    let event: Record<string, unknown>;
    try {
      if (isBinary) throw new Error();
      event = JSON.parse(data.toString('utf8')) as typeof event;
      if (typeof event !== 'object' || event === null) throw new Error();
    } catch {
      return this.refuse('Invalid JSON message');
    }
    if (!this.configured) {
      if (event.type !== 'session.config') return this.refuse(`Expected session.config as the first message, got ${String(event.type)}`, true);
      return this.configure(event);
    }
    switch (event.type) {
      case 'input.text':
        if (typeof event.text !== 'string') return this.refuse('input.text needs a string "text"');
        if (Buffer.byteLength(event.text) > MAX_TEXT_BYTES) return this.refuse(`input.text is over ${MAX_TEXT_BYTES} bytes`);
        this.text += event.text;
        return;
      case 'input.done':
        return this.flush();
      case 'session.config':
        return this.refuse(this.speech.busy ? 'session.config is not allowed while an utterance is open' : 'the session is already configured');
      case 'session.close':
        this.ws.close(1000);
        return;
      default:
        return this.refuse(`Unknown message type: ${String(event.type)}`);
    }
  }

  private configure(event: Record<string, unknown>): void {
    if (typeof event.model === 'string' && !this.ctx.servedModels.includes(event.model))
      return this.refuse(`The model \`${event.model}\` does not exist.`, true);
    const format = event.response_format ?? 'wav';
    if (format !== 'pcm' && format !== 'wav')
      return this.refuse(`response_format ${typeof format === 'string' ? format : JSON.stringify(format)} is not served here; use pcm or wav`, true);
    this.streamAudio = event.stream_audio === true;
    if (this.streamAudio && format !== 'pcm') return this.refuse('stream_audio requires response_format "pcm"', true);
    this.configured = true;
  }

  private flush(): void {
    const text = this.text.trim();
    this.text = '';
    const utterance = this.utterance++;
    const start = JSON.stringify({
      type: 'audio.start',
      utterance_index: utterance,
      sentence_index: 0,
      sentence_text: text,
      format: this.streamAudio ? 'pcm' : 'wav',
      sample_rate: SPEECH_RATE,
      channels: 1,
    });
    const finish = (totalBytes: number): void => {
      this.speech.send(JSON.stringify({ type: 'audio.done', utterance_index: utterance, sentence_index: 0, total_bytes: totalBytes, error: false }));
      this.speech.send(JSON.stringify({ type: 'session.done', utterance_index: utterance, total_sentences: 1 }));
    };
    if (text === '') {
      // No audio, but start and done stay paired.
      this.speech.send(start);
      return finish(0);
    }
    const pieces: Buffer[] = [];
    this.speech.speak(text, {
      start: () => {
        if (!this.streamAudio) this.speech.send(start);
      },
      chunk: (pcm, index) => {
        if (!this.streamAudio) return void pieces.push(pcm);
        if (index === 0) this.speech.send(start);
        this.speech.send(pcm);
      },
      done: (totalBytes) => {
        if (!this.streamAudio) this.speech.send(Buffer.concat([pcm16WavHeader(SPEECH_RATE, totalBytes), ...pieces]));
        finish(totalBytes);
      },
      error: (code, sentBytes) =>
        this.speech.send(
          JSON.stringify({ type: 'error', message: `generation failed (${code})`, ...(sentBytes > 0 ? { partial_audio: true, action: 'discard' } : {}) }),
        ),
    });
  }

  /** An error; `fatal` ones (a bad handshake) close the socket, as vLLM-Omni does. */
  private refuse(message: string, fatal = false): void {
    this.speech.send(JSON.stringify({ type: 'error', message }));
    if (fatal) this.ws.close(1008, message.slice(0, 120));
  }
}

export const simulatedVllmOmniSpeechWs = { ...VLLM_OMNI_SPEECH_WS, open: (ws, ctx) => new OmniSpeechSession(ws, ctx) } satisfies SimulatedDialect;
