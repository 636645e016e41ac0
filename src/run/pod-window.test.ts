import { expect, test } from '@jest/globals';
import { execsOf } from './pod-window.ts';

test("execsOf counts one provider's runs in a window", () => {
  const execs = [{ provider: 'ecr' }, { provider: 'ecr-sa' }, { provider: 'ecr' }];
  expect(execsOf(execs, 'ecr')).toBe(2);
  expect(execsOf(execs, 'other')).toBe(0);
});
