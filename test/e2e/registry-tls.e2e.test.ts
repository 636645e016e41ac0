// TLS registries: the harness CA opens them, the system trust store does not.
import { describe, expect, afterAll, beforeAll, jest } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { Auth, RegistryClient, busyboxImage, processProvider, type StartedRegistry } from '../../registry/index.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';

// Real processes on a shared, busy machine: generous per-test time.
jest.setTimeout(60_000);

const provider = processProvider();
const it = testIf(all(await provider.isAvailable(), isRoot()));
const alice = { username: 'alice', password: 'alice-pw-1' };

describe.each([
  ['htpasswd', () => Auth.htpasswd([alice])],
  ['token', () => Auth.token({ users: [alice] })],
] as const)('TLS registry with %s auth', (mode, auth) => {
  let reg: StartedRegistry;
  beforeAll(async () => {
    if (!(await provider.isAvailable()).ok) return;
    reg = await provider.start({
      name: `e2e-tls-${mode}`,
      hostname: `tls-${mode}.registry.test`,
      auth: auth(),
      tls: true,
    });
    await reg.push(await busyboxImage());
  }, 30_000);
  afterAll(() => reg?.stop());

  it(`REG-TLS-CA-${mode}: a client trusting the harness CA pulls over https by hostname`, async () => {
    expect(reg.scheme).toBe('https');
    const c = new RegistryClient({
      baseUrl: `https://${reg.host}`,
      credentials: alice,
      ca: await readFile(reg.caCertPath!, 'utf8'),
    });
    expect(await c.canPull('credprov/busybox', 'latest')).toMatchObject({ ok: true });
  });

  it(`REG-TLS-NOCA-${mode}: a client without the CA fails the TLS handshake`, async () => {
    const c = new RegistryClient({ baseUrl: `https://${reg.host}`, credentials: alice });
    const r = await c.canPull('credprov/busybox', 'latest');
    expect(r).toMatchObject({ ok: false, step: 'connect' });
    expect(r.reason).toMatch(/self[- ]signed|unable to (get|verify)|certificate/i);
  });

  it(`REG-TLS-PLAIN-${mode}: plain http to the TLS port is refused`, async () => {
    const c = new RegistryClient({ baseUrl: `http://${reg.host}`, credentials: alice });
    expect((await c.canPull('credprov/busybox', 'latest')).ok).toBe(false);
  });
});
