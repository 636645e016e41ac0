// What the version-skew suite sets up, as data: the images, the fake
// providers (two on one host in config order z before a, so name order and
// config order differ; one per protocol version), the config variants only
// some kubelet versions refuse.
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import { answer, type FleetMember } from '../../src/run/kit.ts';

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
