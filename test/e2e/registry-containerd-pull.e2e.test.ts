// A real containerd pulls the harness's images from the harness's registries:
// with credentials it succeeds for every auth mode (TLS included) and the
// image runs; without credentials it fails. Proves registries, token server,
// image builder and certs.d trust work for the component the kubelet drives.
import { describe, expect, afterAll, beforeAll, jest } from '@jest/globals';
import { Auth, busyboxImage, processProvider, type AuthSpec, type StartedRegistry } from '../../registry/index.ts';
import { findContainerd, PrivateContainerd } from '../../src/engine/containerd.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';

// Real processes on a shared, busy machine: generous per-test time.
jest.setTimeout(60_000);

const provider = processProvider();
const bins = await findContainerd();
const it = testIf(
  all(await provider.isAvailable(), isRoot(), 'missing' in bins ? { ok: false, reason: bins.missing } : { ok: true }),
);
const alice = { username: 'alice', password: 'alice-pw-1' };
const MARKER = 'credprov-pull-marker';

const cases: Array<{ id: string; auth: () => AuthSpec; tls: boolean }> = [
  { id: 'HTPASSWD', auth: () => Auth.htpasswd([alice]), tls: false },
  { id: 'HTPASSWD-TLS', auth: () => Auth.htpasswd([alice]), tls: true },
  { id: 'TOKEN', auth: () => Auth.token({ users: [alice] }), tls: false },
  { id: 'TOKEN-TLS', auth: () => Auth.token({ users: [alice] }), tls: true },
];

describe('containerd pulls from credprov registries', () => {
  let ctd: PrivateContainerd | undefined;
  const regs = new Map<string, { reg: StartedRegistry; ref: string }>();

  beforeAll(async () => {
    if ('missing' in bins || !(await provider.isAvailable()).ok) return;
    // Registries (and their /etc/hosts lines) first: Go programs such as
    // containerd cache /etc/hosts for 5 s and would not see a newer line.
    const image = await busyboxImage({ marker: MARKER });
    for (const { id, auth, tls } of cases) {
      const reg = await provider.start({
        name: `e2e-ctd-${id.toLowerCase()}`,
        hostname: `ctd-${id.toLowerCase()}.registry.test`,
        auth: auth(),
        tls,
      });
      regs.set(id, { reg, ref: await reg.push(image) });
    }
    ctd = await PrivateContainerd.start(bins);
    for (const { reg } of regs.values()) await reg.trustForContainerd(ctd.hostsDir);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([...regs.values()].map(({ reg }) => reg.stop()));
    await ctd?.stop();
  });

  describe.each(cases)('$id', ({ id, tls }) => {
    let reg: StartedRegistry;
    let ref: string;
    beforeAll(() => {
      const r = regs.get(id);
      if (r) ({ reg, ref } = r);
    });

    it(`REG-PULL-${id}-NOCREDS: containerd without credentials is refused`, async () => {
      const r = await ctd!.pull(ref, { plainHttp: !tls });
      expect(r.ok).toBe(false);
      expect(r.output).toMatch(/401|unauthorized|authorization|no basic auth credentials/i);
    });

    it(`REG-PULL-${id}-BADCREDS: containerd with a wrong password is refused`, async () => {
      const r = await ctd!.pull(ref, { plainHttp: !tls, credentials: { username: 'alice', password: 'wrong' } });
      expect(r.ok).toBe(false);
    });

    it(`REG-PULL-${id}-CREDS: containerd with credentials pulls the image and it runs`, async () => {
      const r = await ctd!.pull(ref, { plainHttp: !tls, credentials: alice });
      expect(r).toMatchObject({ ok: true });
      const run = await ctd!.runOnce(ref, `e2e-${id.toLowerCase()}`);
      expect(run.output).toContain(MARKER);
      if (reg.tokenServer) {
        // containerd with credentials asks the token server with an OAuth2 password grant.
        expect(reg.tokenServer.requests.filter((q) => q.status === 200).at(-1)).toMatchObject({
          method: 'POST',
          clientId: 'containerd-client',
          account: 'alice',
        });
      }
    }, 60_000);
  });
});
