// credprov's predictions for the vendor-ecr cases, before their pods run:
// the matching oracle (src/matching) for which provider is exec'd, the cache
// model (src/model/credential-cache.ts) fed with the plugin's own recorded
// answer, the service-account model (src/model/service-account-token.ts) for
// SA mode, and the plugin's code (cited) for what it asks AWS. Pure: plan data,
// recorded answers and times come in as arguments.
import type { CredentialProvider, CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { normalizeImage } from '../../src/matching/image.ts';
import { providersForImage } from '../../src/matching/providers.ts';
import { CredentialCacheModel } from '../../src/model/credential-cache.ts';
import { AFTER_EXPIRY_MS, MODELS, NODE_USER, REFRESH_LIFETIME_MS, type PlannedImage } from './plan.ts';
import { ecrRegionOf, goDurationMs, type Prediction } from '../../src/run/kit.ts';

export interface PullView {
  invoked: string[];
  ecr: string[];
  pull: string;
}

/** An image on a matched ECR host: the oracle's provider runs and gets a token for the host's region with its static keys. */
export function predictPull(config: CredentialProviderConfig, img: PlannedImage): Prediction<PullView> {
  const oracle = providersForImage(config, img.ref);
  const region = ecrRegionOf(img.request.split('/')[0]!);
  const matched = oracle.providers
    .filter((p) => p.invoked)
    .map((p) => `${p.name} matches ${p.patterns.find((x) => x.result.match)?.pattern}`);
  return {
    value: { invoked: oracle.invoked, ecr: [`ECR ${region} by ${NODE_USER} → 200`], pull: 'pull success' },
    model: `${MODELS.oracle} + ${MODELS.plugin}`,
    because: `${matched.join('; ')}; the plugin takes region ${region} from the host and signs GetAuthorizationToken with the static keys of its env`,
  };
}

export interface UnmatchedView {
  invoked: string[];
  awsRequests: number;
  pull: string;
}

/** An image no provider matches: nothing runs, and the registry refuses the anonymous pull. */
export function predictUnmatched(config: CredentialProviderConfig, img: PlannedImage): Prediction<UnmatchedView> {
  const oracle = providersForImage(config, img.ref);
  const perProvider = oracle.providers.map((p) => {
    const patterns = p.patterns.map((x) => `${x.pattern} ${x.result.match ? 'matches' : `no (${x.result.reason})`}`);
    return `${p.name}: ${patterns.join(', ')}`;
  });
  return {
    value: { invoked: oracle.invoked, awsRequests: 0, pull: 'pull failure (unauthorized)' },
    model: MODELS.oracle,
    because:
      `${normalizeImage(img.ref).repository}: ${perProvider.join('; ')}; ` +
      'so no plugin runs, no AWS call, and the registry refuses the anonymous pull',
  };
}

export interface AnswerView {
  cacheKeyType: string;
  /** Predicted: the range [earliest, latest]; observed: the one value. */
  cacheDurationS: number[];
}

/**
 * getCacheDuration: (expiresAt.Unix() - now.Unix()) / 2 seconds, "now" somewhere inside the exec,
 * so any value between the halves at the exec's end and at its start.
 */
export function predictAnswer(
  token: { expiresAt: string; lifetimeS: number },
  exec: { startMs: number; endMs: number },
): Prediction<AnswerView> {
  const expires = Date.parse(token.expiresAt);
  const half = (at: number) => Math.trunc((Math.floor(expires / 1000) - Math.floor(at / 1000)) / 2);
  const range = [half(exec.endMs), half(exec.startMs)];
  const during = `an exec from ${new Date(exec.startMs).toISOString()} to ${new Date(exec.endMs).toISOString()}`;
  return {
    value: { cacheKeyType: 'Registry', cacheDurationS: range },
    model: MODELS.plugin,
    because:
      `the fake ECR's token expires at ${token.expiresAt} (${token.lifetimeS}s); ` +
      `the plugin answers Registry and half the remaining whole seconds, between ${range[0]}s and ${range[1]}s for ${during}`,
  };
}

export const answerAgrees = (p: AnswerView, o: AnswerView): boolean =>
  o.cacheKeyType === p.cacheKeyType &&
  o.cacheDurationS[0]! >= p.cacheDurationS[0]! &&
  o.cacheDurationS[0]! <= p.cacheDurationS[1]!;

/** The plugin's answer as the kubelet reads it. */
export interface RecordedAnswer {
  cacheKeyType: string;
  cacheDurationMs?: number;
  /** As the plugin wrote it (Go duration). */
  cacheDuration?: string;
}

export interface CacheRow {
  pull: string;
  execs: number;
  result: string;
}

export const CACHE_LABELS = (first: PlannedImage, sameRegistry: PlannedImage, otherRegistry: PlannedImage) => ({
  first: `first pull ${first.request}`,
  sameRegistry: `another repository on that registry (${sameRegistry.request})`,
  otherRegistry: `another account's registry (${otherRegistry.request})`,
});

/** Three pulls under the plugin's own answer: the first execs, another repository of that registry hits, another registry execs. */
export function predictCache(
  provider: CredentialProvider,
  answer: RecordedAnswer,
  images: [PlannedImage, PlannedImage, PlannedImage],
): Prediction<CacheRow[]> {
  const [first, sameRegistry, otherRegistry] = images;
  const model = new CredentialCacheModel(goDurationMs(provider.defaultCacheDuration));
  const plugin = {
    cacheKeyType: answer.cacheKeyType,
    ...(answer.cacheDurationMs !== undefined ? { cacheDurationMs: answer.cacheDurationMs } : {}),
  };
  const d0 = model.pull(first.request, 0, plugin);
  // The next pulls come within a minute; the entry lives for hours.
  const d1 = model.pull(sameRegistry.request, 60_000, plugin);
  const d2 = model.pull(otherRegistry.request, 120_000, plugin);
  const label = CACHE_LABELS(first, sameRegistry, otherRegistry);
  return {
    value: [
      { pull: label.first, execs: 1, result: 'pull success' },
      { pull: label.sameRegistry, execs: d1.invoked ? 1 : 0, result: 'pull success' },
      { pull: label.otherRegistry, execs: d2.invoked ? 1 : 0, result: 'pull success' },
    ],
    model: MODELS.cache,
    because:
      `with the plugin's own answer (cacheKeyType ${answer.cacheKeyType}, cacheDuration ${answer.cacheDuration ?? 'absent'}): ` +
      `first: ${d0.reason}; then: ${d1.reason}; then: ${d2.reason}`,
  };
}

export interface RefreshView {
  execs: number[];
  ecrTokens: number;
  pulls: string[];
}

/** Plugin execs (0/1) of pulls at `atMs` (ms after the first exec answered), by the cache model, under a Registry answer of `durationMs`. */
export function refreshExecs(
  request: string,
  durationMs: number,
  atMs: number[],
): Array<{ invoked: boolean; reason: string }> {
  const model = new CredentialCacheModel(0);
  return atMs.map((at) => model.pull(request, at, { cacheKeyType: 'Registry', cacheDurationMs: durationMs }));
}

/** When the third pull is due: shortly after the cached entry expired (ms after the first exec answered). */
export const thirdPullAtMs = (durationMs: number): number => durationMs + AFTER_EXPIRY_MS;

/** R1 execs, R2 right after it (its lookup happened by its outcome) hits, R3 after the entry expired execs again. */
export function predictRefresh(request: string, cacheDuration: string, secondDoneMs: number): Prediction<RefreshView> {
  const durationMs = goDurationMs(cacheDuration);
  const plan = refreshExecs(request, durationMs, [0, secondDoneMs, thirdPullAtMs(durationMs)]);
  const steps = plan.map((d, i) => `pull ${i + 1}: ${d.invoked ? 'exec' : 'hit'} (${d.reason})`);
  return {
    value: {
      execs: plan.map((d) => (d.invoked ? 1 : 0)),
      ecrTokens: plan.filter((d) => d.invoked).length,
      pulls: ['pull success', 'pull success', 'pull success'],
    },
    model: `${MODELS.cache} + ${MODELS.plugin}`,
    because:
      `the fake ECR's ${REFRESH_LIFETIME_MS / 1000}s token made the plugin answer cacheDuration ${cacheDuration}: ${steps.join('; ')}; ` +
      'each exec fetches a new token, and the registry accepts only the newest',
  };
}

/** The SA model for one provider entry, with the grants given so far. */
