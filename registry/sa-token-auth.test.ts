import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JSONWebKeySet } from 'jose';
import { send } from '../src/core/http.ts';
import {
  EXCHANGE_USERNAME,
  ServiceAccountTokenAuth,
  serviceAccountClaims,
  tokenSha256,
  type ClusterIdentity,
  type TokenReviewStatus,
} from './sa-token-auth.ts';
import { createSigningPair } from '../src/core/tls.ts';
import { MemoryUsers, TokenServer } from './token-server.ts';

const ISSUER = 'https://127.0.0.1:6443';
const AUD = 'registry.example';
const NOW = Date.UTC(2030, 0, 1);

let key: CryptoKey;
let otherKey: CryptoKey;
let jwks: JSONWebKeySet;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  key = pair.privateKey;
  otherKey = (await generateKeyPair('ES256')).privateKey;
  jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] };
});

interface Mint {
  ns?: string;
  sa?: string;
  aud?: string;
  iss?: string;
  iat?: number;
  ttl?: number;
  /** Sign with a key the JWKS does not hold. */
  foreign?: boolean;
  sub?: string;
  kid?: string;
}

async function mint(o: Mint = {}): Promise<string> {
  const ns = o.ns ?? 'apps';
  const sa = o.sa ?? 'team-a';
  const iat = o.iat ?? Math.floor(NOW / 1000) - 10;
  return new SignJWT({
    'kubernetes.io': {
      namespace: ns,
      serviceaccount: { name: sa, uid: 'sa-uid' },
      pod: { name: 'p', uid: 'pod-uid' },
      node: { name: 'n', uid: 'node-uid' },
    },
  })
    .setProtectedHeader({ alg: 'ES256', kid: o.kid ?? 'k1' })
    .setIssuer(o.iss ?? ISSUER)
    .setAudience(o.aud ?? AUD)
    .setSubject(o.sub ?? `system:serviceaccount:${ns}:${sa}`)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + (o.ttl ?? 3600))
    .sign(o.foreign ? otherKey : key);
}

function cluster(
  review: (token: string, aud: string[]) => TokenReviewStatus = (t) => ({
    authenticated: true,
    user: { username: String(decodeJwt(t).sub) },
    audiences: [AUD],
  }),
) {
  const calls = { discovery: 0, jwks: 0, reviews: 0 };
  const c: ClusterIdentity = {
    async discovery() {
      calls.discovery++;
      return { issuer: ISSUER, jwks_uri: `${ISSUER}/openid/v1/jwks` };
    },
    async jwks() {
      calls.jwks++;
      return jwks;
    },
    async tokenReview(token, aud) {
      calls.reviews++;
      return review(token, aud);
    },
  };
  return { c, calls };
}

const auth = (c: ClusterIdentity) =>
  new ServiceAccountTokenAuth({
    cluster: c,
    audience: AUD,
    clock: () => NOW,
    access: (sa) => (sa.name.startsWith('team-') ? [{ repository: `${sa.name}/*`, actions: ['pull'] }] : []),
  });

