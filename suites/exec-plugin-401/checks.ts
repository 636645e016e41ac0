// The exec-plugin-401 suite's checks: one per behaviour and real client
// (the client × behaviour table), plus two about the API server itself.
import { CLIENT_NAMES, type ClientName } from '../../src/clients/probe.ts';
import type { Check } from '../../src/report/model.ts';
import { BEHAVIOURS, type Behaviour } from './behaviours.ts';

export const CLIENT_TABLE = 'exec plugin clients × behaviour (status/plugin runs per request)';

export function clientCheck(b: Behaviour, client: ClientName): Check {
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
  title: 'kube-apiserver asks credprov\'s token webhook about bearer tokens: an issued token authenticates as the exec plugin\'s user (200 on what RBAC grants), an unknown one is refused (401); the webhook reviewed both',
  level: 'MUST',
  source: 'kube-apiserver --authentication-token-webhook-config-file (authentication.k8s.io/v1 TokenReview, --authentication-token-webhook-version=v1); the precondition of every 401 in this suite',
};

export const REVOCATION_DELAY: Check = {
  id: 'EX401-APISERVER-REVOCATION-DELAY',
  title: 'With --authentication-token-webhook-cache-ttl=0s a revoked token still gets 200 for 10s after its last successful review (no new review), then 401 (reviewed every time)',
  level: 'SHOULD',
  source: 'kube-apiserver v1.37.1 pkg/kubeapiserver/options/authentication.go:167 (TokenSuccessCacheTTL 10s, no flag) and authenticator/config.go:209; the webhook cache TTL only covers the webhook\'s own cache',
};

export const EXEC401_CHECKS: Check[] = [
  WEBHOOK_AUTHENTICATES,
  REVOCATION_DELAY,
  ...BEHAVIOURS.flatMap((b) => CLIENT_NAMES.map((c) => clientCheck(b, c))),
];
