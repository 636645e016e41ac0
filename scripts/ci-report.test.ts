import { describe, expect, test } from '@jest/globals';
import { mergeJest, parseSpans, phaseTable, summary, type JestJson } from './ci-report.ts';

function run(o: Partial<JestJson> = {}): JestJson {
  return {
    success: true,
    startTime: 1000,
    numTotalTests: 0,
    numPassedTests: 0,
    numFailedTests: 0,
    numPendingTests: 0,
    numTodoTests: 0,
    numTotalTestSuites: 0,
    numPassedTestSuites: 0,
    numFailedTestSuites: 0,
    numPendingTestSuites: 0,
    numRuntimeErrorTestSuites: 0,
    testResults: [],
    ...o,
  };
}
const file = (name: string, status = 'passed', assertions = 1) => ({
  name,
  status,
  startTime: 0,
  endTime: 1,
  assertionResults: Array.from({ length: assertions }, () => ({})),
});

describe('the jest results of the unit and e2e runs', () => {
  test('merge: counts add up, files keep run order, the earliest start wins, one failed run fails all', () => {
    const m = mergeJest([
      run({ numPassedTests: 3, numTotalTests: 3, testResults: [file('u')], startTime: 2000 }),
      run({
        success: false,
        numPassedTests: 1,
        numFailedTests: 1,
        testResults: [file('e', 'failed')],
        startTime: 5000,
      }),
    ]);
    expect(m).toMatchObject({ numPassedTests: 4, numFailedTests: 1, success: false, startTime: 2000 });
    expect(m.testResults.map((t) => t.name)).toEqual(['u', 'e']);
  });

  test('summary: a file that failed to load is a failure; nothing passed is not green', () => {
    expect(summary(run({ numPassedTests: 5, numPendingTests: 1, numTodoTests: 1 }))).toEqual({
      line: '5 passed, 0 failed, 2 skipped',
      code: 0,
    });
    expect(summary(run({ numPassedTests: 5, testResults: [file('x', 'failed', 0)] }))).toEqual({
      line: '5 passed, 1 failed, 0 skipped',
      code: 1,
    });
    expect(summary(run())).toEqual({ line: '0 passed, 0 failed, 0 skipped', code: 4 });
  });
});

describe('the time table', () => {
  test('spans from tab-separated lines: ok or exit code 0 is success, anything else a failure', () => {
    expect(parseSpans('setup\t1000\t61000\t0\nunit\t61000\t90000\t1\n\n', '')).toEqual([
      { name: 'setup', start: 1000, end: 61000, ok: true },
      { name: 'unit', start: 61000, end: 90000, ok: false },
    ]);
    expect(parseSpans('kube binaries\t1\t2\tok', 'build ')[0]).toMatchObject({ name: 'build kube binaries', ok: true });
  });

  test('one line per span in start order, offsets from the first start, overlaps visible, and the wall time', () => {
    const t = phaseTable([
      { name: 'unit tests', start: 70_000, end: 190_000, ok: true },
      { name: 'setup', start: 10_000, end: 70_000, ok: true },
      { name: 'build kubelet 1.36', start: 70_000, end: 250_000, ok: false },
    ]).split('\n');
    expect(t[1]).toMatch(/^setup\s+0:00\s+1:00\s+1:00$/);
    expect(t[2]).toMatch(/^unit tests\s+1:00\s+3:00\s+2:00$/);
    expect(t[3]).toMatch(/^build kubelet 1\.36\s+1:00\s+4:00\s+3:00\s+FAILED$/);
    expect(t[4]).toMatch(/^total \(wall\)\s+0:00\s+4:00\s+4:00$/);
  });
});