describe('ServiceAccountTokenAuth', () => {
  test('a valid token passes offline and online; the SA maps to its access rules; only the hash is recorded', async () => {
    const { c, calls } = cluster();
    const a = auth(c);
    const token = await mint();
    const v = await a.validate(token);
    expect(v.ok).toBe(true);
    expect(v.offline).toMatchObject({
      ok: true,
      alg: 'ES256',
      kid: 'k1',
      issuer: ISSUER,
      audience: [AUD],
      identity: { namespace: 'apps', name: 'team-a', uid: 'sa-uid', pod: { name: 'p', uid: 'pod-uid' } },
    });
    expect(v.offline.expiresAt! - v.offline.issuedAt!).toBe(3600);
    expect(v.online).toEqual({ ok: true, username: 'system:serviceaccount:apps:team-a', audiences: [AUD] });
    expect(v.access).toEqual([{ repository: 'team-a/*', actions: ['pull'] }]);
    expect(v.tokenSha256).toBe(tokenSha256(token));
    expect(JSON.stringify(a.validations)).not.toContain(token);
    await a.validate(await mint({ sa: 'team-b' }));
    expect(calls).toEqual({ discovery: 1, jwks: 1, reviews: 2 });
  });

  test.each<[string, Mint, RegExp]>([
    ['another audience', { aud: 'other' }, /claim aud refused/],
    ['another issuer', { iss: 'https://evil' }, /claim iss refused/],
    ['an expired token', { iat: Math.floor(NOW / 1000) - 7200 }, /expired/],
    ['a token signed by another key', { foreign: true }, /signature does not verify/],
    [
      'a sub that does not match the kubernetes.io claims',
      { sub: 'system:serviceaccount:apps:admin' },
      /sub is "system:serviceaccount:apps:admin"/,
    ],
  ])('%s is refused offline, without asking the API server', async (_, o, reason) => {
    const { c, calls } = cluster();
    const token = await mint(o);
    const v = await auth(c).validate(token);
    expect(v.ok).toBe(false);
    expect(v.offline.reason).toMatch(reason);
    expect(v.online).toBeUndefined();
    expect(calls.reviews).toBe(0);
  });

  test('an unknown kid makes it fetch the JWKS again once (key rotation)', async () => {
    const { c, calls } = cluster();
    const v = await auth(c).validate(await mint({ kid: 'k2' }));
    expect(v.offline.reason).toMatch(/no key in the issuer's JWKS/);
    expect(calls.jwks).toBe(2);
  });

  test('a signature that verifies is not enough: a TokenReview that fails (pod deleted) refuses the token', async () => {
    const { c } = cluster(() => ({ authenticated: false, error: 'service account token has been invalidated' }));
    const v = await auth(c).validate(await mint());
    expect(v.offline.ok).toBe(true);
    expect(v.online).toEqual({ ok: false, reason: 'not authenticated: service account token has been invalidated' });
    expect(v.ok).toBe(false);
  });

  test('the authenticator decides the exchange user only; other users fall through to the user store', async () => {
    const { c } = cluster();
    const a = auth(c).authenticator();
    expect(await a('alice', 'pw')).toBe('pass');
    expect(await a(EXCHANGE_USERNAME, await mint({ sa: 'team-b' }))).toEqual({
      username: 'system:serviceaccount:apps:team-b',
      password: '',
      access: [{ repository: 'team-b/*', actions: ['pull'] }],
    });
    expect(await a(EXCHANGE_USERNAME, 'not-a-jwt')).toBeUndefined();
  });

  test('serviceAccountClaims names what is missing', () => {
    expect(serviceAccountClaims({ sub: 'x' })).toBe('no kubernetes.io claim');
    expect(serviceAccountClaims({ 'kubernetes.io': { namespace: 'a' } })).toMatch(/lacks namespace or serviceaccount/);
  });
});

describe('TokenServer with the exchange in front of its users', () => {
  let dir: string;
  let server: TokenServer;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-sa-exchange-'));
    server = await new TokenServer({
      issuer: 'iss',
      service: 'svc',
      lifetimeSeconds: 60,
      signing: await createSigningPair(dir),
      users: new MemoryUsers([{ username: 'admin', password: 'pw' }]),
    }).start();
    server.useAuthenticator(auth(cluster().c).authenticator());
  });
  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const post = async (username: string, password: string, scope: string) => {
    const body = new URLSearchParams({
      grant_type: 'password',
      client_id: 'containerd',
      username,
      password,
      scope,
      service: 'svc',
    }).toString();
    return send(server.realm, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
  };

  test("an SA token as the password gets its own team's repositories and nothing else", async () => {
    const token = await mint({ sa: 'team-a' });
    const own = await post(EXCHANGE_USERNAME, token, 'repository:team-a/app:pull');
    expect(own.status).toBe(200);
    expect(decodeJwt(own.json<{ access_token: string }>().access_token).access).toEqual([
      { type: 'repository', name: 'team-a/app', actions: ['pull'] },
    ]);
    const other = await post(EXCHANGE_USERNAME, token, 'repository:team-b/app:pull');
    expect(decodeJwt(other.json<{ access_token: string }>().access_token).access).toEqual([]);
    expect((await post(EXCHANGE_USERNAME, 'garbage', 'repository:team-a/app:pull')).status).toBe(401);
    expect((await post('admin', 'pw', 'repository:team-b/app:pull')).status).toBe(200);
  });
});
