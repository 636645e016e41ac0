// The smoke suite's plan: one provider that matches one private repository,
// and two private images on one lab registry, one matched and one not. Data
// only: the lab registry's host is known once it runs, so the plan is a
// function of it.
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';

export const PROVIDER_NAME = 'credprov-fake';
export const REQUEST_API_VERSION = 'credentialprovider.kubelet.k8s.io/v1';
/** Long enough that the one pod of the matched image is served by one exec. */
export const CACHE_DURATION = '1m';
export const REPOSITORIES = { matched: 'smoke/private', unmatched: 'smoke/unmatched' } as const;

export interface SmokePlan {
  /** The lab registry (host:port), which requires a login for every image. */
  host: string;
  /** The repository the provider matches (host/path, no tag): what the plugin must be asked for. */
  matched: string;
  images: { matched: string; unmatched: string };
  config: CredentialProviderConfig;
}

export function smokePlan(host: string): SmokePlan {
  const matched = `${host}/${REPOSITORIES.matched}`;
  return {
    host,
    matched,
    images: { matched: `${matched}:v1`, unmatched: `${host}/${REPOSITORIES.unmatched}:v1` },
    config: {
      apiVersion: 'kubelet.config.k8s.io/v1',
      kind: 'CredentialProviderConfig',
      providers: [
        {
          name: PROVIDER_NAME,
          apiVersion: REQUEST_API_VERSION,
          matchImages: [matched],
          defaultCacheDuration: CACHE_DURATION,
        },
      ],
    },
  };
}
