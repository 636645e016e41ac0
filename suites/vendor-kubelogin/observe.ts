// What the vendor-kubelogin cases read from a call: which token the plugin
// printed (by the fingerprints the token endpoint recorded), what its stderr
// names when it failed, and the call's outcome in predict.ts's terms. Pure:
// the recorded attempt comes in.
import { WHOAMI_STATUS } from './plan.ts';
import type { CallOutcome, RunOutcome } from './predict.ts';
import { tokenCall, type Attempt } from './session.ts';
import { tokenFingerprint, tokenOf } from '../../src/run/kit.ts';

/** Which token the plugin printed: one the endpoint issued in this call (by fingerprint), or none issued (the cache). */
export function printedOf(a: Attempt): RunOutcome['prints'] | 'a token it was not issued' {
  const run = [...a.runs].reverse().find((r) => r.exitCode === 0);
  const token = run ? tokenOf(run) : '';
  if (!token) return 'nothing';
  const fp = tokenFingerprint(token);
  const issued = a.tokenRequests.flatMap((r) => (r.issued ? [r.issued] : []));
  if (issued.some((i) => i.idTokenSha256 === fp)) return 'id_token';
  if (issued.some((i) => i.accessTokenSha256 === fp)) return 'access_token';
  return issued.length === 0 ? 'cached token' : 'a token it was not issued';
}

/** The failure markers the model names; otherwise the stderr's last line. */
const FAILURES = ['x509', 'invalid_client', 'invalid_grant'];

export function failureOf(runs: Attempt['runs']): string | undefined {
  const failed = runs.filter((r) => r.exitCode !== 0);
  if (failed.length === 0) return undefined;
  const stderr = failed.map((r) => r.stderr).join('\n');
  return FAILURES.find((f) => stderr.includes(f)) ?? stderr.trim().split('\n').pop()?.slice(0, 200) ?? '(no stderr)';
}

export function observedCall(a: Attempt): CallOutcome | (Omit<CallOutcome, 'prints'> & { prints: string }) {
  const pluginFailed = a.runs.length > 0 && a.runs.every((r) => r.exitCode !== 0);
  const failure = failureOf(a.runs);
  return {
    ...(failure ? { failure } : {}),
    status: a.status ?? (pluginFailed ? 'no request' : -1),
    ...(a.status === WHOAMI_STATUS && a.username ? { username: a.username } : {}),
    tokenCalls: a.tokenRequests.map(tokenCall),
    prints: printedOf(a),
  };
}

export const showCall = (v: {
  status: number | string;
  username?: string;
  tokenCalls: string[];
  prints: string;
  failure?: string;
}) =>
  `${v.status}${v.username ? ` as ${v.username}` : ''}; token endpoint [${v.tokenCalls.join(', ') || 'none'}]; printed ${v.prints}` +
  (v.failure ? `; plugin stderr names ${v.failure}` : '');
