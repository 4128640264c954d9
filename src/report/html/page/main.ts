import type UPlot from 'uplot';
import { drawReportPage, type PageWindow } from './draw.js';

/**
 * The page script's entry. The bundle (scripts/bundle-page.ts) puts it after the page
 * modules it imports, in one classic script that runs after the inlined uPlot.
 */

// The browser's globals, unknown to the project's type library (it has no DOM).
declare const window: PageWindow;
declare const uPlot: typeof UPlot;

drawReportPage(window, uPlot);
