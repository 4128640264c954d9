/** A `multipart/form-data` body the server cannot read; the message says why (answered with 422). */
export class MultipartError extends Error {
  override name = 'MultipartError';
}

export interface FormFile {
  fileName: string;
  contentType: string;
  data: Buffer;
}

/** A parsed form: text fields and file fields by name (the first of each name). */
export interface Form {
  fields: Map<string, string>;
  /** Every value of each text field, in order: array fields (`timestamp_granularities[]`) repeat their name. */
  values: Map<string, string[]>;
  files: Map<string, FormFile>;
}

/** Bounds on what a form may hold beyond its size, which the reader bounds. */
const MAX_PARTS = 64;
const MAX_HEADER_BYTES = 8192;
const MAX_FIELD_BYTES = 65_536;

/**
 * Parses the multipart form a transcription request sends: text fields and files,
 * each part's headers limited to Content-Disposition and Content-Type. The body is
 * already in memory (bounded by the caller); the parse only slices it.
 */
export function parseMultipart(body: Buffer, contentType: string): Form {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!/^multipart\/form-data/i.test(contentType) || !boundary) throw new MultipartError('expected a multipart/form-data body with a boundary');
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const form: Form = { fields: new Map(), values: new Map(), files: new Map() };
  let at = body.indexOf(delimiter);
  if (at < 0) throw new MultipartError('the body holds no part');
  for (let parts = 0; ; parts++) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString('latin1') === '--') return form;
    if (parts >= MAX_PARTS) throw new MultipartError(`the form has more than ${MAX_PARTS} parts`);
    if (body.subarray(at, at + 2).toString('latin1') !== '\r\n') throw new MultipartError('a boundary is not followed by a line break');
    const headersEnd = body.indexOf('\r\n\r\n', at + 2);
    if (headersEnd < 0 || headersEnd - at > MAX_HEADER_BYTES) throw new MultipartError('a part has no end to its headers');
    const headers = body.subarray(at + 2, headersEnd).toString('utf8');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headersEnd + 4);
    if (next < 0) throw new MultipartError('the body ends inside a part (no closing boundary)');
    const data = body.subarray(headersEnd + 4, next);
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(headers)?.[1] ?? '';
    const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) throw new MultipartError('a part has no Content-Disposition name');
    const fileName = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1];
    if (fileName !== undefined) {
      if (!form.files.has(name))
        form.files.set(name, { fileName, contentType: /^content-type:\s*(.+)$/im.exec(headers)?.[1]?.trim() ?? 'application/octet-stream', data });
    } else {
      if (data.length > MAX_FIELD_BYTES) throw new MultipartError(`field "${name}" is longer than ${MAX_FIELD_BYTES} bytes`);
      const value = data.toString('utf8');
      if (!form.fields.has(name)) form.fields.set(name, value);
      form.values.set(name, [...(form.values.get(name) ?? []), value]);
    }
    at = next + 2;
  }
}
