/** Invalid options or input; the message says which and what to do. */
export class UsageError extends Error {
  override name = 'UsageError';
}
