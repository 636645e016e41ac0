// Suite cases state credprov's prediction before the real kubelet acts, then
// compare. The prediction comes from a model (matching oracle, version table,
// cache model) or, where credprov has none, from a cited design text: never
// from a constant typed into the case. judge() turns the pair, and whatever
// else decides the verdict, into a CheckResult whose comparison and evidence
// keep both sides; nothing patches its result afterwards.
import { isDeepStrictEqual } from 'node:util';
import { isSecretValue } from '../core/redact.ts';
import type { Check, CheckResult, Comparison, Evidence } from '../report/model.ts';

export interface Prediction<T> {
  value: T;
  /** Which model: `matching oracle (src/matching)`, `cache model (src/model/credential-cache.ts)`, `design text: …`. */
  model: string;
  /** The model's reasoning in one line. */
  because: string;
}

export interface Judgement<T> {
  prediction: Prediction<T>;
  observed: T;
  /** How a value reads in a message ("invoked: a, b", "pull failed"). */
  show: (v: T) => string;
  evidence?: Evidence[];
  /** Default: deep equality. */
  agree?: (predicted: T, observed: T) => boolean;
  /** What the real component is, for the message: "the kubelet" by default. */
  actor?: string;
  startedAt?: Date;
  /**
   * Why this comparison is no verdict on the subject (the schedule slipped,
   * the precondition did not hold): then the check is a harness failure with
   * this reason in front, whatever the comparison says.
   */
  invalidBecause?: string | undefined;
  /**
   * Failures of the subject the comparison does not cover (a pull the
   * plugin's valid credentials should have made work): each fails the check
   * even when the prediction agreed.
   */
  problems?: string[];
  /** Said after a disagreement, to help read it ("the execs overlapped in time: no singleflight"). */
  onDisagree?: string | undefined;
  /** Said after the verdict whatever it is: what the comparison leaves out but a reader should know ("client-go retried past 1 transport error"). */
  note?: string | undefined;
}

/** Whether the prediction and the observation agree, by the judgement's own rule. */
export function agrees<T>(j: Pick<Judgement<T>, 'prediction' | 'observed' | 'agree'>): boolean {
  return (j.agree ?? isDeepStrictEqual)(j.prediction.value, j.observed);
}

export function judge<T>(check: Check, j: Judgement<T>): CheckResult {
  const misnamed = credentialNamedSteps(j.prediction.value);
  if (misnamed.length > 0)
    throw new Error(
      `${check.id}: step ${misnamed.map((k) => `'${k}'`).join(', ')} reads as a credential name to the redactor ` +
        '(src/core/redact.ts), which would then hide its values everywhere in the report; rename the step',
    );
  const agree = agrees(j);
  const actor = j.actor ?? 'the kubelet';
  const comparison: Comparison = {
    model: j.prediction.model,
    because: j.prediction.because,
    predicted: j.prediction.value,
    observed: j.observed,
    agree,
  };
  const startedAt = j.startedAt ?? new Date();
  const compared = agree
    ? `${actor}: ${j.show(j.observed)}, as predicted (${j.prediction.because})`
    : `predicted ${j.show(j.prediction.value)} (${j.prediction.model}: ${j.prediction.because}); ${actor}: ${j.show(j.observed)}${j.onDisagree ? ` (${j.onDisagree})` : ''}`;
  const problems = j.problems ?? [];
  const verdict: Pick<CheckResult, 'status' | 'cause' | 'message'> = j.invalidBecause
    ? { status: 'failed', cause: 'harness', message: `${j.invalidBecause}; ${compared}` }
    : !agree
      ? { status: 'failed', cause: 'subject', message: compared }
      : problems.length > 0
        ? { status: 'failed', cause: 'subject', message: `${compared}; but ${problems.join('; ')}` }
        : { status: 'passed', message: compared };
  if (j.note) verdict.message = `${verdict.message} (${j.note})`;
  return {
    ...check,
    ...verdict,
    evidence: [{ kind: 'data', label: 'prediction and observation', data: comparison }, ...(j.evidence ?? [])],
    comparison,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
  };
}

/**
 * Keys of a prediction that the report's redactor takes for credentials (beforeSecret, cacheTypeToken):
 * it would redact their values, learn them ("success") as secrets, and hide them in every check.
 * A prediction comes from credprov's models and never holds a secret, so such a key is a naming slip.
 */
export function credentialNamedSteps(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(credentialNamedSteps);
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (isSecretValue(v, k) ? [k] : credentialNamedSteps(v)));
}
