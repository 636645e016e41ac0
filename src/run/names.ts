// Names a run gives what it creates on a shared node (pods in `default`,
// images, tags): a suffix no earlier call in this process gave, from the
// clock, so a later run (or a case beside) never meets an old name.
import { systemClock, type Clock } from '../core/time.ts';

let last = '';
let repeat = 0;

/** Base-36 milliseconds, with a counter when two calls fall in the same millisecond. */
export function uniqueSuffix(clock: Clock = systemClock): string {
  const now = clock.now().toString(36);
  repeat = now === last ? repeat + 1 : 0;
  last = now;
  return repeat === 0 ? now : `${now}${repeat.toString(36)}`;
}
