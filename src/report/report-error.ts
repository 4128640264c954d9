/** A report file that cannot be used; the message names it and says why. */
export class ReportError extends Error {
  override name = 'ReportError';
}
