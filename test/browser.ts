import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium, driven by playwright-core (never `playwright install`). */
export const CHROMIUM = process.env.VOXBENCH_CHROMIUM ?? '/usr/bin/chromium';
/**
 * Why the browser tests are skipped, or false when they run. In CI they never skip: a
 * missing Chromium fails them there, so a green CI always includes the browser tests.
 */
export function chromiumSkipReason(ci: string | undefined, present: boolean, path = CHROMIUM): string | false {
  if (present || (ci !== undefined && ci !== '' && ci !== 'false')) return false;
  return `no Chromium at ${path} (apt-get install chromium)`;
}
export const NO_CHROMIUM = chromiumSkipReason(process.env.CI, existsSync(CHROMIUM));

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: CI must install it (apt-get install chromium), or set VOXBENCH_CHROMIUM`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The page's ready and error flags, and the one injected payloads would set. */
export interface PageFlags {
  __ready?: boolean;
  __error?: string;
  __xss?: number;
}

/** The little of a DOM element the chart check reads (the project's type library has no DOM). */
interface ChartElement {
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): { length: number };
}

export interface OpenedPage {
  page: Page;
  context: BrowserContext;
  url: string;
  /** Console errors and warnings, page errors and dialogs, as they happen. */
  problems: string[];
  requests: string[];
  /** Every chart on the page: canvases drawn, points and series. */
  charts: Array<{ id: string | null; canvases: number; points: number; series: number }>;
}

/** Opens a page from a file offline, waits until its script is ready and checks that it ran clean. */
export async function openOffline(browser: Browser, file: string): Promise<OpenedPage> {
  const url = pathToFileURL(file).href;
  const context = await browser.newContext({ offline: true, viewport: { width: 1366, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(`console ${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => problems.push(`dialog: ${d.message()}`));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(url);
  await page.waitForFunction(() => (globalThis as PageFlags).__ready || (globalThis as PageFlags).__error, null, { timeout: 15_000 });
  const state = await page.evaluate(() => {
    const w = globalThis as PageFlags;
    return { ready: w.__ready, error: w.__error, xss: w.__xss };
  });
  assert.deepEqual(state, { ready: true, error: undefined, xss: undefined });
  const charts = await page.$$eval('.chart', (els: ChartElement[]) =>
    els.map((el) => ({
      id: el.getAttribute('data-chart'),
      canvases: el.querySelectorAll('canvas').length,
      points: Number(el.getAttribute('data-points')),
      series: Number(el.getAttribute('data-series')),
    })),
  );
  return { page, context, url, problems, requests, charts };
}
