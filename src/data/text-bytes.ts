/**
 * A text file's bytes as text, decoded by its byte-order mark: UTF-8 (with or without
 * one), UTF-16 LE or BE with one, as editors on Windows save transcripts. Bytes that are
 * none of these (invalid UTF-8, or UTF-16 without its mark, which reads as text full of
 * NULs) throw an Error naming `label`, so the sample is reported instead of scored
 * against garbage.
 */
export function decodeTextBytes(bytes: Uint8Array, label: string): string {
  const encoding = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : 'utf-8';
  let text: string;
  try {
    // The decoder drops the byte-order mark itself (ignoreBOM false).
    text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${label} is not valid ${encoding === 'utf-8' ? 'UTF-8' : encoding.toUpperCase()} text; save it as UTF-8`);
  }
  if (text.includes('\0')) throw new Error(`${label} holds NUL characters (UTF-16 without a byte-order mark?); save it as UTF-8`);
  return text;
}
