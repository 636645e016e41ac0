import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { longTimeout, MAX_TIMER_MS } from './spawn.ts';

describe('longTimeout', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  test('fires after a delay longer than one Node timer holds, not after 1 ms', () => {
    jest.useFakeTimers();
    const fn = jest.fn();
    const ms = 597 * 3_600_000;
    expect(ms).toBeGreaterThan(MAX_TIMER_MS);
    longTimeout(fn, ms);
    jest.advanceTimersByTime(MAX_TIMER_MS);
    expect(fn).not.toHaveBeenCalled();
    jest.advanceTimersByTime(ms - MAX_TIMER_MS - 1);
    expect(fn).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  test('can be cancelled in any of its chunks, and is one plain timer for short delays', () => {
    jest.useFakeTimers();
    const late = jest.fn();
    const cancel = longTimeout(late, 3 * MAX_TIMER_MS);
    jest.advanceTimersByTime(MAX_TIMER_MS + 10);
    cancel();
    jest.advanceTimersByTime(3 * MAX_TIMER_MS);
    expect(late).not.toHaveBeenCalled();
    const soon = jest.fn();
    longTimeout(soon, 250);
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(250);
    expect(soon).toHaveBeenCalledTimes(1);
  });
});
