// credprov's predictions for the downgrade paths, from its own code: the
// config validator (validate-config), the response decoder certify uses, the
// pull credentials model, the ensure-secret-pulled model and the credential
// cache model. Pure (no cluster, no clock): the cases pass in what they read
// at run time (the kubelet version, the pull secret's uid), and
// predict.test.ts pins the values.
import { SA_TOKEN_GATE, validateProviderConfig } from '../../src/api/credentialprovider/config.ts';
import { decodeResponse } from '../../src/api/credentialprovider/response.ts';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import { CredentialCacheModel } from '../../src/model/credential-cache.ts';
import { ensureImageExists, type NodeImage, type PodCredentials } from '../../src/model/ensure-secret-pulled.ts';
import { predictPull } from '../../src/model/pull-credentials.ts';
import type { Prediction } from '../../src/run/kit.ts';
import {
  API_VERSION_STEPS,
  GATE_TOGGLE_STEPS,
  IMAGE,
  MATCH_IMAGES,
  OTHER,
  PROVIDER,
  stepLabel,
  VIA_PLUGIN_ANSWER,
  withTokenAttributes,
  type Credentials,
} from './plan.ts';

export type StartOutcome = 'starts' | 'refuses to start';
export const GATE_OFF = { [SA_TOKEN_GATE]: false };

/** A `kubeletVersion` kubelet with the SA-token gate off, given the suite's config plus tokenAttributes. */
export function predictGateOffRefused(
  config: CredentialProviderConfig,
  kubeletVersion: string,
): Prediction<StartOutcome> {
  const problems = validateProviderConfig(withTokenAttributes(config), {
    kubeVersion: kubeletVersion,
    featureGates: GATE_OFF,
  });
  return {
    value: problems.length ? 'refuses to start' : 'starts',
    model: `config validator (validate-config --kube-version ${kubeletVersion} --feature-gates ${SA_TOKEN_GATE}=false)`,
    because: problems.map((p) => `${p.field}: ${p.message}`).join('; ') || 'no rule broken',
  };
}

/** The documented fix: the suite's config without tokenAttributes, the gate still off. */
export function predictGateOffFix(config: CredentialProviderConfig, kubeletVersion: string): Prediction<string> {
  const problems = validateProviderConfig(config, { kubeVersion: kubeletVersion, featureGates: GATE_OFF });
  return {
    value: `${problems.length ? 'refuses to start' : 'starts'}; pull success without a token`,
    model: `config validator (${kubeletVersion}, gate off) and KEP-4412`,
    because: problems.length
      ? problems.map((p) => p.message).join('; ')
      : "without tokenAttributes the config is valid with the gate off, and the provider is exec'd without a token",
  };
}

export interface ContainerView {
  running: boolean;
  sameContainer: boolean;
  restartCount: number;
}

/** The pod that ran before the refused start and the fix, given its restart count then. */
export function predictPodKeepsRunning(restartCountBefore: number): Prediction<ContainerView> {
  return {
    value: { running: true, sameContainer: true, restartCount: restartCountBefore },
    model: 'KEP-4412 rollback',
    because: 'a refused kubelet start and a restart do not touch running containers',
  };
}

export interface FallbackView {
  image: string;
  before: string;
  after: string;
}

/**
 * IMAGE and OTHER, with the provider and after its config is removed, when the node's config.json holds
 * working credentials for IMAGE's registry only.
 */
export function predictFallback(username: string): Prediction<FallbackView[]> {
  const host = normalizeImage(IMAGE).registry;
  const works = { username, works: true };
  const provider = {
    name: PROVIDER,
    matchImages: MATCH_IMAGES,
    auths: { [host]: works, [normalizeImage(OTHER).registry]: works },
  };
  const node = { [host]: works };
  const predicted = [IMAGE, OTHER].map((image) => {
    const withProvider = predictPull({ image, secrets: [], providers: [provider], node });
    const without = predictPull({ image, secrets: [], node });
    return { image, withProvider, without };
  });
  const said = (p: { pull: string; usedBy?: string }) => `${p.pull} (${p.usedBy ?? 'no credential'})`;
  return {
    value: predicted.map((p) => ({ image: p.image, before: p.withProvider.pull, after: p.without.pull })),
    model: 'pull credentials model (src/model/pull-credentials.ts: pod secrets, node config.json, providers)',
    because: predicted
      .map((p) => `${p.image}: with the provider ${said(p.withProvider)}, without it ${said(p.without)}`)
      .join('; '),
  };
}

/**
 * Each apiVersion step: would the kubelet accept the plugin's stdout for that provider entry? The decoder
 * credprov certifies plugins with decides; `decoderErrors` says why it refused, per step label.
 */
