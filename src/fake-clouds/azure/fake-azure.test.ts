// The fake Azure endpoints (App Service managed identity, ACR challenge and
// exchange) and, when the acr-credential-provider build is cached, the
// unmodified plugin's answers against credprov's model of them (acr.ts).
import { afterEach, describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testIf } from '../../testing/prerequisites.ts';
import { createCA, issueServerCert } from '../../core/tls.ts';
import {
  ACR_PLUGIN_VERSION,
  ACR_RECIPE,
  acrLoginServer,
  predictAcrAnswer,
  type AzureJson,
} from '../../plugin/vendors/acr.ts';
import { ensureVendorPlugin } from '../../plugin/vendors/build.ts';
import { FakeAzure } from './index.ts';

const fakes: FakeAzure[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.stop()));
});

async function startFake() {
  const fake = new FakeAzure({
    tenantId: 'tenant-1',
    identityHeader: 'site-header',
    refreshToken: () => 'acr-refresh',
  });
  fakes.push(fake);
  return { fake, endpoint: await fake.startIdentity() };
}

describe('fake managed identity endpoint', () => {
  const get = (endpoint: string, query: string, header?: string) =>
    fetch(`${endpoint}?${query}`, { headers: header ? { 'x-identity-header': header } : {} });

  test('issues a token for the resource asked, with the site header and api-version 2019-08-01', async () => {
    const { fake, endpoint } = await startFake();
    const r = await get(endpoint, 'api-version=2019-08-01&resource=https://containerregistry.azure.net', 'site-header');
    expect(r.status).toBe(200);
    const body = (await r.json()) as { access_token: string; expires_on: string; resource: string };
    expect(body.resource).toBe('https://containerregistry.azure.net');
    expect(Number(body.expires_on)).toBeGreaterThan(Date.now() / 1000);
    const [rec] = fake.requests();
    expect(rec).toMatchObject({ endpoint: 'identity', status: 200, identity: 'system-assigned' });
    expect(JSON.stringify(fake.requests())).not.toContain(body.access_token);
  });

  test('refuses a wrong header, a wrong api-version and an identity it does not know', async () => {
    const { endpoint } = await startFake();
    const resource = 'resource=https://containerregistry.azure.net';
    expect((await get(endpoint, `api-version=2019-08-01&${resource}`, 'other')).status).toBe(401);
    expect((await get(endpoint, `api-version=2018-02-01&${resource}`, 'site-header')).status).toBe(400);
    expect((await get(endpoint, `api-version=2019-08-01&${resource}&client_id=x`, 'site-header')).status).toBe(400);
  });
});

