// The downgrade suite's checks: the rollback paths KEP-2133, KEP-4412 and
// KEP-2535 promise, each as what a user sees (the kubelet's error, pod
// states, credentials used) next to credprov's prediction.
import type { Check } from '../../src/run/kit.ts';

export const SA_GATE_OFF_REFUSED: Check = {
  id: 'DOWN-SA-GATE-OFF-REFUSED',
  title:
    'With KubeletServiceAccountTokenForCredentialProviders turned off, a config with tokenAttributes is refused at kubelet start',
  level: 'MUST',
  source:
    'KEP-4412 rollout/rollback: tokenAttributes with the feature gate disabled fails validation and the kubelet does not start',
};
export const SA_GATE_OFF_FIX: Check = {
  id: 'DOWN-SA-GATE-OFF-FIX',
  title:
    'The documented fix (drop tokenAttributes) lets the kubelet start with the gate still off, and the provider serves pulls again without a token',
  level: 'MUST',
  source: 'KEP-4412 rollback: "remove the tokenAttributes field from the credential provider config"',
};
export const PODS_KEEP_RUNNING: Check = {
  id: 'DOWN-PODS-KEEP-RUNNING',
  title: 'A pod running before the refused start and the fix keeps running: same container, no restart',
  level: 'MUST',
  source:
    'KEP-4412 rollback: disabling the feature does not affect running workloads (containers outlive a kubelet restart)',
};
export const NO_PROVIDER_FALLBACK: Check = {
  id: 'DOWN-NO-PROVIDER-CONFIG-FALLBACK',
  title:
    "With the credential provider config removed, the kubelet falls back to the node's other credentials (a docker config.json in its root dir)",
  level: 'MUST',
  source:
    'KEP-2133 downgrade: without --image-credential-provider-config the kubelet uses the node keyring; pkg/credentialprovider/config.go search paths',
};
export const RESPONSE_APIVERSION: Check = {
  id: 'DOWN-RESPONSE-APIVERSION',
  title:
    'Switching a provider between v1 and v1beta1: a plugin answering in the configured version works; one answering in the other version is refused and its credentials are not used',
  level: 'MUST',
  source: 'KEP-2133: "apiVersion from credential plugin response did not match expected apiVersion"',
};

export const DOWNGRADE_CHECKS = [
  SA_GATE_OFF_REFUSED,
  SA_GATE_OFF_FIX,
  PODS_KEEP_RUNNING,
  NO_PROVIDER_FALLBACK,
  RESPONSE_APIVERSION,
];

export const ENSURE_GATE_TOGGLE: Check = {
  id: 'DOWN-ENSURE-SECRET-GATE-TOGGLE',
  title:
    'KubeletEnsureSecretPulledImages off and on again: pull records on disk are ignored while off and honoured again afterwards',
  level: 'MUST',
  source:
    'KEP-2535 rollback: with the gate disabled the kubelet does not verify credentials for present images; re-enabled, the records it kept are used again',
};
export const KUBELET_ONE_MINOR: Check = {
  id: 'DOWN-KUBELET-ONE-MINOR',
  title:
    'Downgrading the kubelet one minor with pull records and a warm credential cache: the older kubelet honours the records, and its credential cache starts empty',
  level: 'MUST',
  source:
    'Kubernetes version skew policy; KEP-2535 (records on disk, versioned); KEP-2133 (the credential cache is in memory)',
};

DOWNGRADE_CHECKS.push(ENSURE_GATE_TOGGLE, KUBELET_ONE_MINOR);
