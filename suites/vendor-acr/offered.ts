// What the kubelet handed containerd for one failing pull, as the lab
// registry's log tells it (the kit's pullAttemptsSince): every anonymous
// challenge opens an attempt, named by the user it then offered, or
// "(none: anonymous)".
import { offeredShown } from './predict.ts';
import type { PullAttempt } from '../../src/run/kit.ts';

/**
 * The credentials offered, in the order they first appear: the kubelet retries a failed pull after a
 * back-off, and a retry repeats the same sequence.
 */
export function offeredFrom(attempts: PullAttempt[]): string[] {
  return [...new Set(attempts.map((a) => offeredShown(a.user)))];
}
