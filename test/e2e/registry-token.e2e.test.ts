// A real distribution registry with token auth, against the harness's token
// server: challenge, GET and POST token flows, expiry, rotation, revocation,
// per-repository access rules.
import { describe, expect, afterAll, beforeAll, jest } from '@jest/globals';
import {
  Auth,
  RegistryClient,
  busyboxImage,
  processProvider,
  type StartedRegistry,
  type TokenServer,
} from '../../registry/index.ts';
import { send } from '../../src/core/http.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';

// Real processes on a shared, busy machine: generous per-test time.
jest.setTimeout(60_000);

const provider = processProvider();
const it = testIf(all(await provider.isAvailable(), isRoot()));
const alice = { username: 'alice', password: 'alice-pw-1' };
const carol = { username: 'carol', password: 'carol-pw-1' };
const teamOnly = {
  username: 'teamb',
  password: 'teamb-pw-1',
  access: [{ repository: 'team-b/*', actions: ['pull' as const] }],
};

describe('registry with token auth', () => {
  let reg: StartedRegistry;
  let tokens: TokenServer;
  const manifest = (token?: string, name = 'credprov/busybox') =>
    send(`${reg.url}/v2/${name}/manifests/latest`, {
      method: 'HEAD',
      headers: {
        accept: 'application/vnd.oci.image.manifest.v1+json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
    });

  beforeAll(async () => {
    if (!(await provider.isAvailable()).ok) return;
    reg = await provider.start({
      name: 'e2e-token',
      hostname: 'token.registry.test',
      auth: Auth.token({ users: [alice, carol, teamOnly], lifetimeSeconds: 60 }),
    });
    tokens = reg.tokenServer!;
    const image = await busyboxImage();
    await reg.push(image);
    await reg.push(image, { name: 'team-b/busybox' });
  }, 30_000);
  afterAll(() => reg?.stop());

  it('REG-TOKEN-CHALLENGE: anonymous requests get 401 with a Bearer challenge naming realm and service', async () => {
    const ping = await reg.client().ping();
    expect(ping.status).toBe(401);
    expect(ping.challenges[0]).toMatchObject({
      scheme: 'bearer',
      params: { realm: reg.auth.realm, service: 'credprov-registry' },
    });
    expect(await reg.client().canPull('credprov/busybox', 'latest')).toMatchObject({
      ok: false,
      status: 401,
      step: 'token',
    });
  });

  it('REG-TOKEN-GOOD: good credentials get a token (POST grant and GET with Basic) that opens the image', async () => {
    const post = new RegistryClient({
      baseUrl: reg.url,
      credentials: alice,
      tokenMethod: 'post',
      clientId: 'containerd-client',
    });
    expect(await post.canPull('credprov/busybox', 'latest')).toMatchObject({ ok: true });
    expect(tokens.requests.at(-1)).toMatchObject({
      method: 'POST',
      clientId: 'containerd-client',
      account: 'alice',
      status: 200,
    });
    const get = new RegistryClient({ baseUrl: reg.url, credentials: alice, tokenMethod: 'get' });
    expect(await get.canPull('credprov/busybox', 'latest')).toMatchObject({ ok: true });
    expect(tokens.requests.at(-1)).toMatchObject({ method: 'GET', account: 'alice', status: 200 });
  });

  it('REG-TOKEN-BAD: a wrong password gets no token, by either flow', async () => {
    for (const tokenMethod of ['post', 'get'] as const) {
      const c = new RegistryClient({
        baseUrl: reg.url,
        credentials: { username: 'alice', password: 'nope' },
        tokenMethod,
      });
      expect(await c.canPull('credprov/busybox', 'latest')).toMatchObject({ ok: false, status: 401, step: 'token' });
    }
  });

  it('REG-TOKEN-EXPIRY: an expired token gets 401 from the registry and a fresh token works', async () => {
    const scope = ['repository:credprov/busybox:pull'];
    // Minted two hours in the past: expired well beyond any clock-skew leeway.
    tokens.setClock(() => Date.now() - 2 * 3600_000);
    const stale = await new RegistryClient({ baseUrl: reg.url, credentials: alice }).token(scope);
    tokens.setClock(undefined);
    expect((await manifest(stale)).status).toBe(401);
    const fresh = await new RegistryClient({ baseUrl: reg.url, credentials: alice }).token(scope);
    expect((await manifest(fresh)).status).toBe(200);
  });

  it('REG-TOKEN-ROTATE: after a rotation the old password gets no token and the new one does', async () => {
    await reg.users.rotate('carol', 'carol-pw-2');
    expect(await reg.client(carol).canPull('credprov/busybox', 'latest')).toMatchObject({
      ok: false,
      status: 401,
      step: 'token',
    });
    expect(
      await reg.client({ username: 'carol', password: 'carol-pw-2' }).canPull('credprov/busybox', 'latest'),
    ).toMatchObject({ ok: true });
  });

  it('REG-TOKEN-REVOKE: a revoked user gets no new token', async () => {
    await reg.users.revoke('carol');
    expect(
      await reg.client({ username: 'carol', password: 'carol-pw-2' }).canPull('credprov/busybox', 'latest'),
    ).toMatchObject({ ok: false, status: 401, step: 'token' });
    expect(await reg.client(alice).canPull('credprov/busybox', 'latest')).toMatchObject({ ok: true });
  });

  it('REG-TOKEN-ACCESS: an access rule opens its repositories and denies another one', async () => {
    expect(await reg.client(teamOnly).canPull('team-b/busybox', 'latest')).toMatchObject({ ok: true });
    const denied = await reg.client(teamOnly).canPull('credprov/busybox', 'latest');
    expect(denied).toMatchObject({ ok: false, status: 401, step: 'manifest' });
    expect(tokens.requests.at(-1)).toMatchObject({ account: 'teamb', granted: [] });
    // pull-only: the same user cannot push to its own repository.
    await expect(reg.client(teamOnly).push(await busyboxImage(), 'team-b/other', 'latest')).rejects.toThrow(/401/);
  });
});
