// credprov's predictions for the gcloud cases: the plugin's default provider
// (without --use_application_default_credentials), from its source (cred.go,
// gcloud_token_provider.go) and credprov's exec client model.
import { clientSessionModel } from '../../src/model/exec-credential-cache.ts';
import { TOKEN_LIFETIME_MS } from './plan.ts';
import { CLIENT_MODEL, tokenWorld } from './predict.ts';
import { GKE_PLUGIN_SOURCE, type Prediction } from '../../src/run/kit.ts';

export const GCLOUD_MODEL = `${GKE_PLUGIN_SOURCE} (cred.go accessToken, gcloud_token_provider.go)`;
/** Where the cache file lands, named as the case reports it. */
export type CachePlace = '$HOME/.kube' | 'beside --kubeconfig' | 'none';

export interface GcloudReuseView {
  statuses: Array<number | 'none'>;
  gcloudRuns: number;
  cacheAt: CachePlace;
  sameToken: boolean;
}

/** Two kubectl calls with --kubeconfig and no KUBECONFIG, from an empty $HOME/.kube. */
export function predictGcloudReuse(): Prediction<GcloudReuseView> {
  return {
    value: { statuses: [200, 200], gcloudRuns: 1, cacheAt: '$HOME/.kube', sameToken: true },
    model: GCLOUD_MODEL,
    because:
      'useCache() is true without CLOUDSDK_AUTH_ACCESS_TOKEN; the first run finds no cache, runs gcloud config config-helper and ' +
      "writes the cache beside client-go's default kubeconfig (cred.go:350-356: no KUBECONFIG, so $HOME/.kube; kubectl's " +
      "--kubeconfig never reaches the plugin: cloud-provider-gcp#920); the second run's cache is valid (more than 10 s left, " +
      'same current-context "" and extra args), so no gcloud',
  };
}

export interface AccountSwitchView {
  first: string;
  second: string;
  gcloudRunsSecond: number;
}

/** #1122: the same kube context, another CLOUDSDK_CONFIG (another active account). */
export function predictAccountSwitch(first: string): Prediction<AccountSwitchView> {
  return {
    value: { first, second: first, gcloudRunsSecond: 0 },
    model: GCLOUD_MODEL,
    because:
      'the cache key is current-context and the --project/--account/--impersonate_service_account flags (cred.go:317-331); ' +
      "CLOUDSDK_CONFIG is not in it, so the second configuration's user gets the first account's cached token (cloud-provider-gcp#1122)",
  };
}

export interface StaleView {
  kubectl: string;
  clientGo: string[];
  gcloudRuns: number;
  sameToken: boolean;
}

/** After the cached token is revoked server-side (and kube-apiserver's success cache has passed). */
export function predictStale(): Prediction<StaleView> {
  let stale: string | undefined;
  // Every run answers the one cached token, revoked before the first request.
  const { world, book } = tokenWorld((b) => (stale ??= b.issue('cached', { lifetimeMs: TOKEN_LIFETIME_MS }).token));
  world.runPlugin(0);
  book.revoke({ subject: 'cached' });
  const kubectl = clientSessionModel('kubectl', world).request(0);
  const clientGo = clientSessionModel('client-go', world);
  const r = [clientGo.request(1_000), clientGo.request(2_000)];
  return {
    value: {
      kubectl: `${kubectl.status}/${kubectl.runs}`,
      clientGo: r.map((x) => `${x.status}/${x.runs}`),
      gcloudRuns: 0,
      sameToken: true,
    },
    model: `${GCLOUD_MODEL} + ${CLIENT_MODEL}`,
    because:
      'the cache holds the revoked token with more than 10 s left, so every run answers it without gcloud (cred.go:312-333); ' +
      `kubectl: ${kubectl.because}; client-go: ${r.map((x) => x.because).join('; ')}`,
  };
}
