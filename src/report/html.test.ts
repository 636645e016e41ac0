// report.html in a real headless browser (Debian's Chromium through
// puppeteer-core): it loads from file:// with no network request, the status
// filters and the text filter work, and no secret is in the DOM.
import { afterAll, describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redactor } from '../core/redact.ts';
import { testIf } from '../testing/prerequisites.ts';
import { useTempDir } from '../testing/tmp.ts';
import { histogram, toHtml } from './html.ts';
import type { CheckResult, RunReport } from './model.ts';
import { writeReports } from './write.ts';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const inBrowser = testIf(
  CHROMIUM ? { ok: true } : { ok: false, reason: "no Chromium (scripts/setup.sh --tests installs Debian's chromium)" },
);
const tmp = useTempDir('credprov-html-');
const SECRET = 'canary-password-7f3a91';

const check = (id: string, status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult => ({
  id,
  title: `title of ${id}`,
  level: 'MUST',
  source: 'KEP-2133',
  status,
  message: `message of ${id}`,
  evidence: [],
  startedAt: '2026-11-24T00:00:00Z',
  durationMs: 1,
  suite: 'matching',
  ...extra,
});

function sample(): RunReport {
  return {
    tool: { name: 'credprov', version: '0.1.0', command: 'credprov run' },
    subject: { provider: 'local' },
    checks: [
      check('MATCH-OK', 'passed', {
        comparison: {
          model: 'matching oracle',
          because: 'config order',
          predicted: ['a', 'b'],
          observed: ['a', 'b'],
          agree: true,
        },
      }),
      check('MATCH-BAD', 'failed', {
        comparison: {
          model: 'matching oracle',
          because: 'port differs',
          predicted: "not exec'd",
          observed: "exec'd",
          agree: false,
        },
        evidence: [
          {
            kind: 'invocation',
            label: 'plugin invocations',
            data: [{ response: { stdout: `{"auth":{"reg":{"username":"u","password":"${SECRET}"}}}` } }],
          },
          { kind: 'log', label: 'kubelet log excerpt', text: `<script>alert(1)</script> ${SECRET}` },
        ],
      }),
      check('MATCH-SKIPPED', 'skipped'),
    ],
    summary: { passed: 1, failed: 1, skipped: 1 },
    suites: [{ name: 'matching', summary: 'which providers the kubelet execs', durationMs: 1234 }],
    metrics: { durationsMs: [1, 2, 2, 3, 3, 3, 9] },
    startedAt: '2026-11-24T00:00:00Z',
    durationMs: 2000,
  };
}

describe('report.html', () => {
  test('is one file with no external reference, and escapes what it shows', () => {
    const html = toHtml(sample());
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  test('the latency histogram has one bar per bin and states p50/p95', () => {
    const svg = histogram([1, 2, 3, 4, 100]);
    expect(svg.match(/<rect /g)).toHaveLength(20);
    expect(svg).toMatch(/p50 3\.0 ms · p95 100\.0 ms/);
  });

  let browser: import('puppeteer-core').Browser | undefined;
  afterAll(async () => browser?.close());

  inBrowser(
    'loads in Chromium without a network request; status and text filters work; no secret in the DOM',
    async () => {
      const redactor = new Redactor();
      redactor.add(SECRET);
      const dir = join(tmp(), 'report');
      await writeReports(sample(), dir, redactor);
      const { launch } = await import('puppeteer-core');
      browser = await launch({ executablePath: CHROMIUM!, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(`file://${join(dir, 'report.html')}`, { waitUntil: 'load' });
      expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
      const shown = () => page.$eval('#shown', (e) => e.textContent);
      const visible = () =>
        page.$$eval('#checks tr.check', (rows) =>
          rows.filter((r) => !r.classList.contains('hidden')).map((r) => r.querySelector('b')?.textContent),
        );
      expect(await shown()).toBe('3 of 3 checks shown');
      await page.click('input[data-status="passed"]');
      expect(await visible()).toEqual(['MATCH-BAD', 'MATCH-SKIPPED']);
      await page.type('#q', 'skipped');
      expect(await visible()).toEqual(['MATCH-SKIPPED']);
      expect(await shown()).toBe('1 of 3 checks shown');
      const dom = await page.content();
      expect(dom).not.toContain(SECRET);
      expect(dom).toContain('&lt;redacted&gt;');
      // A person looks at it too: the screenshot lands beside the report.
      // Browser-side code as a string: the test program has no DOM types.
      await page.evaluate(`(() => {
      document.querySelector('#q').value = '';
      document.querySelectorAll('input[data-status]').forEach((b) => { b.checked = true; });
      document.querySelector('#q').dispatchEvent(new Event('input'));
      document.querySelector('#ev-1').open = true;
    })()`);
      await page.screenshot({ path: join(dir, 'report.png'), fullPage: true });
      expect(existsSync(join(dir, 'report.png'))).toBe(true);
      if (process.env.CREDPROV_KEEP_SCREENSHOT)
        await (
          await import('node:fs/promises')
        ).copyFile(join(dir, 'report.png'), process.env.CREDPROV_KEEP_SCREENSHOT);
    },
    60_000,
  );
});
