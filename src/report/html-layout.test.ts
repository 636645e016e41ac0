// report.html as a person reads it, in Debian's headless Chromium: with the
// long content of a real run (long-report.sample.ts) the page never scrolls
// sideways at 1280 px, with every check and its evidence closed or open; each
// comparison is a table with one row per step; a row's message is short and
// the whole one is a click away. CREDPROV_SCREENSHOT_DIR=<dir> keeps the
// screenshots (1280 and 1400 px wide, everything open) for a person to look at.
import { afterAll, describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { testIf } from '../testing/prerequisites.ts';
import { useTempDir } from '../testing/tmp.ts';
import { toHtml } from './html.ts';
import { messageBesideComparison, ROW_MESSAGE_CHARS, rowMessage } from './html-text.ts';
import { longReport } from './long-report.sample.ts';
import { stepsOf } from './steps.ts';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const inBrowser = testIf(
  CHROMIUM ? { ok: true } : { ok: false, reason: "no Chromium (scripts/setup.sh --tests installs Debian's chromium)" },
);
const tmp = useTempDir('credprov-html-layout-');

// Browser-side code as strings: the test program has no DOM types.
const OPEN_ALL = `document.querySelectorAll('details').forEach((d) => { d.open = true; })`;
const WIDTHS = `(() => {
  const root = document.documentElement;
  // Boxes that scroll or spill sideways inside themselves: a cell or a <pre> its text does not fit.
  const spilling = [...document.querySelectorAll('td, th, pre')]
    .filter((e) => e.scrollWidth > e.clientWidth + 1)
    .map((e) => e.tagName + ': ' + e.textContent.slice(0, 60));
  return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, spilling };
})()`;

describe('report.html layout', () => {
  test('a row shows the message without the reason its comparison shows, cut at a word', () => {
    const report = longReport();
    for (const c of report.checks) {
      const short = rowMessage(messageBesideComparison(c));
      expect(short.length).toBeLessThanOrEqual(ROW_MESSAGE_CHARS + 1);
      if (c.comparison) expect(short).not.toContain(c.comparison.because);
    }
    const key = report.checks.find((c) => c.id === 'CACHE-KEY-IMAGE')!;
    expect(key.message.length).toBeGreaterThan(1000);
    const row = rowMessage(messageBesideComparison(key));
    expect(row).toMatch(/^predicted first pull of .*; the kubelet: first pull .*…$/);
    expect(row).not.toContain(key.comparison!.model);
  });

  let browser: import('puppeteer-core').Browser | undefined;
  afterAll(async () => browser?.close());

  inBrowser(
    'at 1280 px the page does not scroll sideways, closed or open; a comparison is a table with one row per step',
    async () => {
      const report = longReport();
      const file = join(tmp(), 'report.html');
      await writeFile(file, toHtml(report));
      const { launch } = await import('puppeteer-core');
      browser = await launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 1800 });
      await page.goto(`file://${file}`, { waitUntil: 'load' });
      const closed = (await page.evaluate(WIDTHS)) as { scrollWidth: number; clientWidth: number; spilling: string[] };
      expect(closed.clientWidth).toBe(1280);
      expect(closed.scrollWidth).toBeLessThanOrEqual(closed.clientWidth);
      await page.evaluate(OPEN_ALL);
      const open = (await page.evaluate(WIDTHS)) as typeof closed;
      expect(open.scrollWidth).toBeLessThanOrEqual(open.clientWidth);
      expect(open.spilling).toEqual([]);

      // One table row per step, named as the values name them, wherever the step sits (shown or folded away).
      for (const c of report.checks.filter((x) => x.comparison)) {
        const rows = (await page.$$eval(`[id="check-${c.id}"] table.cmp tbody tr`, (trs) =>
          trs.map((tr) => [tr.querySelector('th')?.textContent, tr.className]),
        )) as Array<[string, string]>;
        const steps = stepsOf(c.comparison!);
        expect(rows.map((r) => r[0]).sort()).toEqual(steps.map((s) => s.name).sort());
      }
      const key = report.checks.find((c) => c.id === 'CACHE-KEY-IMAGE')!;
      const keyRows = await page.$$eval('[id="check-CACHE-KEY-IMAGE"] table.cmp tbody tr', (trs) =>
        trs.map((tr) => [...tr.children].map((td) => td.textContent)),
      );
      expect(keyRows).toHaveLength((key.comparison!.predicted as unknown[]).length);
      const differing = stepsOf(key.comparison!).filter((s) => !s.same);
      expect(keyRows.filter((r) => r[3] === 'differs').map((r) => r[0])).toEqual(differing.map((s) => s.name));
      // The whole message is in the opened check, the reason below the table a clause per line.
      const detail = await page.$eval('[id="check-CACHE-KEY-IMAGE"] details', (d) => d.textContent ?? '');
      expect(detail).toContain(messageBesideComparison(key));
      expect(await page.$$eval('[id="check-CACHE-KEY-IMAGE"] ul.because li', (li) => li.length)).toBe(4);

      const dir = process.env.CREDPROV_SCREENSHOT_DIR;
      for (const width of [1280, 1400]) {
        await page.setViewport({ width, height: 1800 });
        const png = join(tmp(), `report-${width}.png`);
        await page.screenshot({ path: png, fullPage: true });
        if (dir) await copyFile(png, join(dir, `report-${width}.png`));
      }
      expect(existsSync(join(tmp(), 'report-1400.png'))).toBe(true);
    },
    60_000,
  );
});
