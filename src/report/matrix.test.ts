import { describe, expect, test } from '@jest/globals';
import type { CheckResult, RunReport } from './model.ts';
import { buildMatrix, matrixToJunit, matrixToMarkdown } from './matrix.ts';

const c = (
  id: string,
  suite: string,
  status: CheckResult['status'],
  message = 'm',
  level: CheckResult['level'] = 'MUST',
): CheckResult => ({
  id,
  title: id,
  level,
  source: 's',
  status,
  message,
  evidence: [],
  startedAt: '',
  durationMs: 0,
  suite,
});
const report = (checks: CheckResult[]): RunReport => ({
  tool: { name: 'credprov', version: '0', command: 'x' },
  subject: {},
  checks,
  summary: { passed: 0, failed: 0, skipped: 0 },
  startedAt: '',
  durationMs: 0,
});

describe('qualification matrix', () => {
  const m = buildMatrix(
    [
      {
        version: 'v1.36.5',
        report: report([
          c('A-1', 'matching', 'passed'),
          c('B-1', 'cache', 'failed', 'predicted 1 exec; the kubelet: 2'),
        ]),
      },
      {
        version: 'v1.37.1',
        report: report([c('A-1', 'matching', 'passed'), c('B-1', 'cache', 'skipped', 'no cached kubelet')]),
      },
    ],
    ['matching', 'cache'],
  );

  test("a cell is the suite's worst status on that version, with the first failing (or skipped) check as the reason", () => {
    expect(m.rows[1]!.cells['v1.36.5']).toMatchObject({
      status: 'failed',
      failed: 1,
      reason: 'B-1: predicted 1 exec; the kubelet: 2',
    });
    expect(m.rows[1]!.cells['v1.37.1']).toMatchObject({ status: 'skipped', reason: 'B-1: no cached kubelet' });
    expect(m.rows[0]!.cells['v1.37.1']).toMatchObject({ status: 'passed', passed: 1 });
  });

  test('SHOULD failures are counted and named, but fail a cell only as they fail the exit code: never, unless the harness broke', () => {
    const warned = buildMatrix(
      [
        {
          version: 'v1.38.0-alpha.0',
          report: report([
            c('M-1', 'mirrors', 'passed'),
            c('M-1-NO-CROSSING', 'mirrors', 'failed', 'CREDENTIAL CROSSED', 'SHOULD'),
            { ...c('G-1', 'gke', 'failed', 'harness error: x', 'SHOULD'), cause: 'harness' },
          ]),
        },
      ],
      ['mirrors', 'gke'],
    );
    expect(warned.rows[0]!.cells['v1.38.0-alpha.0']).toMatchObject({
      status: 'passed',
      failed: 1,
      shouldFailed: 1,
      reason: 'SHOULD M-1-NO-CROSSING: CREDENTIAL CROSSED',
    });
    expect(warned.rows[1]!.cells['v1.38.0-alpha.0']).toMatchObject({ status: 'failed', shouldFailed: 0 });
    expect(matrixToMarkdown(warned)).toContain('| mirrors | PASS 1/2, 1 SHOULD failed |');
  });

  test('Markdown and JUnit render the same cells', () => {
    expect(matrixToMarkdown(m)).toContain('| cache | FAIL 0/1 | SKIP 0/1 |');
    const xml = matrixToJunit(m);
    expect(xml).toContain('<testsuite name="v1.36.5" tests="2" failures="1" errors="0" skipped="0">');
    expect(xml).toContain('<failure message="B-1: predicted 1 exec; the kubelet: 2"/>');
  });
});
