import type { Report } from '../schema.js';
import { coldWarmSection } from './cold-warm.js';
import { definitionsSection } from './definitions.js';
import { distributionsSection } from './distributions.js';
import { failuresSection } from './failures.js';
import { figuresSection } from './figures.js';
import { loadCurvesSection } from './load-curves.js';
import { overviewSection } from './overview.js';
import { playbackSection } from './playback.js';
import { renderPage } from './page.js';
import { speakersSection } from './speakers.js';
import { recordSection } from './record.js';
import { timePanelSection } from './time-panel.js';
import { waterfallSection } from './waterfall.js';
import { werSection } from './wer.js';

export { contentSecurityPolicy } from './page.js';

const SECTIONS = [
  overviewSection,
  distributionsSection,
  loadCurvesSection,
  timePanelSection,
  coldWarmSection,
  waterfallSection,
  playbackSection,
  werSection,
  speakersSection,
  failuresSection,
  figuresSection,
  definitionsSection,
  recordSection,
];

/**
 * The report as one self-contained HTML page (see `renderPage`). Tables are rendered
 * here (escaped); charts are drawn in the browser from embedded JSON that holds only
 * what they need, downsampled, not the stored timelines.
 */
export function renderHtml(report: Report): string {
  const { config } = report;
  return renderPage({
    title: `voxbench · ${config.model} · ${report.startedAt}`,
    heading: `voxbench report · ${config.model}`,
    subtitle: `${config.target} · ${config.protocol} · ${report.startedAt}`,
    // A section that does not apply to the report's task (speech playback for transcription) is left out.
    sections: SECTIONS.flatMap((section) => section(report) ?? []),
  });
}
