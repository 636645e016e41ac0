// The version-skew suite's checks, one set per kubelet minor the version
// table models. Ids carry the minor: SKEW-1.35-ORDER. Under a given API server
// only its own minor and up to three older apply; the others are skipped as
// not applicable, so a qualify matrix lines the same ids up across versions.
import type { Check } from '../../src/run/kit.ts';
import { SUPPORTED_MINORS } from '../../src/versions/table.ts';

/** Every kubelet minor the version table models, newest first. */
export const SKEW_MINORS = [...SUPPORTED_MINORS].sort((a, b) => b - a);

export function skewChecks(minor: number): { order: Check; protocol: Check; gateOff: Check; noCacheType: Check } {
  const v = `1.${minor}`;
  return {
    order: {
      id: `SKEW-${v}-ORDER`,
      title: `A ${v} kubelet under the API server execs every matching provider in the order its version table row says, and pulls`,
      level: 'MUST',
      source: 'Kubernetes version skew policy; KEP-2133; k/k PR #129669 (config order from 1.33)',
    },
    protocol: {
      id: `SKEW-${v}-PROTOCOL`,
      title: `A ${v} kubelet sends each provider its configured protocol version (credentialprovider v1 and v1beta1) and accepts the answer`,
      level: 'MUST',
      source: "KEP-2133: the request is encoded at the provider entry's apiVersion; the response must use the same",
    },
    gateOff: {
      id: `SKEW-${v}-TOKEN-ATTRIBUTES-GATE-OFF`,
      title: `A ${v} kubelet with KubeletServiceAccountTokenForCredentialProviders=false refuses a config with tokenAttributes, as validate-config --kube-version ${v} predicts`,
      level: 'MUST',
      source:
        'KEP-4412 version skew and rollback: tokenAttributes with the gate off is Forbidden and the kubelet does not start',
    },
    noCacheType: {
      id: `SKEW-${v}-TOKEN-ATTRIBUTES-NO-CACHETYPE`,
      title: `A ${v} kubelet's verdict on tokenAttributes without cacheType (required from 1.34) matches validate-config --kube-version ${v}`,
      level: 'MUST',
      source: 'KEP-4412: tokenAttributes.cacheType added in 1.34 and required there; version table cacheTypeRequired',
    },
  };
}

export const VERSION_SKEW_CHECKS: Check[] = SKEW_MINORS.flatMap((m) => Object.values(skewChecks(m)));
