// The verdicts a suite gives when there is no comparison to judge: the
// harness broke (a throw, a missing result), or the check cannot run here.
// Every suite reports those through these functions, so a harness failure
// always reads and counts the same.
import { errorMessage } from '../core/errors.ts';
import { skipped } from '../report/checks.ts';
import type { Check, CheckResult, Evidence } from '../report/model.ts';

/** The harness broke while running `check`: a failure that is not the subject's. `cause` is an error or one line saying what broke. */
export function harnessFailed(check: Check, cause: unknown, evidence: Evidence[] = [], startedAt?: Date): CheckResult {
  const at = startedAt ?? new Date();
  return {
    ...check,
    status: 'failed',
    cause: 'harness',
    message: typeof cause === 'string' ? cause : `harness error: ${errorMessage(cause)}`,
    evidence,
    startedAt: at.toISOString(),
    durationMs: startedAt ? Date.now() - startedAt.getTime() : 0,
  };
}

/**
 * `check` does not apply to this environment (a kubelet minor the skew policy rules out under this API server):
 * skipped with the reason, under CI too, since nothing is missing that CI could have provided.
 */
export function notApplicable(check: Check, reason: string): CheckResult {
  return skipped(check, `not applicable here: ${reason}`);
}

/**
 * `check` ran but what it needs to judge did not occur (too few pulls overlapped): skipped with the reason
 * and what it saw, under CI too (nothing is missing that CI could provide), and never passed.
 */
export function cannotJudge(check: Check, reason: string, evidence: Evidence[] = [], startedAt?: Date): CheckResult {
  return { ...skipped(check, `nothing to judge: ${reason}`, () => startedAt ?? new Date()), evidence };
}

/** `check` cannot run here (a missing capability, an unavailable client): skipped with the reason, or under CI a harness failure. */
export function notRun(check: Check, reason: string, ci: boolean): CheckResult {
  return ci ? harnessFailed(check, reason) : skipped(check, reason);
}

/**
 * Results against the checks their owner (a suite, a case) declared, in the
 * declared order: a declared check without a result, a result for an
 * undeclared check and a second result for one check are harness failures,
 * never silence.
 */
export function reconcile(owner: string, declared: Check[], results: CheckResult[]): CheckResult[] {
  const declaredIds = new Set(declared.map((c) => c.id));
  const byId = new Map<string, CheckResult>();
  const wrong: CheckResult[] = [];
  for (const r of results) {
    const problem = !declaredIds.has(r.id) ? 'which it does not declare' : byId.has(r.id) ? 'twice' : undefined;
    if (problem)
      wrong.push(
        harnessFailed(r, `${owner} reported check ${r.id} ${problem} (that result: ${r.status}, ${r.message})`),
      );
    else byId.set(r.id, r);
  }
  const ordered = declared.map((c) => byId.get(c.id) ?? harnessFailed(c, `${owner} gave no result for check ${c.id}`));
  return [...ordered, ...wrong];
}
