import { describe, expect, it } from '@jest/globals';
import { TOKEN_SUCCESS_CACHE_MS } from '../../src/model/apiserver-authn.ts';
import { CLIENT_SESSION, plannedTimes } from './plan.ts';
import {
  assertionAgrees,
  expiryAgrees,
  predictAssertion,
  predictClientSession,
  predictNoCache,
  predictRefusal,
  predictWhoami,
  sameIdentity,
} from './predict.ts';
import { predictAccountSwitch, predictGcloudReuse, predictStale } from './predict-gcloud.ts';

describe('vendor-gke predictions', () => {
  it('whoami: the webhook user of the subject, in the exec-plugin group, authenticated', () => {
    const p = predictWhoami('gke-viewer').value;
    expect(p.username).toBe('credprov:exec:gke-viewer');
    expect(sameIdentity(p, { username: p.username, groups: ['system:authenticated', 'credprov:exec-plugin'] })).toBe(
      true,
    );
    expect(sameIdentity(p, { username: p.username, groups: ['system:authenticated'] })).toBe(false);
  });

  it("the assertion: the key file's kid, iss and aud, both scopes, an hour from 10 s back", () => {
    const p = predictAssertion({
      keyId: 'k1',
      email: 'a@p.iam.gserviceaccount.com',
      tokenUri: 'http://127.0.0.1:1/token',
    });
    expect(p.value).toMatchObject({ alg: 'RS256', kid: 'k1', lifetimeS: 3600, iatBackS: 10 });
    expect(p.value.scope).toBe(
      'https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.email',
    );
    expect(assertionAgrees(p.value, { ...p.value, iatBackS: 11 })).toBe(true);
    expect(assertionAgrees(p.value, { ...p.value, iatBackS: 0 })).toBe(false);
    expect(assertionAgrees(p.value, { ...p.value, aud: 'https://oauth2.googleapis.com/token' })).toBe(false);
  });

  it('expiry: whole seconds either side', () => {
    expect(expiryAgrees(0, -1)).toBe(true);
    expect(expiryAgrees(0, 2)).toBe(false);
  });

  it('ADC mode: two runs, two grants, no cache file', () => {
    expect(predictNoCache().value).toEqual({ pluginRuns: 2, tokenRequests: 2, distinctTokens: 2, cacheFiles: [] });
  });

  it('a refused assertion: 4 tries, exit 1, nothing sent', () => {
    expect(predictRefusal('bad-key').value).toEqual({
      pluginExit: 1,
      tokenRequests: 4,
      endpointSaid: 'Invalid JWT Signature.',
      requestSent: false,
    });
  });

  it('the session waits out the API server success cache before asking again', () => {
    const t = plannedTimes();
    expect(t[2]! - t[1]!).toBeGreaterThan(TOKEN_SUCCESS_CACHE_MS);
    expect(CLIENT_SESSION.map((s) => s.do)).toEqual(['request', 'revoke', 'request', 'request']);
  });

  it('kubectl: a fresh process and a fresh grant per request, so revocation costs nothing', () => {
    expect(predictClientSession('kubectl').view).toEqual({ requests: ['200/1', '200/1', '200/1'], tokenRequests: 3 });
  });

  it('client-go: the revoked token gets a 401, which re-runs the plugin for the next request', () => {
    expect(predictClientSession('client-go').view).toEqual({ requests: ['200/1', '401/1', '200/0'], tokenRequests: 2 });
  });

  it('client-node and python keep the revoked token until it expires (an hour): 401s', () => {
    for (const c of ['client-node', 'python'] as const)
      expect(predictClientSession(c).view).toEqual({ requests: ['200/1', '401/0', '401/0'], tokenRequests: 1 });
  });

  it('inside the success cache, the revoked token still passes', () => {
    expect(predictClientSession('client-node', [0, 200, 5_000, 6_000]).view.requests).toEqual([
      '200/1',
      '200/0',
      '200/0',
    ]);
  });
});

describe('vendor-gke predictions: the gcloud provider', () => {
  it('reuse: one gcloud run, the cache in $HOME/.kube', () => {
    expect(predictGcloudReuse().value).toEqual({
      statuses: [200, 200],
      gcloudRuns: 1,
      cacheAt: '$HOME/.kube',
      sameToken: true,
    });
  });

  it('#1122: the second configuration gets the first account', () => {
    expect(predictAccountSwitch('credprov:exec:gke-gcloud-a').value.second).toBe('credprov:exec:gke-gcloud-a');
  });

  it('a revoked cached token: 401, and each 401 re-runs the plugin (kubectl too, before it exits) for the same token', () => {
    expect(predictStale().value).toEqual({
      kubectl: '401/2',
      clientGo: ['401/2', '401/1'],
      gcloudRuns: 0,
      sameToken: true,
    });
  });
});
