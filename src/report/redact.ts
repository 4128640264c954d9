export const REDACTED = '[redacted]';

/**
 * Query parameters whose values are secrets or stand in for them: API keys, tokens,
 * passwords, JWTs, signatures (`sig`, `Signature`, `X-Amz-Signature`), credentials
 * (`X-Amz-Credential`, `GoogleAccessId`), and every AWS SigV4 and Google V4
 * signing parameter (`X-Amz-*`, `X-Goog-*`, the security token among them). Too
 * broad is a harmless blank in a report; too narrow leaks a working credential.
 */
const SECRET_PARAM = /key|token|secret|auth|pass|pwd|sig|jwt|credential|accessid|^x-(amz|goog)-/i;

/** Stands for a secret inside a URL, where brackets would be percent-encoded. */
const URL_REDACTED = 'REDACTED';

/** A URL safe to print: user info and secret-looking query values replaced. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username) parsed.username = URL_REDACTED;
  if (parsed.password) parsed.password = URL_REDACTED;
  for (const name of new Set(parsed.searchParams.keys())) {
    if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, URL_REDACTED);
  }
  return parsed.toString();
}
