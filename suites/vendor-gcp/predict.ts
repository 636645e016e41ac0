// credprov's predictions for the vendor-gcp cases, before their pods run:
// the matching oracle (src/matching) for which entry the kubelet execs, the
// model of auth-provider-gcp (src/model/auth-provider-gcp.ts) for what it asks
// the metadata server and answers, the cache model (src/model/credential-cache.ts)
// for when the kubelet asks again, and Google's access-token login (the token
// service accepts `_token` with an unexpired metadata token) for the pull.
// Pure: plan data, the fake's state and times come in as arguments.
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { parseGoDurationNs } from '../../src/api/credentialprovider/goduration.ts';
import { providersForImage } from '../../src/matching/providers.ts';
import {
  GCE_METADATA_HOST,
  GCE_NODE_PROVIDER,
  GCR_USERNAME,
  predictGcpPlugin,
  staleTokenWindowMs,
  type GcpPrediction,
  type MetadataAnswer,
} from '../../src/model/auth-provider-gcp.ts';
import { CredentialCacheModel } from '../../src/model/credential-cache.ts';
import type { Prediction } from '../../src/run/kit.ts';
import { ENTRIES, PROVIDER, type PlannedImage, type ProviderKey } from './plan.ts';

export const MODELS = {
  oracle: 'matching oracle (src/matching)',
  plugin: 'auth-provider-gcp model (src/model/auth-provider-gcp.ts)',
  cache: 'cache model (src/model/credential-cache.ts)',
  login: "Google's access-token login (src/fake-clouds/google/registry-login.ts)",
};

/** What the fake GCE answers while a case runs. */
export interface GceState {
  up: boolean;
  dockercfg?: string;
  dockercfgUrl?: string;
  urlObject?: string;
}

const BASE = `http://${GCE_METADATA_HOST}/computeMetadata/v1/instance/`;
/** The fake metadata server's answers as the plugin's model takes them (the token's value is a placeholder). */
export function gceAnswers(s: GceState): (url: string) => MetadataAnswer {
  return (url) => {
    if (!url.startsWith(`http://${GCE_METADATA_HOST}/`))
      return url === s.dockercfgUrl && s.urlObject !== undefined
        ? { status: 200, body: s.urlObject }
        : { status: 404, body: '' };
    if (!s.up) return { status: 503, body: 'The metadata server is unavailable.' };
    const path = url.slice(BASE.length);
    if (path === 'service-accounts/default/token')
      return { status: 200, body: '{"access_token":"ya29.x","expires_in":40,"token_type":"Bearer"}' };
    if (path === 'service-accounts/default/email')
      return { status: 200, body: 'node-sa@example.iam.gserviceaccount.com' };
    if (path === 'attributes/google-dockercfg' && s.dockercfg !== undefined) return { status: 200, body: s.dockercfg };
    if (path === 'attributes/google-dockercfg-url' && s.dockercfgUrl !== undefined)
      return { status: 200, body: s.dockercfgUrl };
    return { status: 404, body: '' };
  };
}

/** One exec of entry `key`, as the plugin's model runs it against the fake's state. */
export function predictExec(key: ProviderKey, s: GceState): GcpPrediction {
  const e = ENTRIES[key];
  return predictGcpPlugin({ flow: e.flow, env: e.env, answer: gceAnswers(s) });
}

/** A request the plugin makes, as a record reads: its path (the storage object's too), whether it sent Metadata-Flavor, the status. */
export function requestLine(path: string, flavor: boolean, status: number): string {
  return `GET ${path} flavor=${flavor} → ${status}`;
}

export interface PullView {
  /** Entries the kubelet exec'd for the pod. */
  invoked: string[];
  /** What the plugin asked the metadata server (and storage), in order. */
  metadata: string[];
  /** The token services' decisions on the pod's logins (distinct). */
  logins: string[];
  pull: 'success' | 'failure';
}

/** One pull of `img` at `now` against the kubelet's cache, its answer valid or not at that time. */
export interface PlannedPull {
  img: PlannedImage;
  now: number;
  state: GceState;
  /** When the token a cached entry holds expires (ms); undefined: fresh from the metadata server. */
  tokenExpiresAt?: number;
}

/**
 * Pulls in order on one kubelet: the oracle picks the entry, the cache model says whether it execs,
 * the plugin model what it asks and answers, and the login rule whether the registry takes it.
 */
