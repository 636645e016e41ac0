import { describe, expect, test } from '@jest/globals';
import { gridsOf } from './grid.ts';
import { toHtml } from './html.ts';
import { toJson } from './json.ts';
import { gridTables } from './markdown.ts';
import type { CheckResult, RunReport } from './model.ts';

const check = (id: string, row: string, column: string, status: CheckResult['status'], text?: string): CheckResult => ({
  id,
  title: 't',
  level: 'SHOULD',
  source: 's',
  status,
  message: `${id} message`,
  evidence: [{ kind: 'text', label: 'seen', text: `${id} evidence` }],
  startedAt: '2026-01-01T00:00:00Z',
  durationMs: 1,
  suite: 'x',
  cell: { table: 'client × behaviour', row, column, ...(text ? { text } : {}) },
});

const checks = [
  check('A[kubectl]', 'caching', 'kubectl', 'passed', '200/1 200/1'),
  check('A[python]', 'caching', 'python', 'failed', '200/2|200/1'),
  check('B[python]', '401 | re-exec', 'python', 'skipped'),
  { ...check('PLAIN', '', '', 'passed'), cell: undefined } as CheckResult,
];

describe('behaviour × client tables', () => {
  test('checks with a cell become one table per title, rows and columns in first-seen order, holes left empty', () => {
    const [g] = gridsOf(checks);
    expect(gridsOf(checks)).toHaveLength(1);
    expect(g!.rows).toEqual(['caching', '401 | re-exec']);
    expect(g!.columns).toEqual(['kubectl', 'python']);
    expect(g!.cells['401 | re-exec']!.kubectl).toBeUndefined();
    expect(g!.cells['401 | re-exec']!.python).toEqual({
      checkId: 'B[python]',
      status: 'skipped',
      text: 'B[python] message',
      message: 'B[python] message',
    });
  });

  test('report.md draws it with the status and text per cell, pipes escaped', () => {
    expect(gridTables(checks).slice(0, 6)).toEqual([
      '### client × behaviour',
      '',
      '| | kubectl | python |',
      '|---|---|---|',
      '| **caching** | PASS 200/1 200/1 | FAIL 200/2\\|200/1 |',
      '| **401 \\| re-exec** | – | SKIP B[python] message |',
    ]);
  });

  test('report.html links every cell to its check (whose row holds the evidence); report.json keeps the cell on the check', () => {
    const report: RunReport = {
      tool: { name: 'credprov', version: '0', command: 'credprov run' },
      subject: {},
      checks,
      summary: { passed: 2, failed: 1, skipped: 1 },
      suites: [{ name: 'x', summary: 's', durationMs: 1 }],
      startedAt: '2026-01-01T00:00:00Z',
      durationMs: 1,
    };
    const html = toHtml(report);
    expect(html).toContain('<h2>client × behaviour</h2><table class="grid">');
    expect(html).toContain(
      '<td class="failed" title="A[python] message"><a href="#check-A[python]">FAILED</a> 200/2|200/1</td>',
    );
    expect(html).toContain('id="check-A[python]"');
    const json = JSON.parse(toJson(report)) as { checks: Array<{ id: string; cell?: unknown }> };
    expect(json.checks.find((c) => c.id === 'A[kubectl]')!.cell).toEqual({
      table: 'client × behaviour',
      row: 'caching',
      column: 'kubectl',
      text: '200/1 200/1',
    });
    expect(json.checks.find((c) => c.id === 'PLAIN')).not.toHaveProperty('cell');
  });
});
