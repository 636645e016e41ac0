// The pull-secrets suite's checks: how the kubelet and the API server treat
// a pod's imagePullSecrets (late, placeholder, immutable, service-account
// ones) and how pull secrets combine with a credential provider. The
// requirements come from the design "Packaging APIs + Registry Auth"
// (shared/seeds/004, section "How does this integrate with container images"),
// KEP-2133 and the kubelet's keyring (pkg/credentialprovider).
import type { Check } from '../../src/run/kit.ts';

const DESIGN = 'design: Packaging APIs + Registry Auth (shared/seeds/004)';

export const MISSING_THEN_CREATED: Check = {
  id: 'SECRETS-MISSING-SECRET-CREATED-LATER',
  title:
    'A pod whose imagePullSecret does not exist yet fails its pull, then starts once the secret is created (the kubelet retries with backoff)',
  level: 'MUST',
  source:
    `${DESIGN}: "you can create a Pod with an image pull secret that does not exist and create the pull secret a ` +
    `tiny bit later -- Pod seems to start successfully"`,
};

export const PLACEHOLDER_FILLED: Check = {
  id: 'SECRETS-PLACEHOLDER-FILLED-LATER',
  title: 'A pod failing with an empty {"auths":{}} pull secret recovers when the secret is filled in',
  level: 'MUST',
  source:
    `${DESIGN}: "Pods also seem to react correctly when image is failing to be pulled and pull secret is modified ` +
    `to have correct auth info (original value could be empty pull secret aka "{}")"`,
};

export const IMMUTABLE: Check = {
  id: 'SECRETS-IMAGEPULLSECRETS-IMMUTABLE',
  title: "The API server refuses an update of a pod's imagePullSecrets; the pod keeps the ones it was created with",
  level: 'MUST',
  source: `${DESIGN}: "(verified) imagePullSecrets field on Pod is immutable"`,
};

export const EXPLICIT_NOT_MERGED: Check = {
  id: 'SECRETS-EXPLICIT-NOT-MERGED-WITH-SA',
  title:
    "A pod with explicit (wrong) imagePullSecrets does not get its service account's (right) pull secrets: the pull fails",
  level: 'MUST',
  source: `${DESIGN}: "(verified) if Pod specifies imagePullSecrets then service account pull secrets will not be "added" to the Pod"`,
};

export const SA_LATE_NOT_ADOPTED: Check = {
  id: 'SECRETS-SA-SECRET-ADDED-LATER-NOT-ADOPTED',
  title:
    "A pull secret added to the service account after the pod exists is not adopted: the pod's imagePullSecrets " +
    'stay empty and the pull keeps failing after a kubelet retry',
  level: 'MUST',
  source:
    `${DESIGN}: "Even though service accounts can be modified to add an image pull secret, Pods will not adopt the ` +
    `added image pull secret after Pod is created"`,
};

export const EVERY_SECRET_TRIED: Check = {
  id: 'SECRETS-EVERY-SECRET-TRIED',
  title: 'Every pull secret of a pod is tried, in order, even for the same registry: [wrong, right] pulls',
  level: 'MUST',
  source:
    `${DESIGN}: "(verified) Kubernetes will try all image pull secrets associated with a Pod even if they contain ` +
    `credentials against the same registry"; kubelet kuberuntime_image.go PullImage tries each credential until ` +
    `one works`,
};

export const SECRET_AND_PROVIDER: Check = {
  id: 'SECRETS-SECRET-AND-PROVIDER',
  title:
    "Pull secrets and a credential provider for the same image: every credential is tried, the pod's secrets " +
    'first (wrong secret + right provider pulls; right secret + wrong provider pulls without trying the ' +
    "provider's)",
  level: 'SHOULD',
  source:
    'KEP-2133: provider credentials are added to the keyring alongside pull secrets; kubelet secrets.go ' +
    "MakeDockerKeyring unions the pod's secrets before the node and plugin keyrings, and PullImage tries each " +
    'credential until one works',
};

export const PULL_SECRETS_CHECKS = [
  MISSING_THEN_CREATED,
  PLACEHOLDER_FILLED,
  IMMUTABLE,
  EXPLICIT_NOT_MERGED,
  SA_LATE_NOT_ADOPTED,
  EVERY_SECRET_TRIED,
  SECRET_AND_PROVIDER,
];
