// The vendor-gcp suite's checks: the real, unmodified auth-provider-gcp
// (kubernetes/cloud-provider-gcp) under the real kubelet, against a fake GCE
// metadata server on loopback and registries answering as gcr.io and Artifact
// Registry hosts. GCP_MODES names each check's --authFlow, for the compatibility matrix.
import type { Check } from '../../src/run/kit.ts';

const SOURCE = 'kubernetes/cloud-provider-gcp@d74b2e1d6653 cmd/auth-provider-gcp, pkg/gcpcredential';
const PLUGIN_GO = 'kubelet pkg/credentialprovider/plugin/plugin.go';

export const PULL_GCR: Check = {
  id: 'GCP-PULL-GCR',
  title:
    "An image on gcr.io is pulled with the credentials auth-provider-gcp got from the metadata server: it asks the token and the email with Metadata-Flavor: Google, answers _token and the access token, and gcr.io's token service accepts them",
  level: 'MUST',
  source: `KEP-2133: the kubelet execs the matching provider and pulls with its auth; ${SOURCE}: gcpcredential.go:235-267 (gcr flow), :57-59 (the header); Google: access-token login with _token`,
};

export const PULL_AR: Check = {
  id: 'GCP-PULL-ARTIFACT-REGISTRY',
  title:
    'An image on an Artifact Registry host (us-docker.pkg.dev) is pulled the same way, its token service accepting the same _token login',
  level: 'MUST',
  source: `KEP-2133; ${SOURCE}: containerRegistryUrls includes *.pkg.dev (gcpcredential.go:55); Google: Artifact Registry access-token authentication`,
};

export const ANSWER: Check = {
  id: 'GCP-ANSWER',
  title:
    "The plugin answers as its code says under GKE's entry: cacheKeyType Image and cacheDuration 0s (no KUBE_SIDECAR_* env), auth for container.cloud.google.com, gcr.io, *.gcr.io and *.pkg.dev whatever the image, each _token with the metadata server's access token",
  level: 'SHOULD',
  source: `${SOURCE}: provider.go:77-108 (KUBE_SIDECAR_CACHE_TYPE/_DURATION), gcpcredential.go:55, :235-267`,
};

export const NO_CACHE: Check = {
  id: 'GCP-ZERO-DURATION-NOT-CACHED',
  title:
    "Under GKE's entry the kubelet caches nothing: the same image pulled twice execs the plugin twice (cacheDuration 0s wins over the entry's defaultCacheDuration 1m)",
  level: 'MUST',
  source: `KEP-2133: an explicit cacheDuration of 0 means do not cache; ${PLUGIN_GO}: provide() returns before caching when CacheDuration is 0`,
};

export const UNMATCHED: Check = {
  id: 'GCP-UNMATCHED-NOT-SENT',
  title:
    'An image on pkg.dev itself matches no entry (*.pkg.dev needs a label in front): no exec, no metadata request, an anonymous pull the registry refuses',
  level: 'MUST',
  source: `KEP-2133: a provider is exec'd only for images its matchImages match; ${PLUGIN_GO}: isImageAllowed (one glob per host label)`,
};

export const REGISTRY_CACHE: Check = {
  id: 'GCP-REGISTRY-CACHE',
  title:
    'With KUBE_SIDECAR_CACHE_TYPE=registry and KUBE_SIDECAR_CACHE_DURATION=1h the plugin answers Registry, 1h0m0s, and the kubelet serves another repository of the same registry from that entry without an exec',
  level: 'MUST',
  source: `${SOURCE}: provider.go:77-108; KEP-2133 cacheKeyType Registry; ${PLUGIN_GO}: getCachedCredentials before exec`,
};

export const CACHE_WITHIN_TOKEN: Check = {
  id: 'GCP-CACHE-WITHIN-TOKEN-LIFE',
  title:
    "The cacheDuration the plugin answers does not outlive the token it answers: with KUBE_SIDECAR_CACHE_DURATION=10m and the metadata server's token expiring first, the kubelet must not pull with the expired token",
  level: 'SHOULD',
  source: `KEP-2133: cacheDuration is how long the returned credentials may be used; ${SOURCE}: cacheDuration comes from the env alone, the token's expires_in is never read (gcpcredential.go:235-267); contrast ecr-credential-provider, which halves the token's remaining life`,
};

export const OUTAGE: Check = {
  id: 'GCP-METADATA-FAILURE-NOT-CACHED',
  title:
    'When the metadata server fails, the plugin fails the exec (so the kubelet caches nothing) rather than answering no credentials for its cacheDuration: once the server is back, the next pull of that registry gets credentials',
  level: 'SHOULD',
  source: `KEP-2133: a plugin that cannot provide credentials exits non-zero, and a failed exec is not cached; ${PLUGIN_GO}: a response is cached for its cacheDuration whatever its auth; ${SOURCE}: any metadata error is logged and the answer has no auth, exit 0 (gcpcredential.go:235-267)`,
};

export const DOCKERCFG: Check = {
  id: 'GCP-DOCKERCFG',
  title:
    'With --authFlow=dockercfg the plugin reads the google-dockercfg instance attribute (a legacy .dockercfg) and the kubelet pulls from that private registry with the login it holds',
  level: 'MUST',
  source: `${SOURCE}: gcpcredential.go:120-130 (attributes/google-dockercfg), credentialconfig/config.go:237-284 (auth wins over username/password)`,
};

export const DOCKERCFG_URL: Check = {
  id: 'GCP-DOCKERCFG-URL',
  title:
    'With --authFlow=dockercfg-url the plugin reads the google-dockercfg-url attribute, fetches that URL (without Metadata-Flavor) and the kubelet pulls with the login the object holds',
  level: 'MUST',
  source: `${SOURCE}: gcpcredential.go:133-151`,
};

export const VENDOR_GCP_CHECKS: Check[] = [
  PULL_GCR,
  PULL_AR,
  ANSWER,
  NO_CACHE,
  UNMATCHED,
  REGISTRY_CACHE,
  CACHE_WITHIN_TOKEN,
  OUTAGE,
  DOCKERCFG,
  DOCKERCFG_URL,
];

/** The plugin's mode each check judges (its --authFlow): a column of docs/vendors.md's matrix. */
export const GCP_MODES: Record<string, string> = {
  ...Object.fromEntries(VENDOR_GCP_CHECKS.map((c) => [c.id, 'gcr'])),
  [DOCKERCFG.id]: 'dockercfg',
  [DOCKERCFG_URL.id]: 'dockercfg-url',
};
