// The vendor-gke suite's checks: the real, unmodified gke-gcloud-auth-plugin
// as a client-go exec plugin in ADC mode (a service-account key file), against
// a fake Google token endpoint on loopback and credprov's token webhook.
import { GKE_PLUGIN_SOURCE, type Check, type ClientName } from '../../src/run/kit.ts';

const P = GKE_PLUGIN_SOURCE;
const KEP541 = 'KEP-541: client-go runs users[].user.exec and sends status.token as the bearer token';
const RFC7523 = 'RFC 7523 §2.1, §3 (JWT bearer grant: the server MUST verify the signature, iss, aud and exp)';

export const ADC_200: Check = {
  id: 'GKE-ADC-200',
  title:
    'kubectl with a user that execs `gke-gcloud-auth-plugin --use_application_default_credentials` (a service-account key file in GOOGLE_APPLICATION_CREDENTIALS) gets 200',
  level: 'MUST',
  source: `${KEP541}; ${P}/default_credentials_token_provider.go: google.DefaultTokenSource, then cred.go PrintCred`,
};

export const WHOAMI: Check = {
  id: 'GKE-WHOAMI',
  title: "`kubectl auth whoami` shows the user the token webhook maps the service account's access token to",
  level: 'MUST',
  source: 'kube-apiserver --authentication-token-webhook-config-file: the TokenReview user is the request user',
};

export const ASSERTION: Check = {
  id: 'GKE-JWT-BEARER-ASSERTION',
  title:
    "The plugin asks token_uri with a JWT bearer grant signed by the key file's key: RS256, kid = private_key_id, iss = client_email, aud = token_uri, its two scopes, one hour from an iat 10 s back",
  level: 'MUST',
  source: `${RFC7523}; golang.org/x/oauth2 v0.23.0 jwt/jwt.go:101-134, jws/jws.go:55-63; ${P}/default_credentials_token_provider.go:17-19`,
};

export const EXPIRY: Check = {
  id: 'GKE-EXPIRY-IS-TOKEN-EXPIRY',
  title: "The ExecCredential's expirationTimestamp is the access token's expiry (now + expires_in), to the second",
  level: 'SHOULD',
  source: `KEP-541: a client reuses status.token until expirationTimestamp; ${P}/cred.go:228-230, oauth2 jwt/jwt.go:167-168`,
};

export const NO_CACHE: Check = {
  id: 'GKE-ADC-NO-TOKEN-CACHE',
  title:
    'In ADC mode the plugin keeps no token cache: a second kubectl call runs it and it asks token_uri again, and no gke_gcloud_auth_plugin_cache appears beside the default kubeconfig',
  level: 'SHOULD',
  source: `${P}/default_credentials_token_provider.go:51 (useCache false), cred.go:238-264,350-356`,
};

export const BAD_ASSERTION: Check = {
  id: 'GKE-BAD-ASSERTION-REFUSED',
  title:
    "A key file whose key the token endpoint does not know (another key under the account's key id; an unknown account) is refused there; the plugin tries 4 times, exits 1 with the endpoint's error, and kubectl sends no request",
  level: 'MUST',
  source: `${RFC7523}; ${P}/default_credentials_token_provider.go:31 (retry.DefaultBackoff: 4 steps), cred.go:144-146 (klog.Exit)`,
};

export const REVOKED: Check = {
  id: 'GKE-REVOKED-NEXT-RUN-FRESH',
  title:
    "After the account's tokens are revoked server-side, the next kubectl call gets a fresh token and 200: no stale cached token in ADC mode (cloud-provider-gcp#1122 concerns the gcloud provider's cache)",
  level: 'SHOULD',
  source: `${P}/default_credentials_token_provider.go:51; kube-apiserver's 10 s token success cache (src/model/apiserver-authn.ts)`,
};

export const EXEC_INFO_V1: Check = {
  id: 'GKE-EXEC-INFO-V1',
  title:
    'A client.authentication.k8s.io/v1 user works too: the plugin answers in the version KUBERNETES_EXEC_INFO names',
  level: 'SHOULD',
  source: `KEP-541: client-go refuses an answer in another version than the configured one (exec.go:482-485); ${P}/cred.go:191-195 always writes v1beta1`,
};

const GCLOUD = `${P}/cred.go:238-356, gcloud_token_provider.go (the default provider: gcloud config config-helper)`;

export const GCLOUD_REUSE: Check = {
  id: 'GKE-GCLOUD-CACHE-REUSE',
  title:
    "With gcloud (the plugin's default provider), the first kubectl call runs `gcloud config config-helper` and caches the token in $HOME/.kube/gke_gcloud_auth_plugin_cache, not beside --kubeconfig (cloud-provider-gcp#920); the second answers from the cache without gcloud",
  level: 'SHOULD',
  source: `${GCLOUD}; the plugin's documented cache (cred.go:31-36)`,
};

export const GCLOUD_ACCOUNT_SWITCH: Check = {
  id: 'GKE-GCLOUD-CONFIG-SWITCH',
  title:
    "Under the same kube context, a user whose CLOUDSDK_CONFIG names another account gets that account's token, not the one cached for the first (cloud-provider-gcp#1122)",
  level: 'SHOULD',
  source: `${GCLOUD} (the cache key: current-context and flags, cred.go:317-331); cloud-provider-gcp#1122, fixed by #1249`,
};

export const GCLOUD_STALE: Check = {
  id: 'GKE-GCLOUD-REVOKED-CACHED-TOKEN',
  title:
    "After its cached token is revoked server-side, a 401 re-run of the plugin (kubectl's and client-go's) gets a usable token, not the refused one from the cache",
  level: 'SHOULD',
  source: `KEP-541: client-go re-runs the plugin after a 401 to get new credentials (exec.go maybeRefreshCreds); ${GCLOUD}`,
};

const CLIENT_TITLES: Record<ClientName, string> = {
  kubectl: 'kubectl (one process per request)',
  'client-go': 'client-go (one Authenticator for the session)',
  'client-node': '@kubernetes/client-node',
  python: 'the Python client (kubernetes)',
};

export function clientCheck(client: ClientName): Check {
  return {
    id: `GKE-CLIENT-${client.toUpperCase()}`,
    title:
      `${CLIENT_TITLES[client]} runs the plugin and sends its token (200); after the token is revoked server-side, ` +
      "its statuses and plugin runs are what credprov's exec client model predicts",
    level: 'MUST',
    source: `${KEP541}; client-go exec.go: a 401 re-runs the plugin for the next request (src/model/exec-credential-cache.ts)`,
    cell: {
      table: 'gke-gcloud-auth-plugin through each client',
      row: 'request, revoke, request, request',
      column: client,
    },
  };
}

export const CLIENTS: readonly ClientName[] = ['kubectl', 'client-go', 'client-node', 'python'];

export const VENDOR_GKE_CHECKS: Check[] = [
  ADC_200,
  WHOAMI,
  ASSERTION,
  EXPIRY,
  NO_CACHE,
  BAD_ASSERTION,
  REVOKED,
  EXEC_INFO_V1,
  GCLOUD_REUSE,
  GCLOUD_ACCOUNT_SWITCH,
  GCLOUD_STALE,
  ...CLIENTS.map(clientCheck),
];
