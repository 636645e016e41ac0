// The fake GCE metadata server and Google's registry login rule: each rule in
// process (FakeCloud.exchange), the server over a real listener, and the real
// auth-provider-gcp against it when its build is cached (reaching it through
// HTTP_PROXY, so the test edits no hosts file).
import { afterEach, describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { cloudRequest, FakeCloud, IssuedTokens } from '../kit/index.ts';
import { metadataEndpoint, type MetadataGrant, type MetadataRecord } from './metadata.ts';
import { GoogleRegistryLogins } from './registry-login.ts';
import { FakeGce } from './gce.ts';
import { ensureVendorPlugin } from '../../plugin/vendors/build.ts';
import { AUTH_PROVIDER_GCP_RECIPE, AUTH_PROVIDER_GCP_VERSION } from '../../plugin/vendors/auth-provider-gcp.ts';
import { testIf } from '../../testing/prerequisites.ts';

const EMAIL = 'node@credprov-test.iam.gserviceaccount.com';
const fakes: FakeGce[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.stop()));
});
const TOKEN_PATH = '/computeMetadata/v1/instance/service-accounts/default/token';

function server(o: { lifetimeS?: number; refreshS?: number; attrs?: Record<string, string>; down?: boolean } = {}) {
  let now = Date.UTC(2030, 0, 1);
  const tokens = new IssuedTokens<MetadataGrant>();
  const cloud = new FakeCloud<MetadataRecord>({ name: 'GCE metadata', clock: () => now });
  const endpoint = metadataEndpoint({
    email: EMAIL,
    tokens,
    tokenLifetimeS: o.lifetimeS ?? 3600,
    refreshBeforeS: o.refreshS ?? 300,
    attributes: () => o.attrs ?? {},
    unavailable: () => o.down ?? false,
    now: () => now,
  });
  const get = async (
    path: string,
    headers: Record<string, string> = { 'metadata-flavor': 'Google' },
    method = 'GET',
  ) => {
    const { reply, record } = await cloud.exchange(
      endpoint,
      cloudRequest({ method, target: path, headers: { host: 'metadata.google.internal.', ...headers } }),
    );
    return { status: reply.status, headers: reply.headers ?? {}, body: String(reply.body ?? ''), record };
  };
  return { get, tokens, advance: (ms: number) => (now += ms), now: () => now };
}

describe('the GCE metadata server', () => {
  test('answers a token as JSON with Metadata-Flavor on the answer, and records its fingerprint only', async () => {
    const s = server();
    const r = await s.get(TOKEN_PATH);
    expect(r.status).toBe(200);
    expect(r.headers['metadata-flavor']).toBe('Google');
    const body = JSON.parse(r.body) as { access_token: string; expires_in: number; token_type: string };
    expect(body).toEqual({ access_token: expect.any(String), expires_in: 3600, token_type: 'Bearer' });
    expect(s.tokens.lookup(body.access_token)).toEqual({ email: EMAIL, expiresAt: s.now() + 3600_000 });
    expect(r.record).toMatchObject({ served: 'token', flavor: true, host: 'metadata.google.internal.' });
    expect(r.record.token).toEqual({ fingerprint: expect.stringMatching(/^sha256:/), expiresIn: 3600, fresh: true });
    expect(JSON.stringify(r.record)).not.toContain(body.access_token);
  });

  test('answers the cached token, expires_in counting down, until refreshBeforeS before its end; then a new one', async () => {
    const s = server({ lifetimeS: 60, refreshS: 10 });
    const first = JSON.parse((await s.get(TOKEN_PATH)).body) as { access_token: string };
    s.advance(45_000);
    const again = JSON.parse((await s.get(TOKEN_PATH)).body) as { access_token: string; expires_in: number };
    expect(again).toMatchObject({ access_token: first.access_token, expires_in: 15 });
    s.advance(6_000);
    const next = await s.get(TOKEN_PATH);
    const fresh = JSON.parse(next.body) as { access_token: string; expires_in: number };
    expect(fresh.access_token).not.toBe(first.access_token);
    expect(fresh.expires_in).toBe(60);
    expect(next.record.token?.fresh).toBe(true);
  });

  test('refuses a request without Metadata-Flavor: Google, with one of another value, or with X-Forwarded-For (403)', async () => {
    const s = server();
    const none = await s.get(TOKEN_PATH, {});
    expect(none.status).toBe(403);
    expect(none.body).toContain('Missing Metadata-Flavor:Google header.');
    expect(none.record).toMatchObject({ flavor: false, status: 403 });
    expect((await s.get(TOKEN_PATH, { 'metadata-flavor': 'google' })).status).toBe(403);
    const proxied = await s.get(TOKEN_PATH, { 'metadata-flavor': 'Google', 'x-forwarded-for': '10.0.0.1' });
    expect(proxied.status).toBe(403);
    expect(proxied.record).toMatchObject({ forwardedFor: true, error: expect.stringContaining('X-Forwarded-For') });
  });

  test('serves the email as text, attributes that exist, 404 for others; GET only; 503 while down', async () => {
    const s = server({ attrs: { 'google-dockercfg': '{"a.test":{}}' } });
    expect(await s.get('/computeMetadata/v1/instance/service-accounts/default/email')).toMatchObject({
      status: 200,
      body: EMAIL,
    });
    const attr = await s.get('/computeMetadata/v1/instance/attributes/google-dockercfg');
    expect(attr).toMatchObject({ status: 200, body: '{"a.test":{}}' });
    expect(attr.record).toMatchObject({ served: 'attribute', attribute: 'google-dockercfg' });
    expect((await s.get('/computeMetadata/v1/instance/attributes/google-dockercfg-url')).status).toBe(404);
    expect((await s.get('/computeMetadata/v1/project/nothing')).status).toBe(404);
    expect((await s.get(TOKEN_PATH, { 'metadata-flavor': 'Google' }, 'POST')).status).toBe(405);
    expect((await server({ down: true }).get(TOKEN_PATH)).status).toBe(503);
  });
});

