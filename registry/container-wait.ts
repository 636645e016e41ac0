// A harness ReadyCheck (ready.ts) as a testcontainers WaitStrategy.
// testcontainers' own Wait.forHttp asks the runtime's host at a mapped port;
// the registry runs with host networking on its own loopback address, behind
// its own CA, so the harness's check, which knows both, does the asking.
import type { WaitStrategy } from 'testcontainers';
import type { ReadyCheck, ReadyTarget } from './ready.ts';

const TESTCONTAINERS_DEFAULT_MS = 60_000;

export class ReadyCheckWait implements WaitStrategy {
  private readonly check: ReadyCheck;
  private readonly target: ReadyTarget;
  private timeoutMs: number | undefined;

  constructor(check: ReadyCheck, target: ReadyTarget) {
    this.check = check;
    this.target = target;
  }

  async waitUntilReady(): Promise<void> {
    await this.check.wait(this.target, this.getStartupTimeout());
  }

  /** A timeout the check itself carries wins; a composite's (or the container's) applies otherwise. */
  withStartupTimeout(ms: number): this {
    this.timeoutMs = ms;
    return this;
  }

  isStartupTimeoutSet(): boolean {
    return this.check.timeoutMs !== undefined || this.timeoutMs !== undefined;
  }

  getStartupTimeout(): number {
    return this.check.timeoutMs ?? this.timeoutMs ?? TESTCONTAINERS_DEFAULT_MS;
  }
}
