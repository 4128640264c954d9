import type { ChartSpec } from '../chart-spec.js';

/** The id of the JSON block that the renderer writes and the page script reads. */
export const DATA_ELEMENT_ID = 'voxbench-data';

/** What the page script reads from that block. */
export interface PageData {
  charts: Record<string, ChartSpec>;
}
