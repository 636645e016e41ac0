// What the version-skew suite sets up, as data: the images, the fake
// providers (two on one host in config order z before a, so name order and
// config order differ; one per protocol version), the config variants only
// some kubelet versions refuse, and which cached kubelet stands for a minor.
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import { answer, type FleetMember } from '../../src/run/kit.ts';
import { parseKubeVersion } from '../../src/versions/table.ts';

export const V1 = 'credentialprovider.kubelet.k8s.io/v1';
export const V1BETA1 = 'credentialprovider.kubelet.k8s.io/v1beta1';
export const IMAGES = {
  order: 'order.skew.test/app:v1',
  v1: 'v1.skew.test/app:v1',
  v1beta1: 'v1beta1.skew.test/app:v1',
};
/** The provider that gets tokenAttributes in the refusal cases. */
export const TOKEN_PROVIDER = 'skew-proto-v1';

/** The fleet: every fake answers the lab's credentials for every image of the suite. */
export function fleetMembers(credentials: { username: string; password: string }): FleetMember[] {
  const repositories = Object.values(IMAGES).map((image) => normalizeImage(image).repository);
  const member = (name: string, host: string, apiVersion = V1): FleetMember => ({
    name,
    matchImages: [host],
    apiVersion,
    defaultCacheDuration: '0s',
    scenario: answer(repositories, { '{registry}': credentials }, { cacheDuration: '0s' }),
  });
  return [
    member('skew-order-z', 'order.skew.test'),
    member('skew-order-a', 'order.skew.test'),
    member(TOKEN_PROVIDER, 'v1.skew.test'),
    member('skew-proto-v1beta1', 'v1beta1.skew.test', V1BETA1),
  ];
}

/** The fleet's config with tokenAttributes on the v1 provider (cacheType left out when undefined). */
export function tokenConfig(
  config: CredentialProviderConfig,
  cacheType: 'ServiceAccount' | undefined,
): CredentialProviderConfig {
  const tokenAttributes = {
    serviceAccountTokenAudience: 'credprov-skew',
    requireServiceAccount: false,
    ...(cacheType ? { cacheType } : {}),
  };
  return {
    ...config,
    providers: config.providers.map((p) => (p.name === TOKEN_PROVIDER ? { ...p, tokenAttributes } : p)),
  } as CredentialProviderConfig;
}

/**
 * The kubelet.version to restart with for `minor`: undefined for the API
 * server's own minor (an explicit undefined puts the control plane's kubelet
 * back), the newest cached patch of an older one, or 'missing' when none is cached.
 */
export function kubeletForMinor(
  minor: number,
  apiMinor: number,
  cachedVersions: string[],
): { version: string | undefined } | 'missing' {
  if (minor === apiMinor) return { version: undefined };
  const version = cachedVersions
    .filter((v) => parseKubeVersion(v).minor === minor)
    .sort()
    .at(-1);
  return version ? { version } : 'missing';
}

export const buildCommand = (minor: number) =>
  `credprov binaries ensure --kube-version 1.${minor} --only kubelet --skip-containerd`;
