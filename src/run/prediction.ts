// Suite cases state credprov's prediction before the real kubelet acts, then
// compare. The prediction comes from a model (matching oracle, version table,
// cache model) or, where credprov has none, from a cited design text: never
// from a constant typed into the case. judge() turns the pair into a
// CheckResult whose comparison and evidence keep both sides.
import { isDeepStrictEqual } from 'node:util';
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
}

export function judge<T>(check: Check, j: Judgement<T>): CheckResult {
  const agree = (j.agree ?? isDeepStrictEqual)(j.prediction.value, j.observed);
  const actor = j.actor ?? 'the kubelet';
  const comparison: Comparison = { model: j.prediction.model, because: j.prediction.because, predicted: j.prediction.value, observed: j.observed, agree };
  const startedAt = j.startedAt ?? new Date();
  const message = agree
    ? `${actor}: ${j.show(j.observed)}, as predicted (${j.prediction.because})`
    : `predicted ${j.show(j.prediction.value)} (${j.prediction.model}: ${j.prediction.because}); ${actor}: ${j.show(j.observed)}`;
  return {
    ...check,
    status: agree ? 'passed' : 'failed',
    ...(agree ? {} : { cause: 'subject' as const }),
    message,
    evidence: [{ kind: 'data', label: 'prediction and observation', data: comparison }, ...(j.evidence ?? [])],
    comparison,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
  };
}
