#!/usr/bin/env bash
# The project's tests: installs prerequisites (idempotently), type-checks, then
# runs every jest project (unit + e2e) and writes the runner's JSON results to
# reports/jest-results.json. Extra arguments go to jest.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
"$CREDPROV_ROOT/scripts/setup.sh" --cluster
use_node
cd "$CREDPROV_ROOT"
# The version-skew tests run older minors' kubelets under the default API
# server: build those kubelets alone (cached like the rest; ~3-4 min each cold).
for skew in $(node -e 'import("./src/versions/skew.ts").then((m) => console.log(m.SKEW_KUBELET_VERSIONS.join(" ")))'); do
  log "kubelet $skew for the version-skew tests"
  node bin/credprov.js binaries ensure --kube-version "$skew" --only kubelet --skip-containerd >/dev/null
done
# The vendor-plugin tests run the unmodified ecr-credential-provider: build it once (cached under plugins/).
log "ecr-credential-provider for the vendor-plugin tests"
node -e 'Promise.all([import("./src/plugin/vendors/build.ts"), import("./src/plugin/vendors/ecr.ts"), import("./src/core/progress.ts")]).then(([b, e, p]) => b.ensureVendorPlugin(e.ECR_RECIPE, { version: e.ECR_PLUGIN_VERSION, progress: p.stderrProgress() })).catch((err) => { console.error(`error: ${err.message}`); process.exit(1); })'
# …and aws-iam-authenticator, client and server, for the exec-plugin vendor tests (cached the same way).
log "aws-iam-authenticator for the exec-plugin vendor tests"
node -e 'Promise.all([import("./src/plugin/vendors/build.ts"), import("./src/plugin/vendors/aws-iam-authenticator.ts"), import("./src/core/progress.ts")]).then(([b, a, p]) => b.ensureVendorPlugin(a.IAM_AUTHENTICATOR_RECIPE, { version: a.IAM_AUTHENTICATOR_VERSION, progress: p.stderrProgress() })).catch((err) => { console.error(`error: ${err.message}`); process.exit(1); })'
# …and awscli (PyPI, its own venv under plugins/) for `aws eks get-token`, the suite's second token command.
log "awscli for the exec-plugin vendor tests"
node -e 'Promise.all([import("./src/plugin/vendors/aws-cli.ts"), import("./src/core/progress.ts")]).then(([a, p]) => a.ensureAwsCli({ progress: p.stderrProgress() })).catch((err) => { console.error(`error: ${err.message}`); process.exit(1); })'
# …and kubelogin (kubectl oidc-login), for the JWT exec-plugin vendor tests (cached the same way).
log "kubelogin for the exec-plugin vendor tests"
node -e 'Promise.all([import("./src/plugin/vendors/build.ts"), import("./src/plugin/vendors/kubelogin.ts"), import("./src/core/progress.ts")]).then(([b, k, p]) => b.ensureVendorPlugin(k.KUBELOGIN_RECIPE, { version: k.KUBELOGIN_VERSION, progress: p.stderrProgress() })).catch((err) => { console.error(`error: ${err.message}`); process.exit(1); })'
# …and gke-gcloud-auth-plugin (k8s.io/cloud-provider-gcp, a pseudo-version) for the vendor-gke tests.
log "gke-gcloud-auth-plugin for the vendor-gke tests"
node -e 'Promise.all([import("./src/plugin/vendors/build.ts"), import("./src/plugin/vendors/gke-gcloud-auth-plugin.ts"), import("./src/core/progress.ts")]).then(([b, g, p]) => b.ensureVendorPlugin(g.GKE_PLUGIN_RECIPE, { version: g.GKE_PLUGIN_VERSION, progress: p.stderrProgress() })).catch((err) => { console.error(`error: ${err.message}`); process.exit(1); })'
# …and acr-credential-provider (cloud-provider-azure; about 4-7 min cold) for the vendor-acr tests.
log "acr-credential-provider for the vendor-acr tests"
node -e 'Promise.all([import("./src/plugin/vendors/build.ts"), import("./src/plugin/vendors/acr.ts"), import("./src/core/progress.ts")]).then(([b, a, p]) => b.ensureVendorPlugin(a.ACR_RECIPE, { version: a.ACR_PLUGIN_VERSION, progress: p.stderrProgress() })).catch((err) => { console.error(`error: ${err.message}`); process.exit(1); })'
# …and issue 31's plugins for vendor-gcp, vendor-azure-kubelogin and vendor-oci (cold: auth-provider-gcp about 3 min,
# Azure kubelogin about 15 min with its Go toolchain, oci-cli's venv 9-15 min; docs/field-plugins-and-clients.md).
log "auth-provider-gcp, Azure kubelogin and oci-cli for the vendor-gcp, vendor-azure-kubelogin and vendor-oci tests"
# oci-cli's install is mostly downloads and unpacking: beside the Go builds rather than after them.
node scripts/build-field.ts oci-cli &
oci_cli=$!
node scripts/build-field.ts auth-provider-gcp kubelogin || { kill "$oci_cli" 2>/dev/null; exit 1; }
wait "$oci_cli"
# The client matrix (certify exec-plugin --clients, the exec-plugin suites) drives a real client-go:
# build its probe against the default version's client-go once (cached under clients/).
log "client-go probe for the exec-plugin client matrix"
node -e 'Promise.all([import("./src/clients/client-go.ts"), import("./src/core/progress.ts")]).then(([c, p]) => c.ensureClientGoProbe({ progress: p.stderrProgress() })).catch((err) => { console.error(`error: ${err.message}`); process.exit(1); })'
# The kind tier (test/e2e/kind.e2e.test.ts) builds its node image offline from kubeadm, etcd and kind,
# each from the Go module proxy and cached; the image itself is built by the test's `credprov up`.
log "kubeadm, etcd and the kind CLI for the kind tier"
node bin/credprov.js binaries ensure --for kind --skip-containerd >/dev/null
mkdir -p reports
log "type-checking"
npx tsc --noEmit -p .
log "checking the format (prettier; npx prettier --write . fixes it)"
npx prettier --check . >/dev/null || { npx prettier --list-different . >&2; die "files above are not formatted: run npx prettier --write ."; }
log "linting (eslint; npx eslint --fix . fixes most)"
npx eslint . >&2 || die "eslint found the problems above: run npx eslint --fix . and fix the rest"
log "running tests"
exec node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js \
  --json --outputFile=reports/jest-results.json "$@"
