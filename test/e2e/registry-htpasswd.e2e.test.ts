// A real distribution registry with htpasswd auth, reached under its own
// hostname (an /etc/hosts entry the harness adds and removes).
import { describe, expect, afterAll, beforeAll, jest } from '@jest/globals';
import { Auth, RegistryClient, busyboxImage, processProvider, type StartedRegistry } from '../../registry/index.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';

// Real processes on a shared, busy machine: generous per-test time.
jest.setTimeout(60_000);

const provider = processProvider();
const it = testIf(all(await provider.isAvailable(), isRoot()));
const alice = { username: 'alice', password: 'alice-pw-1' };
const bob = { username: 'bob', password: 'bob-pw-1' };

describe('registry with htpasswd auth', () => {
  let reg: StartedRegistry;
  beforeAll(async () => {
    if (!(await provider.isAvailable()).ok) return;
    reg = await provider.start({
      name: 'e2e-htpasswd',
      hostname: 'htpasswd.registry.test',
      auth: Auth.htpasswd([alice, bob]),
    });
    await reg.push(await busyboxImage());
  }, 30_000);
  afterAll(() => reg?.stop());

  it('REG-ANON-401: an anonymous request is challenged with 401 and a Basic realm', async () => {
    const ping = await reg.client().ping();
    expect(ping.status).toBe(401);
    expect(ping.challenges[0]).toMatchObject({ scheme: 'basic', params: { realm: 'credprov' } });
    expect(await reg.client().canPull('credprov/busybox', 'latest')).toMatchObject({ ok: false, status: 401 });
  });

  it('REG-GOOD-200: good credentials read the manifest, through the registry hostname too', async () => {
    expect(await reg.client(alice).canPull('credprov/busybox', 'latest')).toMatchObject({ ok: true, status: 200 });
    const byName = new RegistryClient({ baseUrl: `http://${reg.host}`, credentials: alice });
    expect(await byName.canPull('credprov/busybox', 'latest')).toMatchObject({ ok: true });
  });

  it('REG-BAD-401: a wrong password is refused with 401', async () => {
    expect(
      await reg.client({ username: 'alice', password: 'wrong' }).canPull('credprov/busybox', 'latest'),
    ).toMatchObject({ ok: false, status: 401 });
  });

  it('REG-ROTATE: after a rotation the old password stops working and the new one works', async () => {
    await reg.users.rotate('alice', 'alice-pw-2');
    expect(await reg.client(alice).canPull('credprov/busybox', 'latest')).toMatchObject({ ok: false, status: 401 });
    expect(
      await reg.client({ username: 'alice', password: 'alice-pw-2' }).canPull('credprov/busybox', 'latest'),
    ).toMatchObject({ ok: true });
  }, 20_000);

  it('REG-REVOKE: a revoked user is refused while the others keep working', async () => {
    await reg.users.revoke('bob');
    expect(await reg.client(bob).canPull('credprov/busybox', 'latest')).toMatchObject({ ok: false, status: 401 });
    expect(
      await reg.client({ username: 'alice', password: 'alice-pw-2' }).canPull('credprov/busybox', 'latest'),
    ).toMatchObject({ ok: true });
  }, 20_000);
});

describe('several registries at once', () => {
  const regs: StartedRegistry[] = [];
  afterAll(() => Promise.all(regs.map((r) => r.stop())));

  it('REG-MULTI: three registries run side by side, each under its own hostname and port', async () => {
    const specs = [
      { name: 'e2e-multi-a', hostname: 'a.registry.test', auth: Auth.none() },
      { name: 'e2e-multi-b', hostname: 'b.other.test', auth: Auth.htpasswd([alice]) },
      { name: 'e2e-multi-c', hostname: 'c.registry.test', address: '127.0.0.3', auth: Auth.htpasswd([bob]) },
    ];
    for (const s of specs) regs.push(await provider.start(s));
    expect(new Set(regs.map((r) => r.host)).size).toBe(3);
    const image = await busyboxImage();
    for (const r of regs) await r.push(image);
    expect(
      await new RegistryClient({ baseUrl: `http://${regs[0]!.host}` }).canPull('credprov/busybox', 'latest'),
    ).toMatchObject({ ok: true });
    expect(
      await new RegistryClient({ baseUrl: `http://${regs[1]!.host}`, credentials: alice }).canPull(
        'credprov/busybox',
        'latest',
      ),
    ).toMatchObject({ ok: true });
    expect(
      await new RegistryClient({ baseUrl: `http://${regs[2]!.host}`, credentials: alice }).canPull(
        'credprov/busybox',
        'latest',
      ),
    ).toMatchObject({ ok: false, status: 401 });
    expect(
      await new RegistryClient({ baseUrl: `http://${regs[2]!.host}`, credentials: bob }).canPull(
        'credprov/busybox',
        'latest',
      ),
    ).toMatchObject({ ok: true });
  }, 30_000);
});
