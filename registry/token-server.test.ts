import { describe, test, expect, beforeAll, afterAll } from '@jest/globals';
import { mkdtemp, rm, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader, importX509, jwtVerify } from 'jose';
import { send, basicAuth } from '../src/core/http.ts';
import { createSigningPair, type KeyPair } from '../src/core/tls.ts';
import { globMatch, grantedAccess, MemoryUsers, TokenServer } from './token-server.ts';

describe('access rules', () => {
  test('a glob star spans path segments', () => {
    expect(globMatch('team/*', 'team/a/b')).toBe(true);
    expect(globMatch('team/*', 'other/a')).toBe(false);
    expect(globMatch('exact', 'exactly')).toBe(false);
  });

  test('grant only the asked actions the rules allow, per repository', () => {
    const user = { access: [{ repository: 'team/*', actions: ['pull' as const] }] };
    expect(
      grantedAccess(user, [
        { type: 'repository', name: 'team/app', actions: ['pull', 'push'] },
        { type: 'repository', name: 'other/app', actions: ['pull'] },
      ]),
    ).toEqual([{ type: 'repository', name: 'team/app', actions: ['pull'] }]);
  });

  test('users without rules get pull and push everywhere', () => {
    expect(grantedAccess({}, [{ type: 'repository', name: 'x', actions: ['pull', 'push', 'delete'] }])).toEqual([
      { type: 'repository', name: 'x', actions: ['pull', 'push'] },
    ]);
  });
});

describe('TokenServer', () => {
  let dir: string;
  let signing: KeyPair;
  let server: TokenServer;
  const users = new MemoryUsers([{ username: 'alice', password: 'pw' }]);
  const now = Date.UTC(2030, 0, 1);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-token-'));
    signing = await createSigningPair(dir);
    server = await new TokenServer({
      issuer: 'iss',
      service: 'svc',
      lifetimeSeconds: 120,
      signing,
      users,
      clock: () => now,
    }).start();
  });
  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('a GET with good Basic credentials gets an RS256 token with x5c and the registry claims', async () => {
    const res = await send(`${server.realm}?service=svc&scope=repository:a/b:pull&account=alice`, {
      headers: { authorization: basicAuth('alice', 'pw') },
    });
    expect(res.status).toBe(200);
    const body = res.json<{ token: string; access_token: string; expires_in: number }>();
    expect(body.access_token).toBe(body.token);
    expect(body.expires_in).toBe(120);
    const header = decodeProtectedHeader(body.token);
    expect(header.alg).toBe('RS256');
    expect(header.x5c).toHaveLength(1);
    const claims = decodeJwt(body.token);
    expect(claims).toMatchObject({
      iss: 'iss',
      aud: 'svc',
      sub: 'alice',
      iat: now / 1000,
      nbf: now / 1000,
      exp: now / 1000 + 120,
      access: [{ type: 'repository', name: 'a/b', actions: ['pull'] }],
    });
    expect(typeof claims.jti).toBe('string');
    const key = await importX509(await readFile(signing.certPath, 'utf8'), 'RS256');
    await expect(jwtVerify(body.token, key, { currentDate: new Date(now) })).resolves.toBeDefined();
  });

  test('a POST password grant (containerd) gets an access_token; the request is recorded without the password', async () => {
    const form = new URLSearchParams({
      grant_type: 'password',
      client_id: 'containerd-client',
      username: 'alice',
      password: 'pw',
      scope: 'repository:a/b:pull',
      service: 'svc',
    });
    const res = await send(server.realm, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(res.status).toBe(200);
    expect(res.json<{ token_type: string }>().token_type).toBe('Bearer');
    expect(server.requests.at(-1)).toMatchObject({
      method: 'POST',
      account: 'alice',
      clientId: 'containerd-client',
      status: 200,
    });
    expect(JSON.stringify(server.requests)).not.toContain('"pw"');
  });

  test('anonymous and wrong-password requests get 401 and no token', async () => {
    const anon = await send(`${server.realm}?service=svc&scope=repository:a/b:pull`);
    expect(anon.status).toBe(401);
    expect(anon.headers['www-authenticate']).toMatch(/^Basic /);
    const bad = await send(`${server.realm}?service=svc`, { headers: { authorization: basicAuth('alice', 'nope') } });
    expect(bad.status).toBe(401);
    expect(bad.text()).not.toMatch(/token/);
  });

  test('rotation and revocation apply to the next request', async () => {
    users.rotate('alice', 'pw2');
    expect((await send(server.realm, { headers: { authorization: basicAuth('alice', 'pw') } })).status).toBe(401);
    expect((await send(server.realm, { headers: { authorization: basicAuth('alice', 'pw2') } })).status).toBe(200);
    users.revoke('alice');
    expect((await send(server.realm, { headers: { authorization: basicAuth('alice', 'pw2') } })).status).toBe(401);
    users.add({ username: 'alice', password: 'pw' });
  });

  test('the clock can be moved to mint tokens that are already expired', async () => {
    server.setClock(() => now - 3600_000);
    const res = await send(server.realm, { headers: { authorization: basicAuth('alice', 'pw') } });
    server.setClock(undefined);
    expect(decodeJwt(res.json<{ token: string }>().token).exp).toBe((now - 3600_000) / 1000 + 120);
  });
});
