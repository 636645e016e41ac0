// Runs checks and turns their outcome into CheckResults. A check body returns
// an Outcome (or throws): a thrown error is a harness failure, never a pass.
import type { Check, CheckResult, Evidence, Status } from './model.ts';
import { errorMessage } from '../core/errors.ts';

export interface Outcome {
  status: Status;
  message: string;
  evidence?: Evidence[];
  cause?: 'subject' | 'harness';
}

export const pass = (message: string, evidence: Evidence[] = []): Outcome => ({ status: 'passed', message, evidence });
export const fail = (message: string, evidence: Evidence[] = []): Outcome => ({
  status: 'failed',
  message,
  evidence,
  cause: 'subject',
});
/** The harness could not judge (a limit of its own): a failure on credprov's account, never the subject's (exit 3). */
export const harnessFail = (message: string, evidence: Evidence[] = []): Outcome => ({
  status: 'failed',
  message,
  evidence,
  cause: 'harness',
});
export const skip = (message: string, evidence: Evidence[] = []): Outcome => ({ status: 'skipped', message, evidence });

export async function runCheck(
  check: Check,
  body: () => Promise<Outcome> | Outcome,
  now = () => new Date(),
): Promise<CheckResult> {
  const startedAt = now();
  const t0 = performance.now();
  let outcome: Outcome;
  try {
    outcome = await body();
  } catch (err) {
    outcome = { status: 'failed', cause: 'harness', message: `harness error: ${errorMessage(err)}`, evidence: [] };
  }
  const result: CheckResult = {
    ...check,
    status: outcome.status,
    message: outcome.message,
    evidence: outcome.evidence ?? [],
    startedAt: startedAt.toISOString(),
    durationMs: Math.round((performance.now() - t0) * 10) / 10,
  };
  if (outcome.status === 'failed') result.cause = outcome.cause ?? 'subject';
  return result;
}

/** Skips a check without running it (missing prerequisite, not applicable to this version). */
export function skipped(check: Check, message: string, now = () => new Date()): CheckResult {
  return { ...check, status: 'skipped', message, evidence: [], startedAt: now().toISOString(), durationMs: 0 };
}
