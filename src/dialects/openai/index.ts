import { dialectDescriptor } from '../descriptor.js';
import type { Upgrade } from '../spec.js';
import { OPENAI_REALTIME } from '../openai-realtime/spec.js';
import { OPENAI_REALTIME_TTS, OPENAI_REALTIME_TTS_BETA } from '../openai-realtime-tts/spec.js';
import { openaiDialect } from './client.js';
import { asksBeta, asksOpenai, OPENAI, OPENAI_BETA } from './spec.js';

/** Transcription, unless the client's first configuration says otherwise; `?intent=transcription` says it at the upgrade. */
const unsettled =
  (speech: string) =>
  ({ url }: Upgrade): { conversation: string; speech: string } | undefined =>
    url.searchParams.get('intent') === 'transcription' ? undefined : { conversation: OPENAI_REALTIME.name, speech };

export const openai = dialectDescriptor(OPENAI, {
  create: (settings) => openaiDialect({ ...settings, beta: false }),
  claims: asksOpenai,
  unsettled: unsettled(OPENAI_REALTIME_TTS.name),
});
export const openaiBeta = dialectDescriptor(OPENAI_BETA, {
  create: (settings) => openaiDialect({ ...settings, beta: true }),
  claims: asksBeta,
  unsettled: unsettled(OPENAI_REALTIME_TTS_BETA.name),
});
