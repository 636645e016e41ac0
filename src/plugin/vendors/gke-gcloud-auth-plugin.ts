// gke-gcloud-auth-plugin (kubernetes/cloud-provider-gcp, cmd/gke-gcloud-auth-plugin),
// unmodified: GKE's client-go exec credential plugin. What it does, read from
// the source at d74b2e1d6653 (cmd/gke-gcloud-auth-plugin/*.go) and its pinned
// golang.org/x/oauth2 v0.23.0, and confirmed by running it against credprov's
// fake Google token endpoint (src/fake-clouds/google/):
// - `--use_application_default_credentials` (cred.go:130-133) takes its token from
//   google.DefaultTokenSource with the scopes cloud-platform and userinfo.email
//   (default_credentials_token_provider.go:17-19). With GOOGLE_APPLICATION_CREDENTIALS
//   naming a service-account JSON (oauth2 google/default.go:199-206), that is a JWT
//   bearer grant (RFC 7523) to the file's token_uri (google/google.go:150-170,
//   jwt/jwt.go:101-183): an RS256 JWT with kid = private_key_id, iss = client_email,
//   aud = token_uri, scope, iat = now - 10 s, exp = iat + 1 h (jws/jws.go), POSTed as
//   grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…; the token's
//   expiry is now + expires_in.
// - Any failure is retried: retry.OnError(retry.DefaultBackoff, always) = 4 tries,
//   10 ms × 5^n apart (default_credentials_token_provider.go:31); then klog.Exit, exit 1.
// - It prints a v1beta1 ExecCredential whatever KUBERNETES_EXEC_INFO says (cred.go:191-199),
//   with expirationTimestamp = the token's expiry when it has one (cred.go:228-230).
// - Its token cache (cred.go:238-264) is used only when the token provider says so:
//   the ADC provider never does (default_credentials_token_provider.go:51), so in ADC
//   mode every run calls token_uri. The gcloud provider does (gcloud_token_provider.go:81-88):
//   the file is gke_gcloud_auth_plugin_cache beside the kubeconfig client-go's default
//   loading rules name (cred.go:350-356: $KUBECONFIG's first existing file, else
//   $HOME/.kube/config; kubectl's --kubeconfig never reaches the plugin), keyed on that
//   kubeconfig's current-context and --project/--account/--impersonate flags only
//   (cred.go:317-331). Not on CLOUDSDK_CONFIG: cloud-provider-gcp#1122.
import type { VendorPluginRecipe } from './build.ts';

export const GKE_PLUGIN = 'gke-gcloud-auth-plugin';
export const GKE_PLUGIN_MODULE = 'k8s.io/cloud-provider-gcp';
/** The module has no release tags: this pseudo-version (2024-11-15, the merge of PR #778) is the one the issue pins. */
export const GKE_PLUGIN_VERSION = 'v0.0.0-20241115222652-d74b2e1d6653';
const COMMIT = 'd74b2e1d6653d67d51b9e67d505c15a6935fbc5f';
const COMMIT_DATE = '2024-11-15T22:26:52Z';
/**
 * What tools/version.sh computes for a build of this commit: git describe is commented out
 * there and KUBE_GIT_VERSION is "v1.30.0+<commit>" (major 1, minor 30, tree clean).
 */
export const GKE_PLUGIN_GIT_VERSION = `v1.30.0+${COMMIT}`;
/** Where the behaviour described above lives, for check sources. */
export const GKE_PLUGIN_SOURCE = `kubernetes/cloud-provider-gcp@${COMMIT.slice(0, 12)} cmd/gke-gcloud-auth-plugin`;
/** The cache file's name (cred.go:36). */
export const GKE_CACHE_FILE = 'gke_gcloud_auth_plugin_cache';
/** The scopes it asks for (default_credentials_token_provider.go:17-19). */
export const GKE_SCOPES = [
  'https://www.googleapis.com/auth/cloud-platform',
  'https://www.googleapis.com/auth/userinfo.email',
] as const;
/** retry.DefaultBackoff's Steps: how many times a failing token fetch is tried. */
export const GKE_TOKEN_TRIES = 4;

// The vendor stamps with Bazel x_defs (defs/version.bzl) into component-base's and
// client-go's version packages; these are the same variables, as go build -X names them.
const STAMP = {
  gitVersion: GKE_PLUGIN_GIT_VERSION,
  gitCommit: COMMIT,
  gitTreeState: 'clean',
  gitMajor: '1',
  gitMinor: '30',
  buildDate: COMMIT_DATE,
};
const STAMPED = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'];

export const GKE_PLUGIN_RECIPE: VendorPluginRecipe = {
  binary: GKE_PLUGIN,
  module: GKE_PLUGIN_MODULE,
  packageDir: './cmd/gke-gcloud-auth-plugin',
  // Bazel's go_binary strips nothing (pure = "on" is CGO_ENABLED=0, which build.ts sets anyway).
  ldflags: () => STAMPED.flatMap((pkg) => Object.entries(STAMP).map(([k, v]) => `-X ${pkg}.${k}=${v}`)).join(' '),
  // verflag: `--version` prints "Kubernetes v1.30.0+<commit>".
  reportedVersion: () => GKE_PLUGIN_GIT_VERSION,
};
