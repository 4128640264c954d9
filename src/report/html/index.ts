import type { Report, ReportSession } from '../schema.js';
import { coldWarmSection } from './cold-warm.js';
import { definitionsSection } from './definitions.js';
import { distributionsSection } from './distributions.js';
import { failuresSection } from './failures.js';
import { figuresSection } from './figures.js';
import { loadCurvesSection } from './load-curves.js';
import { overviewSection } from './overview.js';
import { playbackSection, playbackSessions } from './playback.js';
import { renderPage } from './page.js';
import { speakerSessions, speakersSection } from './speakers.js';
import { recordSection } from './record.js';
import { replaySection } from './replay.js';
import { timePanelSection } from './time-panel.js';
import { waterfallSection, waterfallSessions } from './waterfall.js';
import { werSection } from './wer.js';
import { partSection, taskParts, type TaskPart } from './parts.js';
import type { Section } from './section.js';

export { contentSecurityPolicy } from './page.js';

type SectionBuilder = (report: Report, part?: TaskPart) => Section | undefined;

/** Sections in page order; `perTask`: drawn once per task of a merge of different tasks, each by its task's catalog. */
const SECTIONS: ReadonlyArray<{ build: SectionBuilder; perTask?: true }> = [
  { build: overviewSection, perTask: true },
  { build: replaySection },
  { build: distributionsSection, perTask: true },
  { build: loadCurvesSection, perTask: true },
  { build: timePanelSection },
  { build: coldWarmSection },
  { build: waterfallSection },
  { build: playbackSection, perTask: true },
  { build: werSection, perTask: true },
  { build: speakersSection },
  { build: failuresSection },
  { build: figuresSection },
  { build: definitionsSection, perTask: true },
  { build: recordSection },
];

/**
 * The sessions whose timelines the page draws (the waterfall's, the playback charts',
 * the speaker timelines'; a few per level): the only ones it needs timelines of, read
 * back from the session log before it renders.
 */
export function drawnSessions(report: Report): ReportSession[] {
  return [
    ...new Set([
      ...report.benchmarks.flatMap((b) => [...waterfallSessions(b), ...(report.config.task === 'tts' || taskParts(report) ? playbackSessions(b) : [])]),
      ...speakerSessions(report.benchmarks).map((s) => s.session),
    ]),
  ];
}

/**
 * The report as one self-contained HTML page (see `renderPage`). Tables are rendered
 * here (escaped); charts are drawn in the browser from embedded JSON that holds only
 * what they need, downsampled, not the stored timelines.
 */
export function renderHtml(report: Report): string {
  const { config } = report;
  const parts = taskParts(report);
  return renderPage({
    title: `voxbench · ${config.model} · ${report.startedAt}`,
    heading: `voxbench report · ${config.model}`,
    subtitle: parts
      ? `merged from runs of different tasks (${parts.map((p) => p.task).join(', ')}): ${(report.mergedFrom ?? []).join(', ')}`
      : `${config.target} · ${config.protocol} · ${report.startedAt}`,
    // A section that does not apply to the report's task (speech playback for transcription) is left out.
    sections: SECTIONS.flatMap(({ build, perTask }) =>
      perTask && parts
        ? parts.flatMap((part) => {
            const section = build(part.report, part);
            return section ? [partSection(section, part.task)] : [];
          })
        : (build(report) ?? []),
    ),
  });
}
