// The container provider: distribution in a Docker container built locally
// (no image pull), same auth, TLS and cleanup guarantees as the process provider.
// Uses $DOCKER_HOST's daemon when one answers, else starts a private dockerd.
import { describe, expect, afterAll, beforeAll, jest } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { Auth } from '../../registry/auth.ts';
import { RegistryClient } from '../../registry/client.ts';
import { containerProvider } from '../../registry/container.ts';
import { PrivateDockerd } from '../../registry/dockerd.ts';
import { busyboxImage } from '../../registry/image/test-images.ts';
import type { RegistryProvider, StartedRegistry } from '../../registry/provider.ts';
import { readState } from '../../registry/state.ts';
import { HostsFile } from '../../src/core/hosts.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';

// Real processes on a shared, busy machine: generous per-test time.
jest.setTimeout(60_000);

const existing = await containerProvider().isAvailable();
// Optional tier (like kind): without Docker it skips, also in CI.
const it = testIf(all(isRoot(), existing.ok ? { ok: true } : await PrivateDockerd.available()), { optional: true });
const alice = { username: 'alice', password: 'alice-pw-1' };

describe('container provider', () => {
  let dockerd: PrivateDockerd | undefined;
  let provider: RegistryProvider;
  let host: string | undefined;
  beforeAll(async () => {
    if (!existing.ok && (await PrivateDockerd.available()).ok) {
      dockerd = await PrivateDockerd.start();
      host = dockerd.host;
    }
    provider = containerProvider(host ? { dockerHost: host } : {});
  }, 60_000);
  afterAll(() => dockerd?.stop(), 60_000);

  describe('htpasswd', () => {
    let reg: StartedRegistry;
    beforeAll(async () => {
      if (!(await provider.isAvailable()).ok) return;
      reg = await provider.start({ name: 'e2e-container', hostname: 'container.registry.test', auth: Auth.htpasswd([alice]) });
      await reg.push(await busyboxImage());
    }, 60_000);
    afterAll(() => reg?.stop());

    it('REG-CONTAINER-AUTH: anonymous gets 401, good credentials read the image, a rotation restarts the container', async () => {
      expect(await reg.client().canPull('credprov/busybox', 'latest')).toMatchObject({ ok: false, status: 401 });
      expect(await new RegistryClient({ baseUrl: `http://${reg.host}`, credentials: alice }).canPull('credprov/busybox', 'latest')).toMatchObject({ ok: true });
      await reg.users.rotate('alice', 'alice-pw-2');
      expect(await reg.client(alice).canPull('credprov/busybox', 'latest')).toMatchObject({ ok: false, status: 401 });
      expect(await reg.client({ username: 'alice', password: 'alice-pw-2' }).canPull('credprov/busybox', 'latest')).toMatchObject({ ok: true });
    }, 60_000);
  });

  it('REG-CONTAINER-TOKEN-TLS: token auth over TLS works, and stop() removes container, hosts line and dir', async () => {
    const reg = await provider.start({ name: 'e2e-container-tls', hostname: 'container-tls.registry.test', auth: Auth.token({ users: [alice] }), tls: true });
    const state = (await readState(reg.dir))!;
    try {
      await reg.push(await busyboxImage());
      const c = new RegistryClient({ baseUrl: `https://${reg.host}`, credentials: alice, ca: await readFile(reg.caCertPath!, 'utf8') });
      expect(await c.canPull('credprov/busybox', 'latest')).toMatchObject({ ok: true });
    } finally {
      await reg.stop();
    }
    const ps = await execa('docker', ['ps', '-aq', '--filter', `id=${state.containerId}`], { env: host ? { DOCKER_HOST: host } : {} });
    expect(ps.stdout.trim()).toBe('');
    expect((await new HostsFile().entries()).some((e) => e.owner.startsWith('registry/e2e-container-tls'))).toBe(false);
    await expect(readFile(`${reg.dir}/state.json`)).rejects.toThrow();
  }, 60_000);

  it('REG-CONTAINER-CLI: registry up --provider container returns (the registry outlives it), ls sees it running, down removes the container', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credprov-state-'));
    const env = { CREDPROV_STATE_DIR: state, ...(host ? { DOCKER_HOST: host } : {}) };
    const cli = (...a: string[]) => execa(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'credprov.js'), 'registry', ...a], { env, reject: false, timeout: 60_000 });
    try {
      const up = await cli('up', '--provider', 'container', '--name', 'e2e-ctr-cli', '--auth', 'htpasswd');
      expect(up).toMatchObject({ exitCode: 0, timedOut: false });
      expect(JSON.parse((await cli('ls', '--json')).stdout)).toEqual([expect.objectContaining({ name: 'e2e-ctr-cli', status: 'running' })]);
      expect((await cli('down', '--name', 'e2e-ctr-cli')).exitCode).toBe(0);
      const ps = await execa('docker', ['ps', '-aq', '--filter', 'label=io.credprov.registry=e2e-ctr-cli'], { env: host ? { DOCKER_HOST: host } : {} });
      expect(ps.stdout.trim()).toBe('');
    } finally {
      await cli('down', '--all');
      await rm(state, { recursive: true, force: true });
    }
  }, 90_000);
});