describe("Google's registry login (gcr.io, Artifact Registry)", () => {
  test('accepts _token and oauth2accesstoken with a minted, unexpired token; refuses the rest, naming why', () => {
    let now = 1_000_000;
    const tokens = new IssuedTokens<MetadataGrant>();
    const logins = new GoogleRegistryLogins({ tokens, now: () => now });
    const good = tokens.issue({ email: EMAIL, expiresAt: now + 30_000 });
    expect(logins.decide('gcr.io', '_token', good)).toMatchObject({
      verdict: 'accepted',
      email: EMAIL,
      secondsLeft: 30,
    });
    expect(logins.decide('us-docker.pkg.dev', 'oauth2accesstoken', good).verdict).toBe('accepted');
    expect(logins.decide('gcr.io', 'AWS', good).verdict).toBe('not an access-token login');
    expect(logins.decide('gcr.io', '_token', 'ya29.not-minted').verdict).toBe('unknown token');
    now += 31_000;
    expect(logins.decide('gcr.io', '_token', good)).toMatchObject({ verdict: 'expired', secondsLeft: -1 });
    expect(JSON.stringify(logins.logins())).not.toContain(good);
    expect(logins.logins()).toHaveLength(5);
  });
});

describe('fake GCE over real listeners', () => {
  test('the metadata server answers on port 80 of its own loopback address; storage serves objects without the header', async () => {
    const fake = new FakeGce({ email: EMAIL });
    fakes.push(fake);
    const ep = await fake.start();
    expect(ep.metadataAddress).toMatch(/^127\.\d+\.\d+\.\d+$/);
    const r = await fetch(`${ep.metadataUrl}${TOKEN_PATH}`, { headers: { 'Metadata-Flavor': 'Google' } });
    expect(r.status).toBe(200);
    fake.putObject('bucket/dockercfg.json', '{"b.test":{"auth":"dTpw"}}');
    expect(await (await fetch(`${ep.storageUrl}/bucket/dockercfg.json`)).text()).toBe('{"b.test":{"auth":"dTpw"}}');
    expect((await fetch(`${ep.storageUrl}/bucket/other`)).status).toBe(404);
    expect(fake.requests().map((q) => `${q.path} ${q.status} flavor=${q.flavor}`)).toEqual([
      `${TOKEN_PATH} 200 flavor=true`,
      '/bucket/dockercfg.json 200 flavor=false',
      '/bucket/other 404 flavor=false',
    ]);
  });
});

// The real, unmodified plugin against the fake: only when its build is cached.
const plugin = await ensureVendorPlugin(AUTH_PROVIDER_GCP_RECIPE, {
  version: AUTH_PROVIDER_GCP_VERSION,
  cachedOnly: true,
}).catch(() => undefined);
const withPlugin = testIf(
  plugin
    ? { ok: true }
    : { ok: false, reason: 'auth-provider-gcp is not built (node scripts/build-field.ts auth-provider-gcp builds it)' },
);

withPlugin(
  'auth-provider-gcp get-credentials asks token then email with Metadata-Flavor and answers _token + the minted token; with the server down it answers no auth',
  async () => {
    const fake = new FakeGce({ email: EMAIL });
    fakes.push(fake);
    const ep = await fake.start();
    const run = () =>
      execa(plugin!.path, ['get-credentials', '--v=3'], {
        input:
          '{"apiVersion":"credentialprovider.kubelet.k8s.io/v1","kind":"CredentialProviderRequest","image":"gcr.io/p/a"}',
        extendEnv: false,
        reject: false,
        timeout: 30_000,
        // The plugin's URL is plain http to a hard-coded name: a proxy reaches the fake without a hosts line.
        env: { PATH: '/usr/bin:/bin', HTTP_PROXY: ep.metadataUrl, NO_PROXY: '' },
      });
    const r = await run();
    expect(r.exitCode).toBe(0);
    const answer = JSON.parse(String(r.stdout)) as { auth: Record<string, { username: string; password: string }> };
    expect(Object.keys(answer.auth).sort()).toEqual(['*.gcr.io', '*.pkg.dev', 'container.cloud.google.com', 'gcr.io']);
    expect(fake.logins.decide('gcr.io', answer.auth['gcr.io']!.username, answer.auth['gcr.io']!.password).verdict).toBe(
      'accepted',
    );
    expect(fake.requests().map((q) => [q.path, q.flavor, q.host])).toEqual([
      [TOKEN_PATH, true, 'metadata.google.internal.'],
      ['/computeMetadata/v1/instance/service-accounts/default/email', true, 'metadata.google.internal.'],
    ]);
    fake.setUnavailable(true);
    const down = await run();
    expect(down.exitCode).toBe(0);
    expect(JSON.parse(String(down.stdout))).not.toHaveProperty('auth');
  },
  60_000,
);
