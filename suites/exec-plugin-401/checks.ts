// The exec-plugin-401 suite's checks: one per behaviour and real client
// of the seven (the client × behaviour table), plus the API server's own: the token webhook
// and its success cache, and the structured JWT authenticator (credprov's OIDC issuer).
import { EXEC_CLIENT_NAMES, type Check, type ExecClientName } from '../../src/run/kit.ts';
import { BEHAVIOURS, type Behaviour } from './plan.ts';

export const CLIENT_TABLE = 'exec plugin clients × behaviour (status/plugin runs per request)';

export function clientCheck(b: Behaviour, client: ExecClientName): Check {
  return {
    id: `${b.id}/${client}`,
    title: `${client}: ${b.title}`,
    level: b.level,
    source: b.source,
    cell: { table: CLIENT_TABLE, row: b.row, column: client },
  };
}

export const WEBHOOK_AUTHENTICATES: Check = {
  id: 'EX401-APISERVER-TOKEN-WEBHOOK',
  title:
    "kube-apiserver asks credprov's token webhook about bearer tokens: an issued token authenticates as the exec plugin's user (200 on what RBAC grants), an unknown one is refused (401); the webhook reviewed both",
  level: 'MUST',
  source:
    'kube-apiserver --authentication-token-webhook-config-file (authentication.k8s.io/v1 TokenReview, --authentication-token-webhook-version=v1); the precondition of every 401 in this suite',
};

export const REVOCATION_DELAY: Check = {
  id: 'EX401-APISERVER-REVOCATION-DELAY',
  title:
    'With --authentication-token-webhook-cache-ttl=0s a revoked token still gets 200 for 10s after its last successful review (no new review), then 401 (reviewed every time)',
  level: 'SHOULD',
  source:
    "kube-apiserver v1.37.1 pkg/kubeapiserver/options/authentication.go:167 (TokenSuccessCacheTTL 10s, no flag) and authenticator/config.go:209; the webhook cache TTL only covers the webhook's own cache",
};

export const JWT_ACCEPTED: Check = {
  id: 'EX401-JWT-ACCEPTED',
  title:
    "kube-apiserver authenticates a JWT from credprov's OIDC issuer through --authentication-config: SelfSubjectReview shows oidc:<sub>; a kid it does not know yet makes it fetch the JWKS",
  level: 'MUST',
  source:
    'KEP-3331 structured authentication configuration (AuthenticationConfiguration apiserver.config.k8s.io/v1, jwt[].claimMappings.username prefix); k8s.io/apiserver v0.37.1 plugin/pkg/authenticator/token/oidc/oidc.go',
};

export const JWT_EXPIRY: Check = {
  id: 'EX401-JWT-EXPIRY',
  title:
    'A JWT is refused once its exp has passed, with no leeway (go-oidc v2.5.0 verify.go:306); a JWT verified before exp keeps working from the 10s token success cache',
  level: 'MUST',
  source:
    'RFC 7519 §4.1.4 (exp: MUST NOT be accepted on or after; go-oidc refuses only after the exp second); KEP-3331; kube-apiserver TokenSuccessCacheTTL 10s (pkg/kubeapiserver/options/authentication.go:167)',
};

export const JWKS_KEY_REMOVED: Check = {
  id: 'EX401-JWKS-KEY-REMOVED',
  title:
    'After the signing key leaves the JWKS (and another is added), tokens signed with it stay accepted until a token with an unknown kid makes the API server refetch the JWKS (no timer); then they are refused, except from the 10s success cache',
  level: 'SHOULD',
  source:
    'KEP-3331 (jwt issuer keys from the JWKS); github.com/coreos/go-oidc v2.5.0 jwks.go:104-135 (remoteKeySet.verify: refetch only when no cached key verifies, keysExpiryDelta 30s from an expiry that is the fetch time without Cache-Control)',
};

export const JWT_CHECKS: Check[] = [JWT_ACCEPTED, JWT_EXPIRY, JWKS_KEY_REMOVED];

export const EXEC401_CHECKS: Check[] = [
  WEBHOOK_AUTHENTICATES,
  REVOCATION_DELAY,
  ...JWT_CHECKS,
  ...BEHAVIOURS.flatMap((b) => EXEC_CLIENT_NAMES.map((c) => clientCheck(b, c))),
];
