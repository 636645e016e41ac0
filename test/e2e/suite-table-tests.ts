// One jest test per check of a table row, on one provider: the check passed
// (and its prediction agreed), or reads what the row expects instead.
import { describe, expect } from '@jest/globals';
import type { SuitesOnProvider } from '../../src/testing/suite-on-provider.ts';
import { expectedOf, type SuiteRow } from './suite-table.ts';

export function checkTests(row: SuiteRow, h: SuitesOnProvider, timeoutMs = row.timeoutMs): void {
  for (const check of row.suite.checks) {
    const expected = expectedOf(row, check, h.provider);
    h.it(
      `${check.id}: ${check.title}`,
      async () => {
        const verdict = await h.verdict(check.id);
        if ('reads' in expected) {
          expect(verdict).toMatch(expected.reads);
          return;
        }
        expect(verdict).toMatch(/^passed: /);
        expect((await h.result(check.id))?.comparison?.agree).not.toBe(false);
      },
      timeoutMs,
    );
  }
}

/**
 * The row's checks and its further tests, under one describe named for the suite and the provider.
 * `timeoutMs`: a test's limit where the run is shared (the kind leg's first test waits for every suite).
 */
export function rowTests(row: SuiteRow, h: SuitesOnProvider, timeoutMs = row.timeoutMs): void {
  describe(`${row.suite.name} on ${h.provider}`, () => {
    checkTests(row, h, timeoutMs);
    row.extras?.(h, timeoutMs);
  });
}