describe('fake ACR login server', () => {
  const call = (port: number, ca: string, method: string, path: string, body?: string) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port,
          servername: 'credprov.azurecr.io',
          method,
          path,
          ca,
          headers: {
            host: 'credprov.azurecr.io',
            ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  test("challenges like ACR and exchanges only a token it issued for ACR's audience, for its service and tenant", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-fake-acr-'));
    try {
      const { fake, endpoint } = await startFake();
      const ca = await createCA(dir);
      const cert = await issueServerCert(ca, dir, ['credprov.azurecr.io']);
      const [certPem, keyPem, caPem] = await Promise.all([
        readFile(cert.certPath, 'utf8'),
        readFile(cert.keyPath, 'utf8'),
        readFile(ca.certPath, 'utf8'),
      ]);
      const { port } = await fake.serveTls({
        loginServers: ['credprov.azurecr.io'],
        address: '127.0.0.1',
        port: 0,
        certPem,
        keyPem,
      });
      const challenge = await call(port, caPem, 'GET', '/v2/');
      expect(challenge.status).toBe(401);
      expect(challenge.headers['www-authenticate']).toBe(
        'Bearer realm="https://credprov.azurecr.io/oauth2/token",service="credprov.azurecr.io"',
      );
      const token = async (resource: string) =>
        (
          (await (
            await fetch(`${endpoint}?api-version=2019-08-01&resource=${resource}`, {
              headers: { 'x-identity-header': 'site-header' },
            })
          ).json()) as { access_token: string }
        ).access_token;
      const form = (o: Record<string, string>) =>
        new URLSearchParams({
          grant_type: 'access_token_refresh_token',
          service: 'credprov.azurecr.io',
          tenant: 'tenant-1',
          ...o,
        }).toString();
      const acr = await token('https://containerregistry.azure.net');
      const ok = await call(port, caPem, 'POST', '/oauth2/exchange', form({ access_token: acr, refresh_token: acr }));
      expect({ status: ok.status, body: JSON.parse(ok.body) }).toEqual({
        status: 200,
        body: { refresh_token: 'acr-refresh' },
      });
      const arm = await token('https://management.azure.com');
      expect((await call(port, caPem, 'POST', '/oauth2/exchange', form({ access_token: arm }))).status).toBe(401);
      expect((await call(port, caPem, 'POST', '/oauth2/exchange', form({ access_token: 'forged' }))).status).toBe(401);
      expect(
        (await call(port, caPem, 'POST', '/oauth2/exchange', form({ access_token: acr, tenant: 'other' }))).status,
      ).toBe(401);
      expect(
        (await call(port, caPem, 'POST', '/oauth2/exchange', form({ access_token: acr, service: 'x.azurecr.io' })))
          .status,
      ).toBe(401);
      const log = JSON.stringify(fake.requests());
      expect(log).not.toContain(acr);
      expect(log).not.toContain('acr-refresh');
      expect(
        fake
          .requests()
          .filter((r) => r.endpoint === 'acr')
          .map((r) => r.status),
      ).toEqual([401, 200, 401, 401, 401, 401]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// The real, unmodified plugin: only when its build is cached (the vendor-acr suite builds it).
const plugin = await ensureVendorPlugin(ACR_RECIPE, { version: ACR_PLUGIN_VERSION, cachedOnly: true }).catch(
  () => undefined,
);
const withPlugin = testIf(
  plugin
    ? { ok: true }
    : {
        ok: false,
        reason: `acr-credential-provider ${ACR_PLUGIN_VERSION} is not built (credprov run --suite vendor-acr builds it)`,
      },
);

describe('acr-credential-provider with a static service principal, against the model', () => {
  const config: AzureJson = {
    cloud: 'AzurePublicCloud',
    tenantId: 't',
    aadClientId: 'client-1',
    aadClientSecret: 'secret-1',
  };
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');
  const images = [
    'credprov.azurecr.io/team/app',
    'credprov.azurecr.cn/team/app',
    'credprov.azurecr.us',
    // A dash is outside acrRE: the public cloud's suffix, found anywhere, makes it ACR all the same.
    'credprov-dash.azurecr.io/team/app',
    'registry.example/mirror/azurecr.io/app',
    'credprov.azurecr.io.example.com/team/app',
    'mcr.microsoft.com/team/app',
  ];

  withPlugin(
    'answers what predictAcrAnswer says for ACR, ACR-like and non-ACR images, without any network',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'credprov-acr-'));
      try {
        const file = join(dir, 'azure.json');
        await writeFile(file, JSON.stringify(config));
        for (const image of images) {
          const r = await execa(plugin!.path, [file], {
            input: JSON.stringify({
              apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
              kind: 'CredentialProviderRequest',
              image,
            }),
            // No proxy, no identity endpoint: any call would fail the exec.
            env: { PATH: '/usr/bin:/bin', HTTPS_PROXY: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:9' },
            extendEnv: false,
            reject: false,
            timeout: 30_000,
          });
          expect({ image, exit: r.exitCode }).toEqual({ image, exit: 0 });
          const got = JSON.parse(String(r.stdout)) as {
            cacheKeyType: string;
            cacheDuration: string;
            auth?: Record<string, { username: string; password: string }>;
          };
          const want = predictAcrAnswer(image, config);
          const pw = { 'client secret': sha('secret-1'), empty: sha(''), 'refresh token': '' };
          expect({ image, cacheKeyType: got.cacheKeyType, cacheDuration: got.cacheDuration }).toEqual({
            image,
            cacheKeyType: want.cacheKeyType,
            cacheDuration: want.cacheDuration,
          });
          expect(
            Object.fromEntries(Object.entries(got.auth ?? {}).map(([k, v]) => [k, [v.username, sha(v.password)]])),
          ).toEqual(Object.fromEntries(Object.entries(want.auth).map(([k, v]) => [k, [v.username, pw[v.password]]])));
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

describe('acrLoginServer (parseACRLoginServerFromImage, public cloud)', () => {
  test.each([
    ['a.azurecr.io/x', 'a.azurecr.io'],
    ['a.azurecr.io', 'a.azurecr.io'],
    ['a.azurecr.de/x/y', 'a.azurecr.de'],
    ['a-b.azurecr.io/x', 'a-b.azurecr.io'],
    ['a.azurecr.cnx/x', undefined],
    ['a.azurecr.io.example/x', 'a.azurecr.io'],
    ['mcr.microsoft.com/x', undefined],
  ])('%s → %s', (image, server) => {
    expect(acrLoginServer(image)).toBe(server);
  });
});
