// Who offered what in a registry's auth trail (the kit's authTrail): each
// wrong credential has a user of its own, so a refused user names its source.
import type { AuthAttempt } from '../../src/run/kit.ts';

/**
 * Who offered what: a refused user names its source through `refused` (each
 * wrong credential has its own user); an accepted request can only be the
 * right credential, whose source the caller knows (`accepted`).
 */
export function triedBy(trail: AuthAttempt[], refused: Record<string, string>, accepted: string): string[] {
  const sources = trail.map((x) => (x.ok ? accepted : (refused[x.user!] ?? `unknown user ${x.user}`)));
  return sources.filter((x, i) => i === 0 || sources[i - 1] !== x);
}
