// Readiness as values (testcontainers' wait strategies): Ready.http('/v2/'),
// Ready.logLine(/listening on/), Ready.all(...). Each has a default timeout the
// caller can override; a composite gives its timeout to children without one.
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { TimeoutError } from '../src/core/errors.ts';
import { formatMs } from '../src/core/duration.ts';
import { send } from '../src/core/http.ts';

export interface ReadyTarget {
  /** Base URL of the started service, e.g. http://127.0.0.1:5000. */
  url: string;
  ca?: string;
  logFile?: string;
  /** Resolves early when the process died: readiness will never come. */
  exited?: () => string | undefined;
}

export interface ReadyCheck {
  describe(): string;
  /** Explicit timeout; undefined means "the default, or the composite's". */
  readonly timeoutMs: number | undefined;
  withTimeout(ms: number): ReadyCheck;
  /** Resolves when ready; throws TimeoutError naming what was awaited and for how long. */
  wait(target: ReadyTarget, timeoutMs?: number): Promise<void>;
}

export const DEFAULT_READY_TIMEOUT_MS = 10_000;
const POLL_MS = 20;

abstract class Polling implements ReadyCheck {
  readonly timeoutMs: number | undefined;
  constructor(timeoutMs?: number) {
    this.timeoutMs = timeoutMs;
  }
  abstract describe(): string;
  abstract withTimeout(ms: number): ReadyCheck;
  protected abstract probe(target: ReadyTarget): Promise<boolean>;

  async wait(target: ReadyTarget, fallback?: number): Promise<void> {
    const limit = this.timeoutMs ?? fallback ?? DEFAULT_READY_TIMEOUT_MS;
    const t0 = Date.now();
    for (;;) {
      if (await this.probe(target).catch(() => false)) return;
      const died = target.exited?.();
      if (died) throw new TimeoutError(`gave up waiting for ${this.describe()}: ${died}`);
      if (Date.now() - t0 >= limit)
        throw new TimeoutError(`${this.describe()} did not happen within ${formatMs(limit)}`);
      await sleep(POLL_MS);
    }
  }
}

class HttpReady extends Polling {
  private readonly path: string;
  private readonly statuses: number[];
  constructor(path: string, statuses: number[], timeoutMs?: number) {
    super(timeoutMs);
    this.path = path;
    this.statuses = statuses;
  }
  describe(): string {
    return `HTTP ${this.statuses.join('/')} from GET ${this.path}`;
  }
  withTimeout(ms: number): ReadyCheck {
    return new HttpReady(this.path, this.statuses, ms);
  }
  protected async probe(t: ReadyTarget): Promise<boolean> {
    const res = await send(
      t.url.replace(/\/+$/, '') + this.path,
      {},
      { ...(t.ca ? { ca: t.ca } : {}), timeoutMs: 1000 },
    );
    return this.statuses.includes(res.status);
  }
}

class LogLineReady extends Polling {
  private readonly re: RegExp;
  constructor(re: RegExp, timeoutMs?: number) {
    super(timeoutMs);
    this.re = re;
  }
  describe(): string {
    return `log line matching ${this.re}`;
  }
  withTimeout(ms: number): ReadyCheck {
    return new LogLineReady(this.re, ms);
  }
  protected async probe(t: ReadyTarget): Promise<boolean> {
    if (!t.logFile) throw new Error('no log file to watch');
    return this.re.test(await readFile(t.logFile, 'utf8'));
  }
}

class AllReady implements ReadyCheck {
  readonly timeoutMs: number | undefined;
  private readonly checks: ReadyCheck[];
  constructor(checks: ReadyCheck[], timeoutMs?: number) {
    this.checks = checks;
    this.timeoutMs = timeoutMs;
  }
  describe(): string {
    return this.checks.map((c) => c.describe()).join(' and ');
  }
  withTimeout(ms: number): ReadyCheck {
    return new AllReady(this.checks, ms);
  }
  async wait(target: ReadyTarget, fallback?: number): Promise<void> {
    const limit = this.timeoutMs ?? fallback ?? DEFAULT_READY_TIMEOUT_MS;
    await Promise.all(this.checks.map((c) => c.wait(target, c.timeoutMs ?? limit)));
  }
}

export const Ready = {
  /** Any of `statuses` (default 200 or 401: an auth-protected registry is ready when it challenges). */
  http(path = '/v2/', o: { statuses?: number[]; timeoutMs?: number } = {}): ReadyCheck {
    return new HttpReady(path, o.statuses ?? [200, 401], o.timeoutMs);
  },
  logLine(re: RegExp, o: { timeoutMs?: number } = {}): ReadyCheck {
    return new LogLineReady(re, o.timeoutMs);
  },
  all(...checks: ReadyCheck[]): ReadyCheck {
    return new AllReady(checks);
  },
};
