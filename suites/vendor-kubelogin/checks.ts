// The vendor-kubelogin suite's checks: the real, unmodified kubelogin
// (`kubectl oidc-login get-token`) as a client-go exec plugin, logging in to
// credprov's OIDC issuer and token endpoint, against kube-apiserver's
// structured JWT authenticator.
import { KUBELOGIN_SOURCE, type Check } from '../../src/run/kit.ts';

const V = KUBELOGIN_SOURCE;
const KEP541 = 'KEP-541: client-go runs users[].user.exec and sends status.token as the bearer token';
const JWT_AUTHN =
  'kube-apiserver AuthenticationConfiguration jwt[]: the token MUST be signed by the issuer, unexpired, and its aud MUST match issuer.audiences';

export const PASSWORD: Check = {
  id: 'KUBELOGIN-PASSWORD-GRANT-200',
  title:
    '`kubectl oidc-login get-token --grant-type password` logs in with the resource owner password grant; `kubectl auth whoami` is answered (201) and names oidc:<sub>',
  level: 'MUST',
  source: `${KEP541}; RFC 6749 §4.3; ${V} pkg/oidc/client/ropc.go, docs/usage.md (password grant); ${JWT_AUTHN}`,
};

export const CLIENT_CREDENTIALS: Check = {
  id: 'KUBELOGIN-CLIENT-CREDENTIALS-200',
  title:
    '`--grant-type client-credentials` logs in as the client (HTTP Basic client auth); `kubectl auth whoami` is answered (201) as oidc:client:<id>',
  level: 'MUST',
  source: `${KEP541}; RFC 6749 §4.4 and §2.3.1 (Basic MUST be supported); ${V} pkg/oidc/client/clientcredentials.go`,
};

export const TOKEN_CACHE: Check = {
  id: 'KUBELOGIN-TOKEN-CACHE-REUSED',
  title:
    'A second kubectl process runs the plugin again, which answers from --token-cache-dir: no discovery, no token request, the same token',
  level: 'SHOULD',
  source: `${V} pkg/usecases/credentialplugin/get_token.go:85-108 (a cached token that has not expired is printed as is); README: the token is cached in ~/.kube/cache/oidc-login`,
};

export const REFRESH: Check = {
  id: 'KUBELOGIN-REFRESH-AT-EXPIRY',
  title:
    'Once the cached id_token has expired, the plugin uses the refresh_token grant (not the password again) and kubectl is authenticated',
  level: 'SHOULD',
  source: `RFC 6749 §6; ${V} pkg/usecases/authentication/authentication.go:105-110; ${KEP541} (client-go re-execs at expirationTimestamp)`,
};

export const REVOKED_REFRESH: Check = {
  id: 'KUBELOGIN-REVOKED-REFRESH-FALLS-BACK',
  title:
    'With the refresh token revoked (400 invalid_grant), the plugin falls back to the configured password grant and kubectl is still authenticated',
  level: 'SHOULD',
  source: `RFC 6749 §5.2 (invalid_grant), §6; ${V} pkg/usecases/authentication/authentication.go:111-134; golang.org/x/oauth2 v0.36.0 internal/token.go:216-245 (auth-style probe)`,
};

export const ACCESS_TOKEN: Check = {
  id: 'KUBELOGIN-ACCESS-TOKEN-AUDIENCE',
  title:
    'With --oidc-use-access-token the plugin prints the access_token, whose aud is the resource, not the client: the API server refuses it (401); the id_token is accepted',
  level: 'MUST',
  source: `${V} pkg/oidc/client/client.go:69-101; ${JWT_AUTHN}; OIDC Core §2 (id_token aud = client_id)`,
};

export const CA: Check = {
  id: 'KUBELOGIN-ISSUER-CA',
  title:
    'With --certificate-authority naming a CA that did not sign the issuer, the plugin fails before any request (kubectl sends none); with the right CA, or with --insecure-skip-tls-verify, it logs in',
  level: 'MUST',
  source: `${V} pkg/cmd/tls.go, pkg/oidc/client/factory.go:39-59; RFC 6749 §1.6 (TLS MUST be used and verified); ${KEP541} (a failing plugin fails the request)`,
};

export const WRONG_SECRET: Check = {
  id: 'KUBELOGIN-WRONG-CLIENT-SECRET-EXPLAINED',
  title:
    'With a wrong --oidc-client-secret the endpoint answers 401 invalid_client; the plugin exits non-zero naming invalid_client on stderr, and kubectl sends no request',
  level: 'MUST',
  source: `RFC 6749 §5.2 (invalid_client, 401); ${KEP541} (a plugin that fails exits non-zero and says why on stderr; client-go then fails the request); ${V} pkg/usecases/authentication/authentication.go:128-133`,
};

const clientCheck = (id: string, client: string): Check => ({
  id: `KUBELOGIN-CLIENT-${id}`,
  title: `${client} runs kubelogin (password grant, its own cache dir) and gets 200 with the id_token: the JWT row of the client matrix`,
  level: 'MUST',
  source: `${KEP541}; ${JWT_AUTHN}; ${V} get-token writes an ExecCredential in the KUBERNETES_EXEC_INFO apiVersion`,
});

export const CLIENT_CHECKS = {
  kubectl: clientCheck('KUBECTL', 'kubectl'),
  'client-go': clientCheck('CLIENT-GO', 'client-go'),
  'client-node': clientCheck('CLIENT-NODE', '@kubernetes/client-node'),
  python: clientCheck('PYTHON', 'the Python client'),
} as const;

export const VENDOR_KUBELOGIN_CHECKS: Check[] = [
  PASSWORD,
  CLIENT_CREDENTIALS,
  TOKEN_CACHE,
  REFRESH,
  REVOKED_REFRESH,
  ACCESS_TOKEN,
  CA,
  WRONG_SECRET,
  ...Object.values(CLIENT_CHECKS),
];
