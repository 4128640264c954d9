/** The formats a report is written in (`--outputs`), apart from their renderers so that a command checks the flag before it loads them. */
export const OUTPUT_FORMATS = ['json', 'csv', 'html', 'md', 'duplex'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What a run writes when not told: the document and the page a person opens (rendering it costs about 0.1 s at 10,000 sessions). */
export const DEFAULT_OUTPUTS: readonly OutputFormat[] = ['json', 'html'];