export function predictPulls(config: CredentialProviderConfig, pulls: PlannedPull[]): Prediction<PullView[]> {
  const cache = new CredentialCacheModel(durationMs(GCE_NODE_PROVIDER.defaultCacheDuration));
  const cachedAnswer = new Map<string, { auth: boolean; tokenExpiresAt?: number }>();
  const because: string[] = [];
  const views = pulls.map((p): PullView => {
    const oracle = providersForImage(config, p.img.ref);
    if (oracle.invoked.length === 0) {
      because.push(`${p.img.request}: no entry matches, so no exec and an anonymous pull the registry refuses`);
      return { invoked: [], metadata: [], logins: [], pull: 'failure' };
    }
    const key = keyOf(oracle.invoked[0]!);
    const exec = predictExec(key, p.state);
    if (exec.exitCode !== 0) throw new Error(`the plan's entry ${key} fails: ${exec.error}`);
    const ms = durationMs(exec.response.cacheDuration!);
    const d = cache.pull(p.img.request, p.now, { cacheKeyType: exec.response.cacheKeyType!, cacheDurationMs: ms });
    const hasAuth = exec.response.auth !== undefined;
    let served: { auth: boolean; tokenExpiresAt?: number };
    if (d.invoked) {
      served = { auth: hasAuth };
      if (d.stored)
        cachedAnswer.set(d.stored.key, {
          auth: hasAuth,
          ...(p.tokenExpiresAt !== undefined ? { tokenExpiresAt: p.tokenExpiresAt } : {}),
        });
    } else served = cachedAnswer.get(d.hit.key) ?? { auth: hasAuth };
    const expired = served.tokenExpiresAt !== undefined && served.tokenExpiresAt <= p.now;
    const google = exec.response.auth?.['gcr.io'] !== undefined;
    const logins = !served.auth ? [] : google ? [`${GCR_USERNAME} ${expired ? 'expired' : 'accepted'}`] : [];
    because.push(
      `${p.img.request}: ${PROVIDER[key]} matches; ${d.reason}; ` +
        (d.invoked
          ? `it answers ${hasAuth ? `auth for ${Object.keys(exec.response.auth!).join(', ')}` : 'no auth'} (${exec.response.cacheKeyType}, ${exec.response.cacheDuration})`
          : `the cached answer ${served.auth ? (expired ? 'holds a token expired by then' : 'holds a live token') : 'has no auth'}`),
    );
    return {
      invoked: d.invoked ? [PROVIDER[key]] : [],
      metadata: d.invoked
        ? exec.requests.map((r) => requestLine(pathOf(r.url), r.metadataFlavor, statusOf(p.state, r.url)))
        : [],
      logins,
      pull: served.auth && !expired ? 'success' : 'failure',
    };
  });
  return {
    value: views,
    model: `${MODELS.oracle} + ${MODELS.plugin} + ${MODELS.cache} + ${MODELS.login}`,
    because: because.join('; '),
  };
}

export interface AnswerView {
  exitCode: number;
  cacheKeyType: string;
  cacheDuration: string;
  /** auth key → user name. */
  users: Record<string, string>;
  /** Every password is the access token the metadata server handed out in that exec. */
  passwordIsMetadataToken: boolean;
}

/** The gcr flow's answer for entry `key` with the metadata server up. */
export function predictAnswer(key: ProviderKey): Prediction<AnswerView> {
  const exec = predictExec(key, { up: true });
  if (exec.exitCode !== 0) throw new Error(exec.error);
  const r = exec.response;
  return {
    value: {
      exitCode: 0,
      cacheKeyType: r.cacheKeyType!,
      cacheDuration: r.cacheDuration!,
      users: Object.fromEntries(Object.entries(r.auth ?? {}).map(([k, v]) => [k, v.username])),
      passwordIsMetadataToken: true,
    },
    model: MODELS.plugin,
    because: `flow ${ENTRIES[key].flow}; env ${JSON.stringify(ENTRIES[key].env)}: cacheKeyType and cacheDuration come from KUBE_SIDECAR_CACHE_TYPE/_DURATION (unset: Image, 0s); the four GCR keys whatever the image, each ${GCR_USERNAME} + the access token`,
  };
}

/** How long the long-cache entry's answer outlives a token with `expiresInS` left. */
export function staleWindowMs(key: ProviderKey, expiresInS: number): number {
  const exec = predictExec(key, { up: true });
  return exec.exitCode === 0 ? staleTokenWindowMs(exec.response.cacheDuration!, expiresInS) : 0;
}

const keyOf = (name: string): ProviderKey =>
  (Object.keys(PROVIDER) as ProviderKey[]).find((k) => PROVIDER[k] === name) ?? 'gke';
const durationMs = (d: string): number => {
  const p = parseGoDurationNs(d);
  return p.ok ? Number(p.ns / 1_000_000n) : 0;
};
const pathOf = (url: string): string => new URL(url).pathname;
const statusOf = (s: GceState, url: string): number => {
  const a = gceAnswers(s)(url);
  return a === 'unreachable' ? 0 : a.status;
};
