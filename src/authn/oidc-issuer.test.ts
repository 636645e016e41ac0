import { describe, expect, test, afterAll, beforeAll } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { parse } from 'yaml';
import { useTempDir } from '../testing/tmp.ts';
import { ensureAuthenticationConfig, JWT_USERNAME_PREFIX } from './authentication-config.ts';
import { DISCOVERY_PATH, startOidcIssuer, type StartedOidcIssuer } from './oidc-issuer.ts';
import { ensureTokenWebhookFiles, OIDC_ISSUER_PORT, type TokenWebhookFiles } from './webhook-files.ts';

function get(url: string, ca: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    request(url, { ca }, (res) => {
      let text = '';
      res.on('data', (c) => (text += String(c)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    })
      .on('error', reject)
      .end();
  });
}

describe('OIDC issuer (real HTTPS server, jose verifying)', () => {
  const tmp = useTempDir('credprov-oidc-');
  let files: TokenWebhookFiles;
  let issuer: StartedOidcIssuer;
  let ca: string;

  beforeAll(async () => {
    files = await ensureTokenWebhookFiles(`unit-oidc-${process.pid}`, { CREDPROV_STATE_DIR: tmp() });
    ca = await readFile(files.caFile, 'utf8');
    issuer = await startOidcIssuer({
      address: files.address,
      port: files.issuerPort,
      certFile: files.certFile,
      keyFile: files.keyFile,
      audiences: ['aud-a'],
    });
  });
  afterAll(async () => issuer?.stop());

  const jwks = async () => (await get(`${issuer.url}/jwks`, ca)).body as JSONWebKeySet;

  test('serves discovery on the webhook address at port 9444 with the webhook CA, and its JWKS verifies what it signs', async () => {
    expect(issuer.url).toBe(`https://${files.address}:${OIDC_ISSUER_PORT}`);
    expect(files.issuerUrl).toBe(issuer.url);
    const d = await get(`${issuer.url}${DISCOVERY_PATH}`, ca);
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ issuer: issuer.url, jwks_uri: `${issuer.url}/jwks` });
    const token = await issuer.sign({ subject: 'alice' });
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(await jwks()), {
      issuer: issuer.url,
      audience: 'aud-a',
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: issuer.currentKid() });
    expect(payload).toMatchObject({ sub: 'alice', iss: issuer.url, aud: 'aud-a' });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(payload.nbf).toBe(payload.iat);
  });

  test('rotation: a removed key leaves the JWKS (its tokens no longer verify there) but can still sign; the added key signs new tokens', async () => {
    const old = issuer.currentKid();
    const added = await issuer.addKey();
    issuer.removeKey(old);
    expect(issuer.servedKids()).toEqual([added]);
    const set = await jwks();
    expect(set.keys.map((k) => k.kid)).toEqual([added]);
    const fromOld = await issuer.sign({ subject: 'bob', kid: old });
    expect(decodeProtectedHeader(fromOld).kid).toBe(old);
    await expect(jwtVerify(fromOld, createLocalJWKSet(set))).rejects.toThrow(/no applicable key/i);
    const fromNew = await issuer.sign({ subject: 'bob' });
    expect(decodeProtectedHeader(fromNew).kid).toBe(added);
    await expect(jwtVerify(fromNew, createLocalJWKSet(set), { audience: 'aud-a' })).resolves.toBeDefined();
  });

  test('an exp in the past fails verification; every fetch is recorded with the kids served', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await issuer.sign({ subject: 'carol', iat: now - 20, exp: now - 10 });
    await expect(jwtVerify(expired, createLocalJWKSet(await jwks()))).rejects.toThrow(/exp/);
    const f = issuer.fetches();
    expect(f[0]).toMatchObject({ what: 'discovery' });
    expect(f.filter((x) => x.what === 'jwks').at(-1)!.kids).toEqual(issuer.servedKids());
    expect(() => issuer.removeKey('nope')).toThrow(/no key nope/);
  });

  test('a second issuer on the same address is refused, naming the address', async () => {
    await expect(
      startOidcIssuer({
        address: files.address,
        port: files.issuerPort,
        certFile: files.certFile,
        keyFile: files.keyFile,
        audiences: ['x'],
      }),
    ).rejects.toThrow(/is in use/);
  });

  test('the AuthenticationConfiguration names the issuer, its CA and audiences, with oidc: usernames; its path follows its content', async () => {
    const file = await ensureAuthenticationConfig(files, ['aud-a'], 'v1.37.1');
    const cfg = parse(await readFile(file, 'utf8')) as {
      apiVersion: string;
      kind: string;
      jwt: Array<{ issuer: Record<string, unknown>; claimMappings: unknown }>;
    };
    expect(cfg.apiVersion).toBe('apiserver.config.k8s.io/v1');
    expect(cfg.kind).toBe('AuthenticationConfiguration');
    expect(cfg.jwt[0]!.issuer).toEqual({ url: issuer.url, certificateAuthority: ca, audiences: ['aud-a'] });
    expect(cfg.jwt[0]!.claimMappings).toEqual({ username: { claim: 'sub', prefix: JWT_USERNAME_PREFIX } });
    expect(await ensureAuthenticationConfig(files, ['aud-a'], 'v1.37.1')).toBe(file);
    const other = await ensureAuthenticationConfig(files, ['aud-a', 'aud-b'], 'v1.37.1');
    expect(other).not.toBe(file);
    await expect(readFile(file)).rejects.toThrow();
  });
});
