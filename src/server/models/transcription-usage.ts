/** Audio a transcription model reads as one input token (OpenAI bills gpt-4o-transcribe audio at about this rate). */
const AUDIO_MS_PER_TOKEN = 20;

/** A transcription's token usage as OpenAI reports it: audio in, one output token a word. */
export function transcriptionTokens(
  audioMs: number,
  words: number,
): {
  type: 'tokens';
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_token_details: { audio_tokens: number; text_tokens: number };
} {
  const input = Math.ceil(audioMs / AUDIO_MS_PER_TOKEN);
  return {
    type: 'tokens',
    input_tokens: input,
    output_tokens: words,
    total_tokens: input + words,
    input_token_details: { audio_tokens: input, text_tokens: 0 },
  };
}
