import { expect, test } from '@jest/globals';
import { ManualClock } from '../core/time.ts';
import { uniqueSuffix } from './names.ts';

test('a unique suffix is the time in base 36, with a counter within one millisecond', () => {
  const clock = new ManualClock(1_700_000_000_000);
  const first = uniqueSuffix(clock);
  expect(first).toBe((1_700_000_000_000).toString(36));
  expect(uniqueSuffix(clock)).toBe(`${first}1`);
  expect(uniqueSuffix(clock)).toBe(`${first}2`);
});
