// auth-provider-gcp (kubernetes/cloud-provider-gcp, cmd/auth-provider-gcp),
// unmodified: GKE's kubelet image credential provider for gcr.io and Artifact
// Registry. What it does is modelled in src/model/auth-provider-gcp.ts.
//
// Built from the same module and pseudo-version as gke-gcloud-auth-plugin
// (d74b2e1d6653, 2024-11-15). The folder cmd/auth-provider-gcp is in that
// module zip, but its go.mod has `replace k8s.io/cloud-provider-gcp/providers
// => ./providers`, and ./providers is a nested module of its own, which the Go
// module zip of the outer module leaves out. So `go build` refuses with
// "replacement directory ./providers does not exist". The proxy serves the
// nested module only as v0.28.2 (2023-12-04): the pseudo-versions of the same
// commit (v0.0.0-20241115222652-d74b2e1d6653, v0.28.3-0.20241115222652-d74b2e1d6653)
// and `@d74b2e1d6653` are refused (404 / 403 "not available"). prepare() puts
// v0.28.2 where the replace directive points. Between v0.28.2 and d74b2e1d6653
// the packages the plugin links from it (providers/gce/gcpcredential, imported
// blank by main.go only "for bazel", no init, no registration) differ in one
// unused variable (containerRegistryUrls gained "docker.*.goog"; the plugin
// matches with pkg/gcpcredential's own list), and the nested go.mod's
// requirements are all at or below the outer go.mod's, which -mod=readonly
// proves: the outer go.mod and go.sum decide every dependency, unchanged.
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { makeWritable } from '../../cluster/binaries/cache.ts';
import type { GoTool } from '../../cluster/binaries/go.ts';
import { PrerequisiteError } from '../../core/errors.ts';
import type { VendorPluginRecipe } from './build.ts';
import { GKE_PLUGIN_GIT_VERSION, GKE_PLUGIN_MODULE, GKE_PLUGIN_VERSION } from './gke-gcloud-auth-plugin.ts';

export const AUTH_PROVIDER_GCP = 'auth-provider-gcp';
/** The module and pseudo-version credprov builds gke-gcloud-auth-plugin from. */
export const AUTH_PROVIDER_GCP_VERSION = GKE_PLUGIN_VERSION;
/** The nested module its go.mod replaces with ./providers, and the one version of it the proxy serves. */
export const GCP_PROVIDERS_MODULE = `${GKE_PLUGIN_MODULE}/providers`;
export const GCP_PROVIDERS_VERSION = 'v0.28.2';
/** Where the behaviour lives, for check sources. */
export const AUTH_PROVIDER_GCP_SOURCE = `kubernetes/cloud-provider-gcp@d74b2e1d6653 cmd/auth-provider-gcp, pkg/gcpcredential`;

/** Copies the nested providers module into the outer module's copy, where its replace directive points. */
export async function addProvidersModule(work: string, go: GoTool): Promise<string> {
  const dl = await go.download(GCP_PROVIDERS_MODULE, GCP_PROVIDERS_VERSION);
  if (!dl.ok || !dl.dir)
    throw new PrerequisiteError(
      `${GCP_PROVIDERS_MODULE}@${GCP_PROVIDERS_VERSION} (auth-provider-gcp's ./providers) is not available from the Go module proxy (${dl.failure ?? 'unknown'})`,
      { detail: dl.error ?? '', hint: 'check network access to GOPROXY' },
    );
  const target = join(work, 'providers');
  await cp(dl.dir, target, { recursive: true });
  await makeWritable(target);
  return `./providers = ${GCP_PROVIDERS_MODULE}@${GCP_PROVIDERS_VERSION}${dl.sum ? ` ${dl.sum}` : ''}`;
}

// The same Bazel x_defs stamp as gke-gcloud-auth-plugin (one commit, one tools/version.sh).
const STAMPED = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'];
const STAMP = { gitVersion: GKE_PLUGIN_GIT_VERSION, gitTreeState: 'clean', gitMajor: '1', gitMinor: '30' };

export const AUTH_PROVIDER_GCP_RECIPE: VendorPluginRecipe = {
  binary: AUTH_PROVIDER_GCP,
  module: GKE_PLUGIN_MODULE,
  packageDir: './cmd/auth-provider-gcp',
  ldflags: () => STAMPED.flatMap((pkg) => Object.entries(STAMP).map(([k, v]) => `-X ${pkg}.${k}=${v}`)).join(' '),
  prepare: addProvidersModule,
  // It has no version flag or command (main.go: cobra root with get-credentials only). What the build checks is
  // that the command the kubelet runs is there: its help names the --authFlow flag and its three flows.
  versionArgs: ['get-credentials', '--help'],
  reportedVersion: () => 'authentication flow (valid values are "gcr", "dockercfg", and "dockercfg-url")',
};
