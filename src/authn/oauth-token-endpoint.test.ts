import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { useTempDir } from '../testing/tmp.ts';
import { clientSubject, TOKEN_PATH } from './oauth-token-endpoint.ts';
import { DISCOVERY_PATH, startOidcIssuer, type StartedOidcIssuer } from './oidc-issuer.ts';
import { tokenFingerprint } from './token-book.ts';
import { ensureTokenWebhookFiles } from './webhook-files.ts';

type Answer = { status: number; body: Record<string, unknown>; headers: Record<string, unknown> };

function call(url: string, ca: string, o: { form?: Record<string, string>; basic?: string; method?: string }) {
  return new Promise<Answer>((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (o.basic) headers.authorization = `Basic ${Buffer.from(o.basic).toString('base64')}`;
    request(url, { ca, method: o.method ?? 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += String(c)));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(text) as Record<string, unknown>,
          headers: res.headers,
        }),
      );
    })
      .on('error', reject)
      .end(o.form ? new URLSearchParams(o.form).toString() : undefined);
  });
}

describe('OAuth2 token endpoint of the OIDC issuer (real HTTPS, jose verifying)', () => {
  const tmp = useTempDir('credprov-oauth-');
  let issuer: StartedOidcIssuer;
  let ca: string;
  const secrets: string[] = [];
  const pw = { grant_type: 'password', username: 'alice', password: 'pw-alice', scope: 'openid' };

  beforeAll(async () => {
    const files = await ensureTokenWebhookFiles(`unit-oauth-${process.pid}`, { CREDPROV_STATE_DIR: tmp() });
    ca = await readFile(files.caFile, 'utf8');
    issuer = await startOidcIssuer({
      address: files.address,
      port: files.issuerPort,
      certFile: files.certFile,
      keyFile: files.keyFile,
      audiences: ['app'],
      token: {
        clients: [
          { id: 'app', secret: 's3cret', grants: ['password', 'refresh_token'] },
          { id: 'robot', secret: 'r0bot', grants: ['client_credentials'] },
        ],
        users: [{ username: 'alice', password: 'pw-alice', idTokenLifetimeSec: 30 }],
        accessTokenAudience: 'api',
        idTokenLifetimeSec: 600,
        accessTokenLifetimeSec: 300,
        onSecret: (s) => secrets.push(s),
      },
    });
  });
  afterAll(async () => issuer?.stop());
  const url = () => `${issuer.url}${TOKEN_PATH}`;
  const verify = async (token: string, audience: string) => {
    const jwks = createLocalJWKSet(
      (await call(`${issuer.url}/jwks`, ca, { method: 'GET' })).body as unknown as JSONWebKeySet,
    );
    return (await jwtVerify(token, jwks, { issuer: issuer.url, audience })).payload;
  };

  test('discovery names the token endpoint and its grants', async () => {
    const d = await call(`${issuer.url}${DISCOVERY_PATH}`, ca, { method: 'GET' });
    expect(d.body).toMatchObject({
      token_endpoint: url(),
      grant_types_supported: ['password', 'client_credentials', 'refresh_token'],
    });
  });

  test('password grant with Basic client auth: id_token for the client, access_token for the resource, refresh token; recorded without secrets', async () => {
    const r = await call(url(), ca, { form: pw, basic: 'app:s3cret' });
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
    const id = await verify(String(r.body.id_token), 'app');
    expect(id.sub).toBe('alice');
    expect(id.exp! - id.iat!).toBe(30);
    expect((await verify(String(r.body.access_token), 'api')).sub).toBe('alice');
    expect(secrets).toEqual(expect.arrayContaining([r.body.id_token, r.body.access_token, r.body.refresh_token]));
    const rec = issuer.tokenEndpoint!.requests().at(-1)!;
    expect(rec).toMatchObject({ grantType: 'password', clientAuth: 'basic', username: 'alice', status: 200 });
    expect(rec.issued?.idTokenSha256).toBe(tokenFingerprint(String(r.body.id_token)));
    const text = JSON.stringify(issuer.tokenEndpoint!.requests());
    for (const s of ['pw-alice', 's3cret', ...secrets]) expect(text).not.toContain(s);
  });

  test('client auth in the body works; both at once, a wrong secret, a wrong password and a grant the client may not use are refused', async () => {
    expect((await call(url(), ca, { form: { ...pw, client_id: 'app', client_secret: 's3cret' } })).status).toBe(200);
    const both = await call(url(), ca, {
      form: { ...pw, client_id: 'app', client_secret: 's3cret' },
      basic: 'app:s3cret',
    });
    expect(both).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const wrong = await call(url(), ca, { form: pw, basic: 'app:nope' });
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
    expect(await call(url(), ca, { form: { ...pw, password: 'x' }, basic: 'app:s3cret' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(
      await call(url(), ca, { form: { grant_type: 'client_credentials', scope: 'openid' }, basic: 'app:s3cret' }),
    ).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
  });

  test('client credentials: the client is the subject, no refresh token', async () => {
    const r = await call(url(), ca, {
      form: { grant_type: 'client_credentials', scope: 'openid' },
      basic: 'robot:r0bot',
    });
    expect(r.status).toBe(200);
    expect(r.body.refresh_token).toBeUndefined();
    expect((await verify(String(r.body.id_token), 'robot')).sub).toBe(clientSubject('robot'));
  });

  test('refresh: works for its client only, and not after revocation', async () => {
    const first = await call(url(), ca, { form: pw, basic: 'app:s3cret' });
    const rt = String(first.body.refresh_token);
    const refreshed = await call(url(), ca, {
      form: { grant_type: 'refresh_token', refresh_token: rt },
      basic: 'app:s3cret',
    });
    expect(refreshed.status).toBe(200);
    expect((await verify(String(refreshed.body.id_token), 'app')).sub).toBe('alice');
    expect(issuer.tokenEndpoint!.requests().at(-1)).toMatchObject({ grantType: 'refresh_token', username: 'alice' });
    expect(issuer.tokenEndpoint!.revokeRefreshTokens('alice')).toBeGreaterThan(0);
    expect(
      await call(url(), ca, { form: { grant_type: 'refresh_token', refresh_token: rt }, basic: 'app:s3cret' }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'refresh token revoked' } });
  });
});
