import { randomBytes } from 'node:crypto';

/** A file part of a multipart form. */
export interface FilePart {
  name: string;
  fileName: string;
  contentType: string;
  data: Buffer;
}

/**
 * A `multipart/form-data` body built once into one Buffer (before the clock starts,
 * so a request's upload is one write): text fields, then the file. Field values are
 * the caller's own settings, never server text.
 */
export function multipartBody(fields: ReadonlyArray<readonly [string, string]>, file: FilePart): { body: Buffer; contentType: string } {
  const boundary = `voxbench-${randomBytes(12).toString('hex')}`;
  const quoted = (value: string): string => value.replace(/["\r\n\\]/g, '_');
  const head = fields.map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`).join('');
  const fileHead =
    `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.name)}"; filename="${quoted(file.fileName)}"\r\n` +
    `Content-Type: ${file.contentType}\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head + fileHead, 'utf8'), file.data, Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8')]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
