// What a suite or a case started and must stop, stopped in reverse order when
// it ends, whatever happened (kind's deferred cleanups, Ginkgo's DeferCleanup).
// A failing cleanup is logged, never thrown over the error that ended the work.
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { Stoppable } from './suite.ts';

export class Scope {
  private cleanups: Array<() => Promise<void> | void> = [];
  private readonly what: string;
  private readonly log: Logger;

  constructor(what: string, log: Logger) {
    this.what = what;
    this.log = log;
  }

  defer(cleanup: () => Promise<void> | void): void {
    this.cleanups.push(cleanup);
  }

  async own<T extends Stoppable>(started: Promise<T> | T): Promise<T> {
    const thing = await started;
    this.defer(() => thing.stop());
    return thing;
  }

  /** Runs every cleanup, last registered first; idempotent. */
  async close(): Promise<void> {
    for (const cleanup of this.cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (err) {
        this.log.warn(`cleaning up ${this.what}: ${errorMessage(err)}`);
      }
    }
  }
}
