// The vendor-kubelogin suite's plan: the kubeconfig users kubectl runs as (each
// a `kubectl oidc-login get-token` exec with its own token cache dir, so one
// case's cache never answers another's), the request every call makes, and the
// times involved. Data only: no I/O.
import { type KubeloginExec } from '../../src/run/kit.ts';

/** What every kubectl call asks: SelfSubjectReview (any authenticated user may), so 200 also names the user. */
export const WHOAMI_ARGS = ['auth', 'whoami', '-o', 'json'];
/** A SelfSubjectReview is a create: 201 once authenticated. */
export const WHOAMI_STATUS = 201;
/** What the client probes GET: discovery, which system:authenticated may read and an anonymous caller may not. */
export const CLIENT_PATH = '/apis';
export const KUBECTL_TIMEOUT_MS = 60_000;
/** How long past the short id_token's exp the refresh cases wait, so kubelogin's exp.Before(now) is surely true. */
export const PAST_EXPIRY_MS = 1_500;

export const USERS = {
  password: { grant: 'password', user: 'alice' },
  'client-credentials': { grant: 'client-credentials' },
  cache: { grant: 'password', user: 'alice' },
  refresh: { grant: 'password', user: 'bob' },
  revoked: { grant: 'password', user: 'carol' },
  'access-token': { grant: 'password', user: 'alice', useAccessToken: true },
  'id-token': { grant: 'password', user: 'alice' },
  'wrong-ca': { grant: 'password', user: 'alice', ca: 'other' },
  'right-ca': { grant: 'password', user: 'alice', ca: 'issuer' },
  'skip-verify': { grant: 'password', user: 'alice', ca: 'skip-verify' },
  'wrong-secret': { grant: 'password', user: 'alice', wrongSecret: true },
} as const satisfies Record<string, Omit<KubeloginExec, 'cacheDir'>>;
export type UserName = keyof typeof USERS;
