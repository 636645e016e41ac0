import { describe, expect, test } from '@jest/globals';
import { formatGoDuration, parseGoDurationNs } from './goduration.ts';

describe('parseGoDurationNs follows time.ParseDuration', () => {
  test.each([
    ['0', 0n],
    ['5m', 300_000_000_000n],
    ['1h30m', 5_400_000_000_000n],
    ['1.5h', 5_400_000_000_000n],
    ['.5s', 500_000_000n],
    ['-1m', -60_000_000_000n],
    ['+2s', 2_000_000_000n],
    ['300ms', 300_000_000n],
    ['1µs', 1_000n],
    ['1us', 1_000n],
    ['10ns', 10n],
  ])('%s is %s ns', (text, ns) => {
    expect(parseGoDurationNs(text)).toEqual({ ok: true, ns });
  });

  test.each([
    ['', 'time: invalid duration ""'],
    ['abc', 'time: invalid duration "abc"'],
    ['10', 'time: missing unit in duration "10"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['.s', 'time: invalid duration ".s"'],
    ['9999999999h', 'time: invalid duration "9999999999h"'],
  ])("%j fails with Go's message", (text, error) => {
    expect(parseGoDurationNs(text)).toEqual({ ok: false, error });
  });
});

describe('formatGoDuration follows time.Duration.String', () => {
  test.each([
    [0n, '0s'],
    [-60_000_000_000n, '-1m0s'],
    [5_400_000_000_000n, '1h30m0s'],
    [1_500_000_000n, '1.5s'],
    [1_500_000n, '1.5ms'],
    [1_000n, '1µs'],
    [21_600n, '21.6µs'],
    [7n, '7ns'],
  ])('%s ns prints as %s', (ns, text) => {
    expect(formatGoDuration(ns)).toBe(text);
  });
});
