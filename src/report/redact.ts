export const REDACTED = '[redacted]';

const SECRET_PARAM = /key|token|secret|auth|password|signature/i;

/** A URL safe to print: credentials and secret-looking query values replaced (with a URL-safe word). */
export function redactUrl(url: string): string {
  const REDACTED = 'REDACTED';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username) parsed.username = REDACTED;
  if (parsed.password) parsed.password = REDACTED;
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, REDACTED);
  }
  return parsed.toString();
}
