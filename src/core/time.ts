// Waiting, the one way: sleep, sleep until a time, and poll until a probe
// answers or a deadline passes. Every wait takes an injectable Clock so
// time-based logic is tested without real time (testcontainers' retry.ts).
import { TimeoutError } from './errors.ts';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(done, Math.max(0, ms));
      function done(): void {
        signal?.removeEventListener('abort', aborted);
        resolve();
      }
      function aborted(): void {
        clearTimeout(timer);
        reject(signal!.reason);
      }
      signal?.addEventListener('abort', aborted, { once: true });
    }),
};

/** Waits `ms` (a negative wait is none). */
export const sleep = (ms: number, clock: Clock = systemClock, signal?: AbortSignal): Promise<void> =>
  clock.sleep(Math.max(0, ms), signal);

/** Waits until the clock reads `at` (ms since the epoch); at once if that has passed. */
export const sleepUntil = (at: number, clock: Clock = systemClock, signal?: AbortSignal): Promise<void> =>
  sleep(at - clock.now(), clock, signal);

export interface PollOptions {
  timeoutMs: number;
  /** Pause between probes (default 200 ms). */
  intervalMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
}

/**
 * Calls `probe` until it returns something other than undefined, and returns
 * that; undefined once `timeoutMs` has passed. The probe always runs at least
 * once, and once more at the deadline, so a slow probe is not cut short.
 */
export async function poll<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  o: PollOptions,
): Promise<T | undefined> {
  const clock = o.clock ?? systemClock;
  const deadline = clock.now() + o.timeoutMs;
  for (;;) {
    o.signal?.throwIfAborted();
    const value = await probe();
    if (value !== undefined) return value;
    const left = deadline - clock.now();
    if (left <= 0) return undefined;
    await clock.sleep(Math.min(o.intervalMs ?? 200, left), o.signal);
  }
}

/** poll(), but a timeout is a TimeoutError that says what was awaited and for how long. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  o: PollOptions,
): Promise<T> {
  const value = await poll(probe, o);
  if (value === undefined) throw new TimeoutError(`${what}: not within ${Math.round(o.timeoutMs / 100) / 10}s`);
  return value;
}

/** A clock tests move by hand: sleep() resolves when advance() passes its wake-up time. */
export class ManualClock implements Clock {
  private t: number;
  private sleepers: Array<{ at: number; wake: () => void }> = [];

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((wake) => {
      this.sleepers.push({ at: this.t + Math.max(0, ms), wake });
    });
  }

  /** Moves time on by `ms`, waking every sleeper due, in time order, letting each one's continuation run. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await flush();
      const next = this.sleepers.filter((s) => s.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.sleepers = this.sleepers.filter((s) => s !== next);
      this.t = Math.max(this.t, next.at);
      next.wake();
    }
    this.t = end;
    await flush();
  }
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};
