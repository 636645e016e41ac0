// The vendor-acr predictions from the plan, without a cluster: each value a
// reader can check against the rule it comes from (the config's matchImages,
// the plugin's GetCredentials, the kubelet's keyring order and cache).
import { describe, expect, test } from '@jest/globals';
import { ServiceAccountTokenModel } from '../../src/model/service-account-token.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { offeredFrom } from './offered.ts';
import { azureJson, images, PROVIDER, providerConfig, runNames } from './plan.ts';
import { predictAcrPull, predictNonAcr, predictOffered, predictRegistryCache, predictSaPull } from './predict.ts';
import { ACR_CLIENT_ID_ANNOTATION, ACR_TENANT_ID_ANNOTATION, parsePullAttempts } from '../../src/run/kit.ts';

let n = 0;
const names = runNames('abc123', () => `00000000-0000-4000-8000-00000000000${++n}`);
const img = images(names);
const json = azureJson(names, 'client-secret');
const byProvider = {
  [PROVIDER.static]: json.static,
  [PROVIDER.mi]: json.mi,
  [PROVIDER.sa]: json.static,
  [PROVIDER.wi]: json.mi,
};
const config = providerConfig(
  names,
  {
    staticJson: '/x/azure-static.json',
    miJson: '/x/azure-mi.json',
    identityEndpoint: 'http://127.0.0.1:1/msi/token',
    identityHeader: 'h',
    caFile: '/x/ca.crt',
  },
  behaviourFor('1.37'),
);
const provider = (name: string) => config.providers.find((p) => p.name === name)!;
const acceptsSp = (u: string, p: string) => u === names.clientId && p === 'client secret';

describe('static service principal', () => {
  test('an *.azurecr.io image execs the static provider, which answers every ACR cloud plus the empty entry, no call', () => {
    const p = predictAcrPull(config, img.sp, byProvider, acceptsSp);
    const sp = `${names.clientId} / client secret`;
    expect(p.value).toEqual({
      invoked: [PROVIDER.static],
      answer: {
        cacheKeyType: 'Registry',
        cacheDuration: '1h0m0s',
        auth: {
          '*.azurecr.*': '"" / empty',
          '*.azurecr.io': sp,
          '*.azurecr.cn': sp,
          '*.azurecr.de': sp,
          '*.azurecr.us': sp,
        },
      },
      azure: [],
      pull: 'pull success',
    });
  });

  test('another repository on the login server is served from the Registry entry', () => {
    const p = predictRegistryCache(provider(PROVIDER.static), [img.sp, img.spOther], json.static);
    expect(p.value.map((r) => r.execs)).toEqual([1, 0]);
    expect(p.because).toContain('Registry 1h0m0s');
  });

  test('an x.azurecr.cn image a registry refuses: the client id first, then the empty entry as an anonymous pull', () => {
    const p = predictOffered(config, img.cn, byProvider);
    expect(p.value).toEqual({ offered: [names.clientId, '(none: anonymous)'], pull: 'pull failure (unauthorized)' });
  });

  test('mcr.microsoft.com: no auth and 0s, so both pulls exec and pull anonymously from the public registry', () => {
    const p = predictNonAcr(provider(PROVIDER.static), img.mcr, json.static);
    expect(p.value).toEqual([
      { pull: 'first pull', execs: 1, answer: 'Registry 0s no auth', result: 'pull success' },
      { pull: 'second pull', execs: 1, answer: 'Registry 0s no auth', result: 'pull success' },
    ]);
  });
});

describe('managed identity', () => {
  test('an *.azurecr.us image: token, challenge, exchange, and the refresh token for the login server', () => {
    const p = predictAcrPull(config, img.mi, byProvider, (_u, pw) => pw === 'refresh token');
    expect(p.value.invoked).toEqual([PROVIDER.mi]);
    expect(p.value.answer.auth).toEqual({
      '*.azurecr.*': '"" / empty',
      [names.hosts.mi]: '00000000-0000-0000-0000-000000000000 / refresh token',
    });
    expect(p.value.azure).toEqual([
      'token for https://containerregistry.azure.net → 200',
      'GET /v2/ → 401',
      'POST /oauth2/exchange → 200',
    ]);
    expect(p.value.pull).toBe('pull success');
  });
});

describe('KEP-4412 mode without managed identity', () => {
  test('the token and annotations reach the plugin, which answers the static principal and calls nothing', () => {
    const sa = provider(PROVIDER.sa);
    const model = new ServiceAccountTokenModel({
      provider: { name: sa.name, defaultCacheDurationMs: 600_000, tokenAttributes: sa.tokenAttributes! },
      behaviour: behaviourFor('1.37'),
      grants: [{ audience: names.audience }],
    });
    const annotations = { [ACR_CLIENT_ID_ANNOTATION]: names.clientId, [ACR_TENANT_ID_ANNOTATION]: names.tenantId };
    const pull = model.pull(
      { namespace: 'default', name: 'p', uid: 'u', serviceAccount: { name: names.puller, uid: 's', annotations } },
      img.sa.request,
      { cacheKeyType: 'Registry', cacheDurationMs: 3_600_000, password: 'static', registryAccepts: true },
    );
    const p = predictSaPull(pull, img.sa, json.static, { audience: names.audience, tenantId: names.tenantId });
    expect(p.value).toMatchObject({
      invoked: true,
      tokenAud: [names.audience],
      annotations,
      azure: [],
      pull: 'pull success',
    });
    expect(p.value.answer.auth['*.azurecr.de']).toBe(`${names.clientId} / client secret`);
    // With managed identity the same token goes to Azure AD, then to the exchange.
    const wi = predictSaPull(pull, img.wi, json.mi, { audience: names.audience, tenantId: names.tenantId });
    expect(wi.value.azure).toEqual([
      'GET /common/discovery/instance?api-version=1.1 → 200',
      `GET /${names.tenantId}/v2.0/.well-known/openid-configuration → 200`,
      `POST /${names.tenantId}/oauth2/v2.0/token → 200`,
      'GET /v2/ → 401',
      'POST /oauth2/exchange → 200',
    ]);
    expect(wi.value.answer.auth[names.hosts.wi]).toBe('00000000-0000-0000-0000-000000000000 / refresh token');
  });
});

describe('the registry log', () => {
  const line = (msg: string) =>
    `time="t" level=warning msg="${msg}" http.request.uri="/v2/team/app/manifests/v1" http.request.useragent=containerd/v2.3.7`;
  const anonymous = line(
    'error authorizing context: basic authentication challenge for realm \\"credprov\\": invalid authorization credential',
  );
  const refused = (u: string) => line(`error authenticating user \\"${u}\\": authentication failure`);

  test('each anonymous challenge opens an attempt, named by the user refused after it', () => {
    const log = [anonymous, refused('sp'), refused('sp'), anonymous, anonymous, refused('sp'), anonymous].join('\n');
    const attempts = parsePullAttempts(log, 'team/app');
    expect(attempts.map((a) => a.user)).toEqual(['sp', '', 'sp', '']);
    expect(offeredFrom(attempts)).toEqual(['sp', '(none: anonymous)']);
  });

  test('lines of other repositories and of other clients are left out', () => {
    expect(parsePullAttempts(anonymous.replace('team/app', 'team/other'), 'team/app')).toEqual([]);
    expect(parsePullAttempts(anonymous.replace('containerd', 'curl'), 'team/app')).toEqual([]);
  });
});
