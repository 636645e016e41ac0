// aws-iam-authenticator (kubernetes-sigs/aws-iam-authenticator), unmodified:
// the client-go exec credential plugin (`token`) and its server side (`server`,
// a TokenReview webhook for kube-apiserver). What it does, read from the
// v0.7.18 source (cmd/aws-iam-authenticator/*.go, pkg/token/token.go,
// pkg/server/server.go) and confirmed by running it against credprov's fake STS:
// - `token -i <cluster-id>` makes no network call. It presigns an STS
//   GetCallerIdentity GET (SigV4 in the query, X-Amz-Expires=60, the header
//   x-k8s-aws-id: <cluster-id> signed) with aws-sdk-go-v2's default credential chain,
//   for https://sts.<region>.amazonaws.com/ (region: --region, else AWS_REGION, else
//   IMDS, else us-east-1), and prints an ExecCredential whose token is
//   "k8s-aws-v1." + base64url(url) and whose expirationTimestamp is now + 14 min.
//   apiVersion: the one KUBERNETES_EXEC_INFO names, else v1beta1.
// - `server` verifies a token without a key of its own: the URL must be https, on
//   an STS hostname of its partition (any syntactically valid region), path "/",
//   only whitelisted query parameters, Action=GetCallerIdentity, x-k8s-aws-id among
//   the signed headers, X-Amz-Expires in 0..900 and X-Amz-Date less than 15 min old.
//   Then it GETs the URL itself, with x-k8s-aws-id set to ITS cluster id (so a token
//   for another cluster fails STS's signature check) and accept: application/json,
//   maps the caller's ARN (assumed roles canonicalised to the role) to a Kubernetes
//   username and groups, and answers a v1beta1 TokenReview: 200 authenticated, or
//   403 unauthenticated (429 when STS throttles).
// - The server's own surface: TLS on --address:--port with a self-signed cert kept
//   in --state-dir; the webhook kubeconfig written to --generate-kubeconfig; and a
//   /healthz listener on ":21363" (every interface; the port comes from
//   Config.HealthPort, which no flag or config key sets in v0.7.18).
import type { VendorPluginRecipe } from './build.ts';

export const IAM_AUTHENTICATOR = 'aws-iam-authenticator';
export const IAM_AUTHENTICATOR_MODULE = 'sigs.k8s.io/aws-iam-authenticator';
/**
 * Newest release whose module zip the Go module proxy serves here. The proxy's list
 * shows only v0.6.13; v0.7.18 resolves by name (v0.7.20 and v0.7.21 have .info but
 * their zips are refused with 403).
 */
export const IAM_AUTHENTICATOR_VERSION = 'v0.7.18';
/** The release's commit and tag time, from the proxy's .info Origin (what the vendor's Makefile stamps from git). */
const RELEASE = { commit: 'c0e2ecd6c9e352db19435db4d2c7e64282554d2f', date: '2026-06-15T19:03:38Z' };
/** Where the behaviour described above lives, for check sources. */
export const IAM_AUTHENTICATOR_SOURCE = `kubernetes-sigs/aws-iam-authenticator ${IAM_AUTHENTICATOR_VERSION} pkg/token/token.go`;

export const IAM_AUTHENTICATOR_RECIPE: VendorPluginRecipe = {
  binary: IAM_AUTHENTICATOR,
  module: IAM_AUTHENTICATOR_MODULE,
  packageDir: './cmd/aws-iam-authenticator',
  // The vendor Makefile's LDFLAGS; the build date is the tag's, so two builds are byte-identical.
  ldflags: (v) =>
    `-w -s -X ${IAM_AUTHENTICATOR_MODULE}/pkg.Version=${v} -X ${IAM_AUTHENTICATOR_MODULE}/pkg.BuildDate=${RELEASE.date} -X ${IAM_AUTHENTICATOR_MODULE}/pkg.CommitID=${RELEASE.commit}`,
  // A cobra command: `version` prints {"Version":"v0.7.18",…}; --version is an unknown flag.
  versionArgs: ['version'],
};
