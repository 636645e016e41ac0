// report.md and report.html list failed checks first (MUST before SHOULD);
// report.json and junit.xml keep the order the checks ran in.
import { describe, expect, test } from '@jest/globals';
import { toHtml } from './html.ts';
import { toMarkdown } from './markdown.ts';
import { failedFirst, summarize, type CheckResult, type RunReport } from './model.ts';

const check = (id: string, status: CheckResult['status'], level: CheckResult['level'] = 'MUST'): CheckResult => ({
  id,
  title: `${id} title`,
  level,
  source: 's',
  status,
  message: `${id} message`,
  evidence: [],
  startedAt: '2026-11-29T00:00:00Z',
  durationMs: 1,
});

const checks = [
  check('A-PASS', 'passed'),
  check('B-SKIP', 'skipped'),
  check('C-SHOULD', 'failed', 'SHOULD'),
  check('D-PASS', 'passed'),
  check('E-MUST', 'failed'),
];
const report: RunReport = {
  tool: { name: 'credprov', version: '0', command: 'certify kubelet-plugin' },
  subject: {},
  checks,
  summary: summarize(checks),
  startedAt: '2026-11-29T00:00:00Z',
  durationMs: 1,
};
const order = (text: string) =>
  ['A-PASS', 'B-SKIP', 'C-SHOULD', 'D-PASS', 'E-MUST'].sort((a, b) => text.indexOf(a) - text.indexOf(b));

describe('failed checks come first', () => {
  test('failedFirst: MUST failures, then SHOULD failures, then the rest as they ran', () => {
    expect(failedFirst(checks).map((c) => c.id)).toEqual(['E-MUST', 'C-SHOULD', 'A-PASS', 'B-SKIP', 'D-PASS']);
  });

  test('in report.md', () => {
    expect(order(toMarkdown(report))).toEqual(['E-MUST', 'C-SHOULD', 'A-PASS', 'B-SKIP', 'D-PASS']);
  });

  test('in report.html', () => {
    const html = toHtml(report);
    expect(order(html.slice(html.indexOf('<table id="checks">')))).toEqual([
      'E-MUST',
      'C-SHOULD',
      'A-PASS',
      'B-SKIP',
      'D-PASS',
    ]);
  });
});
