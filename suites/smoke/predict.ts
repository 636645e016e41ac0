// What credprov's models say the kubelet does with the smoke plan, stated
// before any pod exists: which requests the plugin gets (the matching oracle
// and the version table) and whether each pull works (the pull-credentials
// model, given that the provider answers the registry's right password).
import { providersForImage } from '../../src/matching/providers.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import { predictPull } from '../../src/model/pull-credentials.ts';
import type { Prediction } from '../../src/run/kit.ts';
import type { SmokePlan } from './plan.ts';

export type Pull = 'success' | 'failure' | `failure (${string})`;

/** What one pod did: its pull, and whether its container ran the image and printed its marker. */
export interface PodSeen {
  pull: Pull;
  ranImage: boolean;
}

/** One plugin request as the check compares it. */
export interface RequestSeen {
  provider: string;
  apiVersion: string;
  kind: string;
  image: string;
  token: boolean;
}

export const PULL_MODEL = 'pull credentials model (src/model/pull-credentials.ts)';
export const REQUEST_MODEL = 'matching oracle (src/matching) and version table; KEP-2133 request shape';

export function predictPod(plan: SmokePlan, image: string, username: string): Prediction<PodSeen> {
  const provider = plan.config.providers[0]!;
  const pull = predictPull({
    image,
    secrets: [],
    providers: [
      {
        name: provider.name,
        matchImages: provider.matchImages ?? [],
        auths: { [plan.host]: { username, works: true } },
      },
    ],
  });
  return { value: { pull: pull.pull, ranImage: pull.pull === 'success' }, model: PULL_MODEL, because: pull.because };
}

/**
 * Every image of the plan pulled once: a request per image some provider
 * matches, for its repository without tag, in the provider's apiVersion, with
 * no token (no tokenAttributes).
 */
export function predictRequests(plan: SmokePlan, kubeletVersion: string): Prediction<RequestSeen[]> {
  const reasons: string[] = [];
  const requests = Object.values(plan.images).flatMap((ref) => {
    const verdict = providersForImage(plan.config, ref, kubeletVersion);
    const repository = normalizeImage(ref).repository;
    reasons.push(
      `${repository}: ${verdict.invoked.length ? `matches ${verdict.invoked.join(', ')}` : 'matches no provider'}`,
    );
    return verdict.invoked.map((name) => {
      const provider = plan.config.providers.find((p) => p.name === name)!;
      return {
        provider: name,
        apiVersion: provider.apiVersion,
        kind: 'CredentialProviderRequest',
        image: repository,
        token: provider.tokenAttributes !== undefined,
      };
    });
  });
  return {
    value: requests,
    model: REQUEST_MODEL,
    because: `${reasons.join('; ')}; one pod per image, so one request per match`,
  };
}
