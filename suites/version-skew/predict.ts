// credprov's predictions for one kubelet version under the newest API server,
// from the version table (src/versions/table.ts), the matching oracle
// (src/matching/providers.ts) and the config validator (validate-config
// --kube-version): pure, so each is pinned by predict.test.ts without a cluster.
import { validateProviderConfig } from '../../src/api/credentialprovider/config.ts';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import { providersForImage } from '../../src/matching/providers.ts';
import type { FieldProblem, Prediction } from '../../src/run/kit.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { IMAGES } from './plan.ts';

export type StartOutcome = 'starts' | 'refuses to start';

/** Which providers a `kubeletVersion` kubelet execs for the order image, in which order. */
export function predictOrder(config: CredentialProviderConfig, kubeletVersion: string): Prediction<string> {
  const order = providersForImage(config, IMAGES.order, kubeletVersion);
  const behaviour = behaviourFor(kubeletVersion);
  const repository = normalizeImage(IMAGES.order).repository;
  return {
    value: `${order.invoked.join(' → ')}, pull success`,
    model: `version table (kubelet ${kubeletVersion}: providerOrder ${behaviour.providerOrder}) and matching oracle`,
    because: `both providers match ${repository}; a ${kubeletVersion} kubelet runs them in ${behaviour.providerOrder} order`,
  };
}

/** The repositories of the protocol images, each with the provider apiVersion the fake is configured with. */
export const PROTOCOL_REPOSITORIES = [normalizeImage(IMAGES.v1).repository, normalizeImage(IMAGES.v1beta1).repository];

/** Per protocol image: the provider that answers it and the request version it is sent. */
export function predictProtocol(
  config: CredentialProviderConfig,
  kubeletVersion: string,
): Prediction<Record<string, string>> {
  const value = Object.fromEntries(
    PROTOCOL_REPOSITORIES.map((repository) => {
      const invoked = providersForImage(config, repository, kubeletVersion).invoked;
      const entry = config.providers.find((p) => p.name === invoked[0]);
      return [repository, `${invoked.join(',')}: ${entry?.apiVersion} request, pull success`];
    }),
  );
  return {
    value,
    model: "KEP-2133 and the provider entries' apiVersion",
    because: "each request is encoded at its provider entry's apiVersion, and the fake answers in the same version",
  };
}

/** Whether a `kubeletVersion` kubelet with these gates starts with `config`: the validator of that version decides. */
export function predictStart(
  config: CredentialProviderConfig,
  kubeletVersion: string,
  gates: Record<string, boolean>,
): { prediction: Prediction<StartOutcome>; problems: FieldProblem[] } {
  const problems = validateProviderConfig(config, { kubeVersion: kubeletVersion, featureGates: gates });
  return {
    problems,
    prediction: {
      value: problems.length > 0 ? 'refuses to start' : 'starts',
      model: `config validator (validate-config --kube-version ${kubeletVersion})`,
      because: problems.length
        ? problems.map((p) => `${p.field}: ${p.message}`).join('; ')
        : 'no rule of that version is broken',
    },
  };
}