export function predictApiVersionSteps(): { prediction: Prediction<string[]>; decoderErrors: Record<string, string> } {
  const decoderErrors: Record<string, string> = {};
  const value = API_VERSION_STEPS.map((s) => {
    const stdout = JSON.stringify({
      apiVersion: s.answers ?? s.config,
      kind: 'CredentialProviderResponse',
      cacheKeyType: 'Image',
      cacheDuration: '0s',
      auth: { [normalizeImage(IMAGE).registry]: { username: 'u', password: 'p' } },
    });
    const decoded = decodeResponse(stdout, s.config);
    if (!decoded.ok) decoderErrors[stepLabel(s)] = decoded.error;
    return `${stepLabel(s)}: ${decoded.ok ? 'pull success' : 'pull failure (response refused)'}`;
  });
  return {
    decoderErrors,
    prediction: {
      value,
      model: "credprov's response decoder (src/api/credentialprovider/response.ts, the one certify uses)",
      because:
        "a response in another apiVersion than the provider entry's is refused, so its credentials never reach the pull",
    },
  };
}

/** A pod's pull secret for `image`'s registry, as the ensure-secret-pulled model reads it. */
export function podWithSecret(
  image: string,
  secret: { name: string; uid: string },
  credentials: Credentials,
): PodCredentials {
  const auths = { [normalizeImage(image).registry]: { ...credentials, works: true } };
  return { namespace: 'default', secrets: [{ name: secret.name, uid: secret.uid, auths }] };
}

const NO_CREDENTIALS: PodCredentials = { namespace: 'default', secrets: [] };
const absent = (image: string): NodeImage => ({ present: false, imageRef: `image-of-${image}` });

/**
 * The whole gate on/off/on chain, before the first pod: each step starts from the node the previous one
 * left. `degenerate` when every step predicts the same outcome (credentials that never cover the image):
 * such a chain tests nothing.
 */
export function predictGateToggle(
  image: string,
  withSecret: PodCredentials,
): { prediction: Prediction<string[]>; degenerate?: string } {
  let node = absent(image);
  const steps = GATE_TOGGLE_STEPS.map((s) => {
    const p = ensureImageExists({
      image,
      pullPolicy: 'IfNotPresent',
      gateEnabled: s.gate,
      node,
      pod: s.withSecret ? withSecret : NO_CREDENTIALS,
    });
    node = p.node;
    return { step: s.label, outcome: p.outcome, because: p.because };
  });
  const degenerate =
    new Set(steps.map((p) => p.outcome)).size < 2
      ? `every step predicts ${steps[0]!.outcome} (${steps[0]!.because})`
      : undefined;
  return {
    ...(degenerate ? { degenerate } : {}),
    prediction: {
      value: steps.map((p) => `${p.step}: ${p.outcome}`),
      model: 'ensure-secret-pulled model (src/model/ensure-secret-pulled.ts)',
      because: steps.map((p) => `${p.step}: ${p.because}`).join(' | '),
    },
  };
}

export interface OneMinorView {
  beforeDowngrade: string;
  afterDowngrade: string;
}

/**
 * Records and a warm Registry cache entry on the newest kubelet, then one minor down: the record chain
 * through the downgrade, and the cache of a kubelet that just started (nothing in memory).
 */
export function predictOneMinor(
  recorded: string,
  viaPlugin: string,
  withSecret: PodCredentials,
): Prediction<OneMinorView> {
  const first = ensureImageExists({
    image: recorded,
    pullPolicy: 'IfNotPresent',
    node: absent(recorded),
    pod: withSecret,
  });
  const after = ensureImageExists({
    image: recorded,
    pullPolicy: 'IfNotPresent',
    node: first.node,
    pod: NO_CREDENTIALS,
  });
  const repository = normalizeImage(viaPlugin).repository;
  const newestCache = new CredentialCacheModel(0);
  const warm = [
    newestCache.pull(repository, 0, VIA_PLUGIN_ANSWER),
    newestCache.pull(repository, 1000, VIA_PLUGIN_ANSWER),
  ];
  const cold = new CredentialCacheModel(0).pull(repository, 2000, VIA_PLUGIN_ANSWER);
  return {
    value: {
      beforeDowngrade: `plugin execs ${warm.filter((d) => d.invoked).length} for 2 pulls; record pull ${first.outcome}`,
      afterDowngrade: `plugin execs ${cold.invoked ? 1 : 0} for 1 pull; pod without credentials ${after.outcome}`,
    },
    model: 'ensure-secret-pulled model and credential cache model',
    because: `${after.because}; ${cold.reason}`,
  };
}
