export const REDACTED = '[redacted]';

const SECRET_PARAM = /key|token|secret|auth|password|signature/i;

/** Stands for a secret inside a URL, where brackets would be percent-encoded. */
const URL_REDACTED = 'REDACTED';

/** A URL safe to print: credentials and secret-looking query values replaced. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username) parsed.username = URL_REDACTED;
  if (parsed.password) parsed.password = URL_REDACTED;
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, URL_REDACTED);
  }
  return parsed.toString();
}
