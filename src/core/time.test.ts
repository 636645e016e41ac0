import { describe, expect, test } from '@jest/globals';
import { TimeoutError } from './errors.ts';
import { ManualClock, poll, sleep, sleepUntil, systemClock, waitFor } from './time.ts';

describe('poll', () => {
  test('returns the first defined answer, probing every interval on the given clock', async () => {
    const clock = new ManualClock(1_000);
    let calls = 0;
    const result = poll(() => (++calls === 3 ? 'ready' : undefined), { timeoutMs: 5_000, intervalMs: 500, clock });
    await clock.advance(1_000);
    await expect(result).resolves.toBe('ready');
    expect(calls).toBe(3);
    expect(clock.now()).toBe(2_000);
  });

  test('gives up with undefined at the deadline, after one last probe there', async () => {
    const clock = new ManualClock();
    const probedAt: number[] = [];
    const result = poll(() => void probedAt.push(clock.now()), { timeoutMs: 1_000, intervalMs: 400, clock });
    await clock.advance(2_000);
    await expect(result).resolves.toBeUndefined();
    expect(probedAt).toEqual([0, 400, 800, 1_000]);
  });

  test('waitFor names what it awaited and for how long', async () => {
    const clock = new ManualClock();
    const result = waitFor('the pod to run', () => undefined, { timeoutMs: 1_500, clock });
    const settled = expect(result).rejects.toThrow(new TimeoutError('the pod to run: not within 1.5s'));
    await clock.advance(2_000);
    await settled;
  });

  test('an aborted signal stops the wait', async () => {
    const stop = new AbortController();
    const result = poll(() => undefined, { timeoutMs: 60_000, intervalMs: 10_000, signal: stop.signal });
    stop.abort(new Error('interrupted'));
    await expect(result).rejects.toThrow('interrupted');
  });
});

describe('sleep', () => {
  test('sleepUntil a past time returns at once; a negative sleep is none', async () => {
    const t0 = Date.now();
    await sleepUntil(t0 - 5_000);
    await sleep(-10);
    expect(Date.now() - t0).toBeLessThan(50);
  });

  test('the system clock sleeps for real', async () => {
    const t0 = performance.now();
    await systemClock.sleep(30);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
  });
});
