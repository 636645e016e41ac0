// What the downgrade suite sets up, as data: one fake provider for
// *.down.test, the images each case pulls (records and the cache get their
// own, so earlier cases leave no record for them), the fake's scenarios, and
// the steps of the apiVersion and KEP-2535 gate cases.
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import { answer, type ScenarioFile } from '../../src/run/kit.ts';

export const V1 = 'credentialprovider.kubelet.k8s.io/v1';
export const V1BETA1 = 'credentialprovider.kubelet.k8s.io/v1beta1';
export const PROVIDER = 'down-fake';
export const MATCH_IMAGES = ['*.down.test'];
export const IMAGE = 'app.down.test/app:v1';
export const OTHER = 'other.down.test/app:v1';
export const RECORDED = 'records.down.test/app:v1';
export const RECORDED_MINOR = 'records-minor.down.test/app:v1';
export const VIA_PLUGIN = 'cache.down.test/app:v1';
export const ALL_IMAGES = [IMAGE, OTHER, RECORDED, RECORDED_MINOR, VIA_PLUGIN];

export const ENSURE_GATE = 'KubeletEnsureSecretPulledImages';
export const PULL_SECRET = 'down-pull-secret';

export interface Credentials {
  username: string;
  password: string;
}

/** The fake answers the lab's credentials; `apiVersion` pins its response version (default: the request's). */
export function scenario(credentials: Credentials, apiVersion?: string): ScenarioFile {
  // Only the two fields: the fake validates its scenario strictly, and a User carries more.
  const auth = { '{registry}': { username: credentials.username, password: credentials.password } };
  const s = answer([normalizeImage(IMAGE).repository, normalizeImage(OTHER).repository], auth, { cacheDuration: '0s' });
  if (apiVersion) s.rules[0]!.apiVersion = apiVersion;
  // The cache image: a Registry entry for 5 minutes, so a warm cache is there to lose on a kubelet restart.
  s.rules.push(
    ...answer([normalizeImage(VIA_PLUGIN).repository], auth, { cacheKeyType: 'Registry', cacheDuration: '5m' }).rules,
  );
  return s;
}

/** The cache image's answer as the credential cache model reads it (scenario's second rule). */
export const VIA_PLUGIN_ANSWER = { cacheKeyType: 'Registry', cacheDurationMs: 300_000 };

/** The SA-token gate case's config: every provider with tokenAttributes, as a user who rolled KEP-4412 out had it. */
export function withTokenAttributes(config: CredentialProviderConfig): CredentialProviderConfig {
  const tokenAttributes = {
    serviceAccountTokenAudience: 'credprov-down',
    cacheType: 'ServiceAccount',
    requireServiceAccount: false,
  };
  return { ...config, providers: config.providers.map((p) => ({ ...p, tokenAttributes })) } as CredentialProviderConfig;
}

/** A step of the apiVersion case: the provider entry's apiVersion, and what the plugin answers with (undefined: the request's version). */
export interface ApiVersionStep {
  config: string;
  answers?: string;
}

export const API_VERSION_STEPS: ApiVersionStep[] = [
  { config: V1 },
  { config: V1BETA1 },
  { config: V1BETA1, answers: V1 },
  { config: V1, answers: V1 },
];

export const stepLabel = (s: ApiVersionStep) =>
  `config ${s.config.split('/')[1]}, plugin answers ${(s.answers ?? s.config).split('/')[1]}`;

/** The gate case's steps: whether KEP-2535's gate is on, and whether the pod carries the pull secret. */
export const GATE_TOGGLE_STEPS = [
  { label: 'gate on, pod with the secret', gate: true, withSecret: true },
  { label: 'gate off, pod without credentials', gate: false, withSecret: false },
  { label: 'gate on again, pod without credentials', gate: true, withSecret: false },
];
