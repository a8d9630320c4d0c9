// Opens the HTML report in a real headless Chromium (Debian's `chromium`, driven by playwright-core).
import { existsSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { toAISDK } from 'ctxguard';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoDir, runCli, shippedPrefix } from './run-cli.js';

const outputDir = join(demoDir, 'test', '.output');
const reportFile = join(outputDir, 'report.html');
const screenshotFile = join(outputDir, 'report.png');

/** The parts of the page's uPlot instance the tests read. */
interface ChartHandle {
  series: { label: string }[];
  data: (number | null)[][];
  valToPos(value: number, scale: string, canvasPixels: boolean): number;
  ctx: CanvasRenderingContext2D;
}

/** What the report page puts on `window`. */
type ReportGlobal = { ctxguardReport: { chart: ChartHandle } };

interface JsonRow {
  strategy: string;
  compactions: number;
}

function chromiumPath(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'chromium');
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error('chromium is not on PATH: apt-get update && apt-get install -y chromium');
}

let browser: Browser;
let page: Page;
let rows: JsonRow[];
let window: number;

beforeAll(async () => {
  await mkdir(outputDir, { recursive: true });
  const transcript = join(outputDir, 'transcript.json');
  await writeFile(transcript, JSON.stringify({ messages: toAISDK(shippedPrefix(70)) }));
  const run = await runCli([
    '--json',
    '--window',
    '20000',
    '--transcript',
    transcript,
    '--report',
    reportFile,
  ]);
  expect(run.code, run.stderr).toBe(0);
  const result = JSON.parse(run.stdout);
  rows = result.strategies;
  window = result.window;
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const offline: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith('file:')) offline.push(request.url());
  });
  await page.goto(pathToFileURL(reportFile).href);
  await page.waitForSelector('body[data-chart-ready="true"]', { timeout: 30_000 });
  expect(offline).toEqual([]); // self-contained: nothing is fetched
}, 240_000);

afterAll(async () => {
  await browser?.close();
});

it('draws one series per strategy, the unguarded reference, the window and the warning levels', async () => {
  const chart = await page.evaluate(() => {
    const { chart } = (globalThis as unknown as ReportGlobal).ctxguardReport;
    const canvas = chart.ctx.canvas;
    const pixels = chart.ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted++;
    return {
      labels: chart.series.map((s) => s.label),
      points: chart.data.slice(1).map((column) => column.filter((v) => v !== null).length),
      painted,
      legend: Array.from(document.querySelectorAll('.u-legend .u-series'), (el) => el.textContent ?? ''),
    };
  });
  const names = rows.map((row) => row.strategy);
  expect(chart.labels.slice(1)).toEqual([
    '(no guard)',
    ...names,
    'window',
    'input budget',
    '80% warning',
    '60% note',
  ]);
  expect(names.length).toBeGreaterThanOrEqual(2);
  for (const count of chart.points) expect(count).toBeGreaterThan(10); // every series has data
  expect(chart.painted).toBeGreaterThan(20_000); // the canvas is drawn on, not blank
  for (const name of names) expect(chart.legend.some((text) => text.includes(name))).toBe(true);
});

it('draws the window line where the window is', async () => {
  const found = await page.evaluate((limit) => {
    const { chart } = (globalThis as unknown as ReportGlobal).ctxguardReport;
    const y = Math.round(chart.valToPos(limit, 'y', true));
    const { width } = chart.ctx.canvas;
    let red = 0;
    for (let dy = -2; dy <= 2; dy++) {
      const row = chart.ctx.getImageData(0, y + dy, width, 1).data;
      for (let i = 0; i < row.length; i += 4)
        if (row[i]! > 180 && row[i + 1]! < 90 && row[i + 2]! < 90 && row[i + 3]! > 0) red++;
    }
    return red;
  }, window);
  expect(found).toBeGreaterThan(200); // a red (#dc2626) line across the plot at y = window
});

it('lists every compaction event of every strategy', async () => {
  for (const row of rows) {
    const section = page.locator(`section.strategy[data-strategy="${row.strategy}"]`);
    await expect(section.count()).resolves.toBe(1);
    await expect(section.locator('tr.event').count()).resolves.toBe(row.compactions);
  }
  expect(rows.some((row) => row.compactions > 0)).toBe(true);
});

it('shows the hidden messages of a collapsed range when it is expanded, with its rewind id', async () => {
  const row = rows.find((r) => r.compactions > 0)!;
  const range = page
    .locator(`section.strategy[data-strategy="${row.strategy}"] .history details.hidden-range`)
    .first();
  const id = await range.getAttribute('data-compaction-id');
  expect(id).toBeTruthy();
  await expect(range.locator(':scope > summary').textContent()).resolves.toContain(`history.rewind("${id}")`);
  const hidden = range.locator(':scope > .hidden-messages > .message').first();
  await expect(hidden.isVisible()).resolves.toBe(false);
  await range.locator(':scope > summary').click();
  await expect(hidden.isVisible()).resolves.toBe(true);
  await expect(hidden.textContent()).resolves.toMatch(/\S/);
});

it('saves a screenshot beside the report', async () => {
  await page.evaluate(() => globalThis.scrollTo(0, 0));
  await page.screenshot({ path: screenshotFile, fullPage: false });
  expect((await stat(screenshotFile)).size).toBeGreaterThan(10_000);
});
