import type { Dialect } from './dialect.js';
import type { OpenAISettings } from './realtime-common.js';
import type { SpeechSettings } from './speech-http.js';
import type { DialectSpec, Upgrade } from './spec.js';
import type { TurnDetection } from '../timeline/types.js';
import type { TranscriptionOptions } from './transcriptions/client.js';

export type DialectSettings = Omit<OpenAISettings, 'beta'> & {
  transcription?: TranscriptionOptions;
  speech: SpeechSettings;
  /** Streaming transcription: the longest the server may hold a word before its final, ms (`--max-delay-ms`). */
  maxDelayMs?: number;
  /** Streaming transcription: ask the server to label speakers; the run sets it when its dataset has reference speaker turns. */
  diarize?: boolean;
};

/** The client side of a dialect: its shared spec (with its limits) and how to build its codec. `dialects/index.ts` loads them. */
export interface DialectDescriptor extends DialectSpec {
  create(settings: DialectSettings): Dialect;
  /**
   * On the shared `/v1/realtime` (a dialect without a `path`), whether the proxy takes an
   * upgrade to speak it, by its query and headers; the registry asks in `SHARED_PATH`'s order.
   */
  readonly claims?: (upgrade: Upgrade) => boolean;
  /**
   * Where the upgrade leaves it open, the dialects the client's first messages may settle on
   * instead (OpenAI Realtime serves transcription, conversations and speech generation on one
   * path): a conversation's, when its first input is audio, and speech generation's, when a
   * text to speak. Undefined where the upgrade settles it.
   */
  readonly unsettled?: (upgrade: Upgrade) => { conversation: string; speech: string } | undefined;
  /** Who ends turns, where the upgrade says it (Deepgram's `endpointing`, Scribe's `commit_strategy`) or the service always does (AssemblyAI, whose `ForceEndpoint` is then a flush), rather than the client's configuration; the proxy meters by it. */
  readonly turnDetectionOf?: (upgrade: Upgrade) => TurnDetection | undefined;
}

/** A descriptor that keeps its spec's literal name, from which `Protocol` is derived. */
export function dialectDescriptor<const S extends DialectSpec>(spec: S, client: Omit<DialectDescriptor, keyof DialectSpec>): S & DialectDescriptor {
  return { ...spec, ...client };
}
