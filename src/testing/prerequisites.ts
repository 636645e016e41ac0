// Prerequisites for tests that need real components (root, a registry
// binary, a cluster). Outside CI a missing prerequisite skips with its
// reason; under CI=true it is a failure that says what is missing (a CI run
// that silently skips is not green).
import { test } from '@jest/globals';
import { inCI } from '../core/ci.ts';

export { inCI };

export interface Prerequisite {
  ok: boolean;
  reason?: string;
}

/** `test` when the prerequisite holds; otherwise a skip (or, in CI, one failing test naming the reason). */
export type TestFn = (title: string, fn: () => Promise<unknown> | void, timeoutMs?: number) => void;

/** `optional`: the suite covers an optional tier (the container provider), so it skips even in CI. */
export function testIf(pre: Prerequisite, o: { optional?: boolean; env?: NodeJS.ProcessEnv } = {}): TestFn {
  if (pre.ok) return test;
  if (inCI(o.env ?? process.env) && !o.optional) {
    const failing = (title: string) =>
      test(title, () => {
        throw new Error(`prerequisite missing: ${pre.reason}`);
      });
    return failing;
  }
  return test.skip;
}

export function isRoot(): Prerequisite {
  return process.getuid?.() === 0
    ? { ok: true }
    : { ok: false, reason: 'must run as root (writes /etc/hosts, runs containerd)' };
}

export function all(...pres: Prerequisite[]): Prerequisite {
  const bad = pres.filter((p) => !p.ok);
  return bad.length === 0 ? { ok: true } : { ok: false, reason: bad.map((p) => p.reason).join('; ') };
}
