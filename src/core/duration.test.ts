import { describe, expect, test } from '@jest/globals';
import { parseGoDuration } from './duration.ts';

describe('parseGoDuration', () => {
  test.each([
    ['0', 0],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1.5s', 1500],
    ['300ms', 300],
    ['-2s', -2000],
    ['10us', 0.01],
    ['2h0m0s', 7_200_000],
  ])('parses %s as %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms);
  });
  test.each(['', '5', 'm', '5 m', '5d', '1h-2m', 'abc'])('rejects %p as Go would', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });
});
