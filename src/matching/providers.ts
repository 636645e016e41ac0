// Which providers of a CredentialProviderConfig the kubelet would exec for
// an image, in the order it would exec them, and why the others are skipped.
// Every matching provider is invoked (pluginProvider.isImageAllowed: any
// matchImages entry matches); order is per the version table.
import type { CredentialProviderConfig } from '../api/credentialprovider/types.ts';
import { behaviourFor, NEWEST_MINOR } from '../versions/table.ts';
import { normalizeImage, type NormalizedImage } from './image.ts';
import { matchPattern, type MatchResult } from './url.ts';

export interface PatternVerdict {
  pattern: string;
  result: MatchResult;
}

export interface ProviderVerdict {
  name: string;
  /** Position in the config file(s). */
  configIndex: number;
  /** The kubelet execs this provider for the image. */
  invoked: boolean;
  patterns: PatternVerdict[];
}

export interface ProvidersForImage {
  image: NormalizedImage;
  kubeVersion: string;
  order: 'name' | 'config';
  /** In invocation order. */
  providers: ProviderVerdict[];
  /** Names of the providers the kubelet execs, in order. */
  invoked: string[];
}

export function providersForImage(
  cfg: CredentialProviderConfig,
  imageRef: string,
  kubeVersion = `1.${NEWEST_MINOR}`,
): ProvidersForImage {
  const behaviour = behaviourFor(kubeVersion);
  const image = normalizeImage(imageRef);
  const verdicts = cfg.providers.map((p, configIndex): ProviderVerdict => {
    const patterns = (p.matchImages ?? []).map((pattern) => ({
      pattern,
      result: matchPattern(pattern, image.repository),
    }));
    return { name: p.name, configIndex, invoked: patterns.some((v) => v.result.match), patterns };
  });
  // Before 1.33 the kubelet registered providers in a map and ranged over sorted names.
  const ordered =
    behaviour.providerOrder === 'name'
      ? [...verdicts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      : verdicts;
  return {
    image,
    kubeVersion: `v1.${behaviour.minor}`,
    order: behaviour.providerOrder,
    providers: ordered,
    invoked: ordered.filter((v) => v.invoked).map((v) => v.name),
  };
}
