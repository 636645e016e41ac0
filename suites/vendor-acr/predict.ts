// credprov's predictions for the vendor-acr cases, before their pods run: the
// matching oracle (src/matching) for which provider is exec'd, the plugin's
// answer from its source (predictAcrAnswer, src/plugin/vendors/acr.ts), the
// pull-credentials model (src/model/pull-credentials.ts) for what the kubelet
// hands containerd and in what order, the cache model for what it keeps, and
// the service-account model for KEP-4412 mode. Pure: plan data comes in as arguments.
import type { CredentialProvider, CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { providersForImage } from '../../src/matching/providers.ts';
import { CredentialCacheModel } from '../../src/model/credential-cache.ts';
import { predictPull, type Credential, type PullPrediction } from '../../src/model/pull-credentials.ts';
import type { PullPrediction as SaPullPrediction } from '../../src/model/service-account-token.ts';
import { MODELS, type PlannedImage } from './plan.ts';
import {
  ACR_RESOURCE,
  goDurationMs,
  predictAcrAnswer,
  type AcrAnswer,
  type AzureJson,
  type Prediction,
} from '../../src/run/kit.ts';

/** An answer as the report shows it: auth key → "username / what the password is". */
export interface AnswerView {
  cacheKeyType: string;
  cacheDuration: string;
  auth: Record<string, string>;
}

export const entryShown = (username: string, password: string): string => `${username || '""'} / ${password}`;

export function answerView(a: AcrAnswer): AnswerView {
  return {
    cacheKeyType: a.cacheKeyType,
    cacheDuration: a.cacheDuration,
    auth: Object.fromEntries(Object.entries(a.auth).map(([k, v]) => [k, entryShown(v.username, v.password)])),
  };
}

/** The pull model's providers for an image, each answering what the plugin's source says; `accepts` says which credential the registry takes. */
function pullOf(
  config: CredentialProviderConfig,
  img: PlannedImage,
  json: Record<string, AzureJson>,
  accepts: (username: string, password: string) => boolean,
): PullPrediction {
  const providers = config.providers.map((p) => {
    const a = predictAcrAnswer(img.request, json[p.name]!);
    const auths: Record<string, Credential> = Object.fromEntries(
      Object.entries(a.auth).map(([k, v]) => [k, { username: v.username, works: accepts(v.username, v.password) }]),
    );
    return { name: p.name, matchImages: p.matchImages, auths };
  });
  return predictPull({ image: img.ref, secrets: [], providers });
}

export interface PullView {
  invoked: string[];
  answer: AnswerView;
  azure: string[];
  pull: string;
}

const pullShown = (p: PullPrediction) => (p.pull === 'success' ? 'pull success' : 'pull failure (unauthorized)');

/**
 * An ACR image: the oracle's provider runs, answers by its source, and the kubelet offers the answer's
 * matching entries in keyring order until the registry takes one (`accepts`).
 */
export function predictAcrPull(
  config: CredentialProviderConfig,
  img: PlannedImage,
  json: Record<string, AzureJson>,
  accepts: (username: string, password: string) => boolean,
): Prediction<PullView> {
  const oracle = providersForImage(config, img.ref);
  const name = oracle.invoked[0]!;
  const answer = predictAcrAnswer(img.request, json[name]!);
  const pull = pullOf(config, img, json, accepts);
  return {
    value: {
      invoked: oracle.invoked,
      answer: answerView(answer),
      azure: answer.calls,
      pull: pullShown(pull),
    },
    model: `${MODELS.oracle} + ${MODELS.plugin} + ${MODELS.pull}`,
    because: `${oracle.invoked.join(', ')} matches ${img.ref}; ${answer.because}; ${pull.because}`,
  };
}

export interface OfferedView {
  /** The credentials the kubelet offered, in order: a user name, or "(none: anonymous)" for an empty one. */
  offered: string[];
  pull: string;
}

export const offeredShown = (username: string): string => username || '(none: anonymous)';

/**
 * An ACR image whose registry refuses every credential: the kubelet offers each matching entry of the
 * answer in keyring order (reverse-sorted keys, so "*.azurecr.cn" before "*.azurecr.*"), the empty one last.
 */
export function predictOffered(
  config: CredentialProviderConfig,
  img: PlannedImage,
  json: Record<string, AzureJson>,
): Prediction<OfferedView> {
  const pull = pullOf(config, img, json, () => false);
  return {
    value: { offered: pull.attempts.map((a) => offeredShown(a.username)), pull: pullShown(pull) },
    model: `${MODELS.pull} + ${MODELS.plugin}`,
    because: pull.because,
  };
}

export interface NonAcrRow {
  pull: string;
  execs: number;
  answer: string;
  result: string;
}

export const answerLine = (v: AnswerView): string =>
  `${v.cacheKeyType} ${v.cacheDuration} ${Object.keys(v.auth).length === 0 ? 'no auth' : Object.keys(v.auth).join(',')}`;

/** Two pulls of a public non-ACR image the provider matches: the 0s answer is not cached, so both exec; no auth means an anonymous pull, which a public registry serves. */
export function predictNonAcr(
  provider: CredentialProvider,
  img: PlannedImage,
  json: AzureJson,
): Prediction<NonAcrRow[]> {
  const answer = predictAcrAnswer(img.request, json);
  const model = new CredentialCacheModel(goDurationMs(provider.defaultCacheDuration));
  const plugin = { cacheKeyType: answer.cacheKeyType, cacheDurationMs: goDurationMs(answer.cacheDuration) };
  const first = model.pull(img.request, 0, plugin);
  const second = model.pull(img.request, 30_000, plugin);
  const pull = predictPull({
    image: img.ref,
    secrets: [],
    providers: [{ name: provider.name, matchImages: provider.matchImages, auths: {} }],
    publicImage: true,
  });
  const row = (label: string, d: { invoked: boolean }) => ({
    pull: label,
    execs: d.invoked ? 1 : 0,
    answer: d.invoked ? answerLine(answerView(answer)) : 'cached',
    result: pullShown(pull),
  });
  return {
    value: [row('first pull', first), row('second pull', second)],
    model: `${MODELS.plugin} + ${MODELS.cache} + ${MODELS.pull}`,
    because: `${answer.because}; first: ${first.reason}; second: ${second.reason}; ${pull.because}`,
  };
}

export interface CacheRow {
  pull: string;
  execs: number;
  result: string;
}

/** A second repository on the same login server after an ACR answer (Registry, 1h): served from the kubelet's cache. */
export function predictRegistryCache(
  provider: CredentialProvider,
  images: [PlannedImage, PlannedImage],
  json: AzureJson,
): Prediction<CacheRow[]> {
  const answer = predictAcrAnswer(images[0].request, json);
  const model = new CredentialCacheModel(goDurationMs(provider.defaultCacheDuration));
  const plugin = { cacheKeyType: answer.cacheKeyType, cacheDurationMs: goDurationMs(answer.cacheDuration) };
  const d = images.map((img, i) => model.pull(img.request, i * 60_000, plugin));
  return {
    value: images.map((img, i) => ({ pull: img.request, execs: d[i]!.invoked ? 1 : 0, result: 'pull success' })),
    model: `${MODELS.cache} + ${MODELS.plugin}`,
    because: `the plugin answers ${answer.cacheKeyType} ${answer.cacheDuration}: ${d.map((x) => x.reason).join('; then ')}`,
  };
}

export interface SaView {
  invoked: boolean;
  tokenAud: string[];
  annotations: Record<string, string>;
  answer: AnswerView;
  azure: string[];
  pull: string;
}

/**
 * KEP-4412 mode: the kubelet sends a token (service-account model). Without useManagedIdentityExtension the
 * plugin builds a client assertion credential from it but never uses it (azure_credentials.go:106, 218 vs 233):
 * it answers the static service principal and calls nothing. With it, the assertion goes to Azure AD for the
 * annotated tenant and the Azure AD token to the login server's exchange.
 */
export function predictSaPull(
  sa: SaPullPrediction,
  img: PlannedImage,
  json: AzureJson,
  o: { audience: string; tenantId: string },
): Prediction<SaView> {
  const answer = predictAcrAnswer(img.request, json, sa.tokenPresent ? { tenantId: o.tenantId } : undefined);
  const use = json.useManagedIdentityExtension
    ? `with useManagedIdentityExtension GetCredentials asks it for a ${ACR_RESOURCE} token`
    : `but without useManagedIdentityExtension GetCredentials never asks it for a ${ACR_RESOURCE} token`;
  return {
    value: {
      invoked: sa.invoked,
      tokenAud: sa.tokenPresent ? [o.audience] : [],
      annotations: sa.annotations ?? {},
      answer: answerView(answer),
      azure: answer.calls,
      pull: `pull ${sa.pull}`,
    },
    model: `${MODELS.sa} + ${MODELS.plugin}`,
    because: `${sa.because}; with a token and the annotations the plugin builds a client assertion credential, ${use}: ${answer.because}`,
  };
}
