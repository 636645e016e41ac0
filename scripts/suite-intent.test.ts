import { describe, expect, test } from '@jest/globals';
import { countFile } from './suite-intent.ts';

describe('suite-intent counts intent and plumbing lines', () => {
  test('a cases file: imports and helpers are plumbing, a case is intent but for what it does by hand', () => {
    const text = [
      "import { caseOf, judge } from '../../src/run/kit.ts';",
      '// a comment is not counted',
      '',
      'const show = (v: string) => v;',
      'export const STEPS = [1, 2];',
      'export const c = caseOf(CHECK, async (ctx) => {',
      '  const startedAt = new Date();',
      "  const observed = await ctx.run('x');",
      '  return judge(CHECK, { prediction, observed, show, startedAt });',
      '});',
    ].join('\n');
    // 8 code lines; intent: the data (STEPS) and the case's lines but its start time.
    expect(countFile('suites/x/cases.ts', text)).toEqual({ file: 'suites/x/cases.ts', lines: 8, intent: 5 });
  });

  test('checks, plans and predictions count whole, but for their imports', () => {
    const text = "import type { Check } from 'x';\nexport function predict(n: number) {\n  return n + 1;\n}\n";
    expect(countFile('suites/x/predict.ts', text).intent).toBe(3);
    expect(countFile('suites/x/helpers.ts', text).intent).toBe(0);
  });
});
