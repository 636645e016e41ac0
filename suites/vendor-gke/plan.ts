// The vendor-gke suite's plan: the request every user makes, the client
// sessions' schedule and the times involved. Data only: no I/O.
import { TOKEN_SUCCESS_CACHE_MS } from '../../src/model/apiserver-authn.ts';

/** Discovery: any authenticated user may GET it (system:discovery), so no RBAC is needed; a refused token is 401. */
export const PROBE_PATH = '/api';
export const KUBECTL_TIMEOUT_MS = 60_000;
/** How long the fake's access tokens live: Google's hour. */
export const TOKEN_LIFETIME_MS = 3_600_000;
/** Past kube-apiserver's token success cache, so a revoked token is reviewed again. */
export const AFTER_REVOKE_MS = TOKEN_SUCCESS_CACHE_MS + 1_500;

/** A client session: request, revoke the account's tokens, then two requests once the success cache has passed. */
export type SessionStep = { do: 'request'; afterMs: number } | { do: 'revoke'; afterMs: number };
export const CLIENT_SESSION: readonly SessionStep[] = [
  { do: 'request', afterMs: 0 },
  { do: 'revoke', afterMs: 200 },
  { do: 'request', afterMs: AFTER_REVOKE_MS },
  { do: 'request', afterMs: 1_000 },
];

/** Planned start of each step, from the session's start (each step `afterMs` after the previous one). */
export function plannedTimes(steps: readonly SessionStep[] = CLIENT_SESSION): number[] {
  let t = 0;
  return steps.map((s) => (t += s.afterMs));
}
