import type { SpeakerErrors } from '../models/speakers.js';
import type { Socket } from 'node:net';
import type { FaultScenario } from '../faults/faults.js';
import type { LatencyModel } from '../models/latency-model.js';
import type { ReferenceIndex } from '../models/recognizer.js';
import type { SpeechLatencyModel, VoiceOptions } from '../models/speech-synth.js';

/** What a simulated session needs from its server. */
export interface SessionContext {
  servedModels: readonly string[];
  latency: LatencyModel;
  /** Known audio, at the dialect's sample rate. */
  references: ReferenceIndex;
  /** Sessions open on the server right now, this one included. */
  openSessions(): number;
  /** Send one empty delta per 80 ms frame without a word, as Voxtral does. */
  emptyDeltas: boolean;
  /** Per-connection audio limit, bytes (vLLM: VLLM_MAX_AUDIO_CLIP_FILESIZE_MB). */
  maxAudioBytes: number;
  /** vLLM: acknowledge consumed audio with `{"type": "progress", "audio_bytes": N}` (cumulative). */
  progressAcks: boolean;
  /** vLLM: how fast audio is taken in, times real time (Infinity: at once). */
  ingestSpeed: number;
  /** OpenAI transcription: stream deltas while speech arrives, not after the commit. */
  streamDuringSpeech: boolean;
  /** How wrong speaker labels are, where a session labels speakers. */
  speakers: SpeakerErrors;
  /** AssemblyAI: show each word pending (`word_is_final: false`) before it is final, its times this many ms off; undefined: final at once. */
  pendingWordsMs?: number;
  /** AssemblyAI: end a labelled stream with a `SpeakerRevision` giving earlier turns' words their reference speakers. */
  speakerRevision: boolean;
  /** The faults this connection gets (none for most). */
  faults: FaultScenario;
  /** The connection's socket, for faults below the WebSocket layer. */
  socket: Socket;
  /** Speech generation: the server's voice, and its timing (shared by every session). */
  speech: { latency: SpeechLatencyModel; voice: VoiceOptions };
}
