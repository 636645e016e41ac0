// The vendor-gcp suite's plan: the provider entries (one kubelet config, each
// a recording wrapper in front of the same auth-provider-gcp), the image hosts
// the lab registries answer as, the fake metadata server's token life, and the
// dockercfg attributes. Data only: no I/O.
//
// Providers:
//   auth-provider-gcp                  GKE's node entry (cluster/gce/gci/configure.sh), its *.pkg.dev narrowed
//                                      to us-docker.pkg.dev so the entries below own the other AR hosts alone
//   auth-provider-gcp-registry-cache   europe-docker.pkg.dev      KUBE_SIDECAR_CACHE_TYPE=registry, _DURATION=1h
//   auth-provider-gcp-long-cache       asia-docker.pkg.dev        KUBE_SIDECAR_CACHE_DURATION=10m (tokens live 40 s)
//   auth-provider-gcp-outage           us-central1-docker.pkg.dev KUBE_SIDECAR_CACHE_TYPE=registry, _DURATION=1h
//   auth-provider-gcp-dockercfg        registry.gce-dockercfg.test      --authFlow=dockercfg
//   auth-provider-gcp-dockercfg-url    registry.gce-dockercfg-url.test  --authFlow=dockercfg-url
import type { CredentialProvider, CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { GCE_NODE_PROVIDER, type GcpAuthFlow } from '../../src/model/auth-provider-gcp.ts';

export const NAME = GCE_NODE_PROVIDER.name;
export const PROVIDER = {
  gke: NAME,
  registryCache: `${NAME}-registry-cache`,
  longCache: `${NAME}-long-cache`,
  outage: `${NAME}-outage`,
  dockercfg: `${NAME}-dockercfg`,
  dockercfgUrl: `${NAME}-dockercfg-url`,
} as const;
export type ProviderKey = keyof typeof PROVIDER;

export const HOSTS = {
  gcr: 'gcr.io',
  gcrRegional: 'us.gcr.io',
  ar: 'us-docker.pkg.dev',
  registryCache: 'europe-docker.pkg.dev',
  longCache: 'asia-docker.pkg.dev',
  outage: 'us-central1-docker.pkg.dev',
  /** Matches no entry: `*.pkg.dev` needs a label before pkg.dev. */
  unmatched: 'pkg.dev',
  dockercfg: 'registry.gce-dockercfg.test',
  dockercfgUrl: 'registry.gce-dockercfg-url.test',
} as const;

/** Which lab registry answers as each host: Google's token services (gcr.io, Artifact Registry), or a private one. */
export const SERVED_BY = {
  gcr: [HOSTS.gcr, HOSTS.gcrRegional, HOSTS.unmatched],
  ar: [HOSTS.ar, HOSTS.registryCache, HOSTS.longCache, HOSTS.outage],
  private: [HOSTS.dockercfg, HOSTS.dockercfgUrl],
} as const;

export const PROJECT = 'credprov-test';
/** The repositories each lab registry holds (what the images below name, without host). */
export const REPOSITORIES = {
  gcr: [`${PROJECT}/app`, `${PROJECT}/other`, `${PROJECT}/unmatched`],
  ar: [`${PROJECT}/repo/app`, `${PROJECT}/repo/other`],
  private: ['team/app'],
};

export interface PlannedImage {
  ref: string;
  /** What the kubelet sends the plugin and keys its Image cache by: the image without its tag. */
  request: string;
  provider?: ProviderKey;
}
const image = (host: string, repository: string, provider?: ProviderKey): PlannedImage => ({
  ref: `${host}/${repository}:v1`,
  request: `${host}/${repository}`,
  ...(provider ? { provider } : {}),
});

export const IMAGES = {
  gcr: image(HOSTS.gcr, `${PROJECT}/app`, 'gke'),
  gcrRegional: image(HOSTS.gcrRegional, `${PROJECT}/other`, 'gke'),
  ar: image(HOSTS.ar, `${PROJECT}/repo/app`, 'gke'),
  unmatched: image(HOSTS.unmatched, `${PROJECT}/unmatched`),
  registryCacheA: image(HOSTS.registryCache, `${PROJECT}/repo/app`, 'registryCache'),
  registryCacheB: image(HOSTS.registryCache, `${PROJECT}/repo/other`, 'registryCache'),
  longCache: image(HOSTS.longCache, `${PROJECT}/repo/app`, 'longCache'),
  outageA: image(HOSTS.outage, `${PROJECT}/repo/app`, 'outage'),
  outageB: image(HOSTS.outage, `${PROJECT}/repo/other`, 'outage'),
  dockercfg: image(HOSTS.dockercfg, 'team/app', 'dockercfg'),
  dockercfgUrl: image(HOSTS.dockercfgUrl, 'team/app', 'dockercfgUrl'),
} as const;

/** The fake metadata server's tokens: short, so a cache entry can outlive one within a case. */
export const TOKEN_LIFETIME_S = 40;
export const TOKEN_REFRESH_BEFORE_S = 10;
/** The service account the metadata server answers for. */
export const SERVICE_ACCOUNT = `node-sa@${PROJECT}.iam.gserviceaccount.com`;
/** The long-cache case's second pull: this long after the token it cached expired. */
export const AFTER_TOKEN_EXPIRY_MS = 3_000;
export const POD_TIMEOUT_MS = 60_000;
/** A pull that must fail: how long the pod is watched for the kubelet's ErrImagePull. */
export const FAILING_POD_TIMEOUT_MS = 45_000;

/** Each entry's flow and environment (the only knobs the plugin reads). */
export const ENTRIES: Record<ProviderKey, { flow: GcpAuthFlow; env: Record<string, string>; matchImages: string[] }> = {
  gke: {
    flow: 'gcr',
    env: {},
    matchImages: GCE_NODE_PROVIDER.matchImages.map((m) => (m === '*.pkg.dev' ? HOSTS.ar : m)),
  },
  registryCache: {
    flow: 'gcr',
    env: { KUBE_SIDECAR_CACHE_TYPE: 'registry', KUBE_SIDECAR_CACHE_DURATION: '1h' },
    matchImages: [HOSTS.registryCache],
  },
  longCache: { flow: 'gcr', env: { KUBE_SIDECAR_CACHE_DURATION: '10m' }, matchImages: [HOSTS.longCache] },
  outage: {
    flow: 'gcr',
    env: { KUBE_SIDECAR_CACHE_TYPE: 'registry', KUBE_SIDECAR_CACHE_DURATION: '1h' },
    matchImages: [HOSTS.outage],
  },
  dockercfg: { flow: 'dockercfg', env: {}, matchImages: [HOSTS.dockercfg] },
  dockercfgUrl: { flow: 'dockercfg-url', env: {}, matchImages: [HOSTS.dockercfgUrl] },
};

/** GKE's entry shape for each: credentialprovider v1, get-credentials --v=3 (plus the flow), defaultCacheDuration 1m. */
export function providerConfig(): CredentialProviderConfig {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1',
    kind: 'CredentialProviderConfig',
    providers: (Object.keys(PROVIDER) as ProviderKey[]).map((k): CredentialProvider => {
      const e = ENTRIES[k];
      return {
        name: PROVIDER[k],
        apiVersion: GCE_NODE_PROVIDER.apiVersion,
        matchImages: e.matchImages,
        defaultCacheDuration: GCE_NODE_PROVIDER.defaultCacheDuration,
        args: [...GCE_NODE_PROVIDER.args, ...(e.flow === 'gcr' ? [] : [`--authFlow=${e.flow}`])],
        ...(Object.keys(e.env).length ? { env: Object.entries(e.env).map(([name, value]) => ({ name, value })) } : {}),
      };
    }),
  };
}

/** The google-dockercfg attribute and the object google-dockercfg-url names: legacy .dockercfg maps. */
export function dockercfgs(login: { username: string; password: string }) {
  return {
    attribute: JSON.stringify({
      [HOSTS.dockercfg]: { auth: Buffer.from(`${login.username}:${login.password}`).toString('base64') },
    }),
    urlObject: JSON.stringify({ [HOSTS.dockercfgUrl]: { username: login.username, password: login.password } }),
  };
}
/** Where the storage endpoint serves the object google-dockercfg-url names. */
export const DOCKERCFG_OBJECT = `${PROJECT}-node-config/dockercfg.json`;
