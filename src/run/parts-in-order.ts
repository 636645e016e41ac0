// A story told in parts on one node, each part starting from the node the
// part before left (a policy after a kubelet restart, a pull after a record):
// the cases play the parts in order (concurrency 1), and a part that broke
// leaves every later part unplayed, so their checks fail as the harness's,
// naming the part that broke, instead of judging a node in an unknown state.
import { errorMessage } from '../core/errors.ts';

export class PartsInOrder {
  private broken?: string;

  /** Plays one part, unless a part before it broke. */
  async play<T>(part: string, play: () => Promise<T>): Promise<T> {
    if (this.broken) throw new Error(`not run: ${this.broken}`);
    try {
      return await play();
    } catch (err) {
      this.broken = `${part} broke (${errorMessage(err)})`;
      throw err;
    }
  }

  /** What a part left for a check judged afterwards; a throw naming why it is missing. */
  need<T>(value: T | undefined, what: string): T {
    if (value === undefined) throw new Error(`not run: ${this.broken ?? `${what} was not played`}`);
    return value;
  }
}
