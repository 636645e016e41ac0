import { describe, expect, test } from '@jest/globals';
import { matrixTables } from './markdown.ts';
import type { CheckResult } from './model.ts';

const result = (evidence: CheckResult['evidence']): CheckResult => ({
  id: 'X-MATRIX',
  title: 't',
  level: 'MUST',
  source: 's',
  status: 'passed',
  message: 'm',
  evidence,
  startedAt: '2026-01-01T00:00:00Z',
  durationMs: 1,
});

describe('report.md matrix tables', () => {
  test("a check's `matrix` data evidence becomes a table, columns in first-seen order, pipes escaped", () => {
    const md = matrixTables([
      result([
        {
          kind: 'data',
          label: 'matrix',
          data: [
            { cell: 'a', predicted: 'Running' },
            { cell: 'b|c', kubelet: 'x' },
          ],
        },
      ]),
    ]);
    expect(md).toEqual([
      '### X-MATRIX: matrix (PASS)',
      '',
      '| cell | predicted | kubelet |',
      '|---|---|---|',
      '| a | Running |  |',
      '| b\\|c |  | x |',
      '',
    ]);
  });

  test('other evidence and empty matrices render nothing', () => {
    expect(
      matrixTables([
        result([
          { kind: 'data', label: 'other', data: [{ a: 1 }] },
          { kind: 'data', label: 'matrix', data: [] },
          { kind: 'text', label: 'matrix', text: 'x' },
        ]),
      ]),
    ).toEqual([]);
  });
});
