// The vendor-gcp predictions, pinned: which entry runs for each planned
// image, what auth-provider-gcp asks and answers in each mode, when the
// kubelet's cache answers instead, and when the registry takes the token.
import { describe, expect, test } from '@jest/globals';
import { IMAGES, providerConfig, PROVIDER, dockercfgs, DOCKERCFG_OBJECT } from './plan.ts';
import { predictAnswer, predictPulls, requestLine, staleWindowMs, type GceState } from './predict.ts';

const config = providerConfig();
const UP: GceState = { up: true };
const TOKEN = '/computeMetadata/v1/instance/service-accounts/default/token';
const EMAIL = '/computeMetadata/v1/instance/service-accounts/default/email';
const GCR_METADATA = [requestLine(TOKEN, true, 200), requestLine(EMAIL, true, 200)];

describe('the provider config', () => {
  test("every entry is GKE's shape: v1, get-credentials --v=3 (plus its flow), defaultCacheDuration 1m", () => {
    for (const p of config.providers) {
      expect(p).toMatchObject({ apiVersion: 'credentialprovider.kubelet.k8s.io/v1', defaultCacheDuration: '1m' });
      expect(p.args!.slice(0, 2)).toEqual(['get-credentials', '--v=3']);
    }
    expect(config.providers.find((p) => p.name === PROVIDER.dockercfgUrl)!.args).toContain('--authFlow=dockercfg-url');
    expect(config.providers.find((p) => p.name === PROVIDER.gke)!.matchImages).toEqual([
      'container.cloud.google.com',
      'gcr.io',
      '*.gcr.io',
      'us-docker.pkg.dev',
    ]);
  });
});

describe('pulls', () => {
  test('gcr.io and Artifact Registry: the GKE entry runs, asks token then email with the header, and _token is accepted', () => {
    const p = predictPulls(config, [
      { img: IMAGES.gcr, now: 0, state: UP },
      { img: IMAGES.ar, now: 1000, state: UP },
    ]);
    const ok = { invoked: [PROVIDER.gke], metadata: GCR_METADATA, logins: ['_token accepted'], pull: 'success' };
    expect(p.value).toEqual([ok, ok]);
    expect(p.because).toContain('not stored: the response says cacheDuration 0s');
  });

  test("the same image twice under GKE's entry: two execs (0s is never cached, defaultCacheDuration unused)", () => {
    const p = predictPulls(config, [
      { img: IMAGES.gcrRegional, now: 0, state: UP },
      { img: IMAGES.gcrRegional, now: 5000, state: UP },
    ]);
    expect(p.value.map((v) => v.invoked)).toEqual([[PROVIDER.gke], [PROVIDER.gke]]);
  });

  test('pkg.dev itself matches no entry: nothing runs and the anonymous pull fails', () => {
    expect(predictPulls(config, [{ img: IMAGES.unmatched, now: 0, state: UP }]).value).toEqual([
      { invoked: [], metadata: [], logins: [], pull: 'failure' },
    ]);
  });

  test('KUBE_SIDECAR_CACHE_TYPE=registry, _DURATION=1h: a second repository of the registry is served from the cache', () => {
    const p = predictPulls(config, [
      { img: IMAGES.registryCacheA, now: 0, state: UP, tokenExpiresAt: 40_000 },
      { img: IMAGES.registryCacheB, now: 5000, state: UP },
    ]);
    expect(p.value.map((v) => [v.invoked, v.pull])).toEqual([
      [[PROVIDER.registryCache], 'success'],
      [[], 'success'],
    ]);
  });

  test('_DURATION=10m with a 40 s token: the same image after the token expired is served the dead token, which the registry refuses', () => {
    const p = predictPulls(config, [
      { img: IMAGES.longCache, now: 0, state: UP, tokenExpiresAt: 30_000 },
      { img: IMAGES.longCache, now: 33_000, state: UP },
    ]);
    expect(p.value).toEqual([
      { invoked: [PROVIDER.longCache], metadata: GCR_METADATA, logins: ['_token accepted'], pull: 'success' },
      { invoked: [], metadata: [], logins: ['_token expired'], pull: 'failure' },
    ]);
    expect(staleWindowMs('longCache', 30)).toBe(570_000);
    expect(staleWindowMs('gke', 30)).toBe(0);
  });

  test('metadata server down: the plugin answers no auth, which a 1h Registry entry keeps after the server is back', () => {
    const p = predictPulls(config, [
      { img: IMAGES.outageA, now: 0, state: { up: false } },
      { img: IMAGES.outageB, now: 5000, state: UP },
    ]);
    expect(p.value).toEqual([
      { invoked: [PROVIDER.outage], metadata: [requestLine(TOKEN, true, 503)], logins: [], pull: 'failure' },
      { invoked: [], metadata: [], logins: [], pull: 'failure' },
    ]);
    expect(p.because).toContain('the cached answer has no auth');
  });

  test('dockercfg and dockercfg-url: the attribute (or the object it names, fetched without the header) opens the private registry', () => {
    const cfg = dockercfgs({ username: 'u', password: 'p' });
    const url = `http://127.0.0.1:9/${DOCKERCFG_OBJECT}`;
    const state: GceState = { up: true, dockercfg: cfg.attribute, dockercfgUrl: url, urlObject: cfg.urlObject };
    const p = predictPulls(config, [
      { img: IMAGES.dockercfg, now: 0, state },
      { img: IMAGES.dockercfgUrl, now: 1000, state },
    ]);
    expect(p.value).toEqual([
      {
        invoked: [PROVIDER.dockercfg],
        metadata: [requestLine('/computeMetadata/v1/instance/attributes/google-dockercfg', true, 200)],
        logins: [],
        pull: 'success',
      },
      {
        invoked: [PROVIDER.dockercfgUrl],
        metadata: [
          requestLine('/computeMetadata/v1/instance/attributes/google-dockercfg-url', true, 200),
          requestLine(`/${DOCKERCFG_OBJECT}`, false, 200),
        ],
        logins: [],
        pull: 'success',
      },
    ]);
  });
});

describe('the answer', () => {
  test("GKE's entry: Image, 0s, the four GCR keys with _token", () => {
    expect(predictAnswer('gke').value).toEqual({
      exitCode: 0,
      cacheKeyType: 'Image',
      cacheDuration: '0s',
      users: {
        'container.cloud.google.com': '_token',
        'gcr.io': '_token',
        '*.gcr.io': '_token',
        '*.pkg.dev': '_token',
      },
      passwordIsMetadataToken: true,
    });
    expect(predictAnswer('registryCache').value).toMatchObject({ cacheKeyType: 'Registry', cacheDuration: '1h0m0s' });
  });
});
