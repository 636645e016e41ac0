// What a suite or a case started and must stop, stopped in reverse order when
// it ends, whatever happened (kind's deferred cleanups, Ginkgo's DeferCleanup).
// A failing cleanup is logged, never thrown over the error that ended the work.
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { Stoppable } from './suite.ts';

export class Scope {
  private cleanups: Array<() => Promise<void> | void> = [];
  private closed = false;
  private readonly what: string;
  private readonly log: Logger;

  constructor(what: string, log: Logger) {
    this.what = what;
    this.log = log;
  }

  /**
   * After close() a cleanup runs at once: something started side by side with
   * what made the scope fail (`Promise.all([ctx.own(a), ctx.own(b)])`) may
   * finish starting after the scope was closed, and must still be stopped.
   */
  defer(cleanup: () => Promise<void> | void): void {
    if (this.closed) void this.run(cleanup);
    else this.cleanups.push(cleanup);
  }

  async own<T extends Stoppable>(started: Promise<T> | T): Promise<T> {
    const thing = await started;
    this.defer(() => thing.stop());
    return thing;
  }

  /** Runs every cleanup, last registered first; idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    for (const cleanup of this.cleanups.splice(0).reverse()) await this.run(cleanup);
  }

  private async run(cleanup: () => Promise<void> | void): Promise<void> {
    try {
      await cleanup();
    } catch (err) {
      this.log.warn(`cleaning up ${this.what}: ${errorMessage(err)}`);
    }
  }
}
