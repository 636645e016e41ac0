import { afterEach, describe, expect, it } from '@jest/globals';
import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import { TokenBook } from '../../authn/token-book.ts';
import { JWT_BEARER_GRANT, startFakeGoogleOAuth, type FakeGoogleOAuth } from './index.ts';

const SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const EMAIL = 'sa@p.iam.gserviceaccount.com';
const pair = () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    pkcs8: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    spki: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
};
const key = pair();
const other = pair();

let fake: FakeGoogleOAuth | undefined;
afterEach(async () => {
  await fake?.stop();
  fake = undefined;
});

async function start(book = new TokenBook()) {
  fake = await startFakeGoogleOAuth({ book, scopes: [SCOPE], tokenLifetimeMs: 600_000 });
  fake.addAccount({ email: EMAIL, keyId: 'kid-1', publicKeyPem: key.spki, subject: 'sa' });
  return { fake, book };
}

interface Claims {
  target_audience?: string;
  iss?: string;
  aud?: string;
  scope?: string;
  iat?: number;
  exp?: number;
}
async function assertion(o: { pem?: string; kid?: string; alg?: string; claims?: Claims } = {}) {
  const now = Math.floor(Date.now() / 1000) - 10;
  const claims: Claims = { iss: EMAIL, aud: fake!.tokenUri, scope: SCOPE, iat: now, exp: now + 3600, ...o.claims };
  const jwt = new SignJWT({ ...claims });
  return jwt.setProtectedHeader({ alg: o.alg ?? 'RS256', kid: o.kid ?? 'kid-1', typ: 'JWT' }).sign(
    // The HMAC case signs with the public key as the secret: the classic RS256/HS256 confusion.
    o.alg === 'HS256' ? createSecretKey(Buffer.from(key.spki)) : await importPKCS8(o.pem ?? key.pkcs8, 'RS256'),
  );
}

async function grant(body: Record<string, string>) {
  const r = await fetch(fake!.tokenUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

describe('fake Google token endpoint', () => {
  it('issues a token for a valid assertion, into the book, and records it without secrets', async () => {
    const { book } = await start();
    const a = await assertion();
    const r = await grant({ grant_type: JWT_BEARER_GRANT, assertion: a });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ expires_in: 600, token_type: 'Bearer' });
    const token = String(r.json.access_token);
    expect(book.lookup(token).verdict).toBe('authenticated');
    const log = JSON.stringify(fake!.requests());
    expect(log).not.toContain(token);
    expect(log).not.toContain(a);
    expect(fake!.requests()[0]).toMatchObject({ status: 200, issued: { subject: 'sa', expiresIn: 600 } });
    expect(fake!.revoke({ subject: 'sa' })).toHaveLength(1);
    expect(book.lookup(token).verdict).toBe('revoked');
  });

  it.each([
    ['another key under the kid', { pem: other.pkcs8 }, 'Invalid JWT Signature.'],
    ['an unknown kid', { kid: 'kid-2' }, 'no service account key'],
    ['an HMAC alg', { alg: 'HS256' }, 'not RS256'],
    ['another issuer', { claims: { iss: 'x@p.iam.gserviceaccount.com' } }, 'iss is not'],
    ['another audience', { claims: { aud: 'https://example.test/token' } }, 'aud is neither'],
    ['an unknown scope', { claims: { scope: `${SCOPE} https://example.test/x` } }, 'Invalid scope'],
    ['an expired assertion', { claims: { iat: 1000, exp: 2000 } }, 'short-lived'],
    [
      'iat in the future',
      { claims: { iat: Math.floor(Date.now() / 1000) + 600, exp: Math.floor(Date.now() / 1000) + 900 } },
      'future',
    ],
    ['a lifetime over an hour', { claims: { exp: Math.floor(Date.now() / 1000) + 7200 } }, 'more than an hour'],
  ])('refuses %s', async (_what, o, says) => {
    const { book } = await start();
    const r = await grant({
      grant_type: JWT_BEARER_GRANT,
      assertion: await assertion(o as Parameters<typeof assertion>[0]),
    });
    expect(r.status).toBe(400);
    expect(String(r.json.error_description)).toContain(says);
    expect(book.list()).toHaveLength(0);
  });

  it("accepts Google's own token URL as aud (google-auth signs for it), and answers a target_audience grant with an ID token", async () => {
    const { book } = await start();
    const a = await assertion({ claims: { aud: 'https://oauth2.googleapis.com/token' } });
    expect((await grant({ grant_type: JWT_BEARER_GRANT, assertion: a })).status).toBe(200);
    const id = await grant({
      grant_type: JWT_BEARER_GRANT,
      assertion: await assertion({ claims: { scope: undefined, target_audience: 'x.apps.googleusercontent.com' } }),
    });
    expect(id.status).toBe(200);
    expect(Object.keys(id.json)).toEqual(['id_token']);
    // Only the access token is in the book: nothing accepts an ID token.
    expect(book.list()).toHaveLength(1);
    expect(fake!.requests()[1]).toMatchObject({ idToken: { audience: 'x.apps.googleusercontent.com' } });
  });

  it('refuses other grant types and other paths', async () => {
    await start();
    expect((await grant({ grant_type: 'client_credentials' })).json.error).toBe('unsupported_grant_type');
    const r = await fetch(fake!.tokenUri.replace('/token', '/revoke'), { method: 'POST' });
    expect(r.status).toBe(404);
    expect(fake!.requests().map((x) => x.status)).toEqual([400, 404]);
  });
});
