// kubelogin (int128/kubelogin, `kubectl oidc-login`), unmodified: a client-go
// exec credential plugin that logs in to an OIDC provider and prints the
// id_token. What `get-token` does, read from the v1.36.3 source (pkg/…):
// - Discovery: go-oidc's NewProvider GETs <issuer>/.well-known/openid-configuration
//   (pkg/oidc/client/factory.go:57) and needs the issuer to match; the token
//   endpoint comes from it; no authorization endpoint is needed for the password
//   or client-credentials grants.
// - Grants (pkg/cmd/authentication.go:171-207): `--grant-type password` with
//   --username/--password (ROPC: golang.org/x/oauth2 PasswordCredentialsToken,
//   client auth auto-detected: Basic first, then in the body; pkg/oidc/client/ropc.go:13),
//   `client-credentials` (client auth always Basic; pkg/oidc/client/clientcredentials.go:39-46),
//   scope "openid" plus --oidc-extra-scope (factory.go:79).
// - It verifies the id_token against the JWKS: issuer, signature, exp, and
//   aud ∋ --oidc-client-id (client.go:108-110). With --oidc-use-access-token it
//   prints the access_token instead: verified (signature, issuer, exp, no
//   audience) for the password grant (client.go:69-101), not verified at all for
//   client-credentials (clientcredentials.go:52-57).
// - Token cache (pkg/tokencache/repository/repository.go): --token-cache-dir
//   (default ~/.kube/cache/oidc-login), one file per sha256(gob(key)) where the key
//   is the issuer, client id and secret, scopes, TLS options and username; JSON
//   {id_token, refresh_token}, mode 0600, plus a `<file>.lock`. A cached token whose
//   exp is not before now is printed without any request, not even discovery
//   (pkg/usecases/credentialplugin/get_token.go:85-108; pkg/jwt/token.go:18).
// - Expired: refresh_token grant if the cache holds one; if the refresh fails, the
//   configured grant again (pkg/usecases/authentication/authentication.go:105-112).
// - CA: --certificate-authority / --certificate-authority-data / --insecure-skip-tls-verify
//   for every request to the issuer (pkg/cmd/tls.go, factory.go:39-48).
// - ExecCredential: the apiVersion KUBERNETES_EXEC_INFO names, token + expirationTimestamp = the token's exp.
import type { VendorPluginRecipe } from './build.ts';

export const KUBELOGIN = 'kubectl-oidc_login';
export const KUBELOGIN_MODULE = 'github.com/int128/kubelogin';
/** Earlier tags have no checksum-database entries here, so the proxy refuses them. */
export const KUBELOGIN_VERSION = 'v1.36.3';
/** Where the behaviour described above lives, for check sources. */
export const KUBELOGIN_SOURCE = `int128/kubelogin ${KUBELOGIN_VERSION}`;

export const KUBELOGIN_RECIPE: VendorPluginRecipe = {
  // The name the release archives use: kubectl finds plugins by it (`kubectl oidc-login` → kubectl-oidc_login).
  binary: KUBELOGIN,
  module: KUBELOGIN_MODULE,
  packageDir: '.',
  // main.go's `var version = "HEAD"`, set as the vendor's release workflow does
  // (.github/workflows/release.yaml: go build -ldflags '-X main.version=<tag>'); no Makefile target builds it.
  ldflags: (v) => `-X main.version=${v}`,
  // cobra's --version prints "kubelogin version v1.36.3".
  versionArgs: ['--version'],
};
