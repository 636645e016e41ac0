// The container provider through testcontainers: distribution in a locally
// built image (nothing pulled), run by a private dockerd this file starts,
// with the same auth, TLS and cleanup guarantees as the process provider.
// Not optional: in CI a missing docker.io fails these tests with the reason.
import { describe, expect, afterAll, beforeAll, jest } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import {
  Auth,
  busyboxImage,
  containerProvider,
  DEFAULT_BINARY,
  OWNER_LABEL,
  processProvider,
  pruneRegistryHosts,
  readState,
  REGISTRY_LABEL,
  RegistryClient,
  registryImageInputs,
  type RegistryProvider,
  type StartedRegistry,
} from '../../registry/index.ts';
import { containerRunning, dockerRuntime, type DockerRuntime } from '../../src/engine/docker-runtime.ts';
import { PrivateDockerd, sweepPrivateDockerds } from '../../src/engine/dockerd.ts';
import { isAlive, isOurs } from '../../src/core/pids.ts';
import { HostsFile } from '../../src/core/hosts.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';

// Real daemons on a shared, busy machine: generous per-test time.
jest.setTimeout(90_000);

const prerequisites = all(isRoot(), await processProvider().isAvailable(), await PrivateDockerd.available());
const it = testIf(prerequisites);
const alice = { username: 'alice', password: 'alice-pw-1' };
const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'bin', 'credprov.js');

/** Registry containers on the daemon, by registry name (running or not). */
async function containersOf(rt: DockerRuntime, name: string) {
  return rt.client.container.dockerode.listContainers({ all: true, filters: { label: [`${REGISTRY_LABEL}=${name}`] } });
}

async function processesNaming(text: string): Promise<number[]> {
  const out: number[] = [];
  for (const p of (await readdir('/proc')).filter((x) => /^\d+$/.test(x))) {
    const cmd = await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '');
    const stat = await readFile(`/proc/${p}/stat`, 'utf8').catch(() => '');
    if (cmd.split('\0').join(' ').includes(text) && !/^\d+ \(.*\) Z/.test(stat)) out.push(Number(p));
  }
  return out;
}

/** A node child that runs `code` (ESM, repo modules importable by path) and prints one JSON line when set up; then it waits to be killed. */
async function holder(code: string, env: NodeJS.ProcessEnv): Promise<{ pid: number; ready: Record<string, string> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', `${code}\nsetInterval(() => {}, 60_000);`], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (c) => reject(new Error(`holder exited (code ${c}): ${err}`)));
  });
  return { pid: child.pid!, ready: JSON.parse(line) as Record<string, string> };
}

describe('container provider (testcontainers, private dockerd)', () => {
  let dockerd: PrivateDockerd;
  let provider: RegistryProvider;
  let rt: DockerRuntime;
  beforeAll(async () => {
    // Without them every test below fails (in CI) or skips with the reason; nothing to set up.
    if (!prerequisites.ok) return;
    dockerd = await PrivateDockerd.start();
    provider = containerProvider({ dockerHost: dockerd.host });
    rt = await dockerRuntime(dockerd.host);
  }, 90_000);
  afterAll(() => dockerd?.stop(), 60_000);

  describe('htpasswd', () => {
    let reg: StartedRegistry;
    beforeAll(async () => {
      if (!prerequisites.ok) return;
      reg = await provider.start({
        name: 'hcontainers-auth',
        hostname: 'hcontainers-auth.registry.test',
        auth: Auth.htpasswd([alice]),
      });
      await reg.push(await busyboxImage());
    }, 90_000);
    afterAll(() => reg?.stop());

    it('REG-CONTAINER-AUTH: anonymous gets 401, good credentials read the image, a rotation restarts the container', async () => {
      expect(await reg.client().canPull('credprov/busybox', 'latest')).toMatchObject({ ok: false, status: 401 });
      expect(
        await new RegistryClient({ baseUrl: `http://${reg.host}`, credentials: alice }).canPull(
          'credprov/busybox',
          'latest',
        ),
      ).toMatchObject({ ok: true });
      const before = (await readState(reg.dir))!.containerId;
      await reg.users.rotate('alice', 'alice-pw-2');
      expect((await readState(reg.dir))!.containerId).not.toBe(before);
      expect(await containerRunning(dockerd.host, before!)).toBe(false);
      expect(await reg.client(alice).canPull('credprov/busybox', 'latest')).toMatchObject({ ok: false, status: 401 });
      expect(
        await reg.client({ username: 'alice', password: 'alice-pw-2' }).canPull('credprov/busybox', 'latest'),
      ).toMatchObject({ ok: true });
    });

    it('REG-CONTAINER-SHAPE: the locally built image on host networking, the dir mounted at its own path, owned by this process', async () => {
      const id = (await readState(reg.dir))!.containerId!;
      const info = await rt.client.container.inspect(rt.client.container.getById(id));
      expect(info.Config.Image).toBe((await registryImageInputs(DEFAULT_BINARY)).ref);
      expect(info.HostConfig.NetworkMode).toBe('host');
      expect(info.Mounts).toEqual([expect.objectContaining({ Type: 'bind', Source: reg.dir, Destination: reg.dir })]);
      expect(info.Config.Labels).toMatchObject({
        [REGISTRY_LABEL]: 'hcontainers-auth',
        [OWNER_LABEL]: String(process.pid),
      });
      // Nothing was pulled: the daemon holds only the image credprov built.
      const images = await rt.client.container.dockerode.listImages();
      expect(images.flatMap((i) => i.RepoTags ?? [])).toEqual([info.Config.Image]);
    });

    it("REG-CONTAINER-LOGS: the container's output reaches the registry log file as it happens", async () => {
      const log = await readFile(reg.logFile, 'utf8');
      expect(log).toMatch(/listening on 127\.0\.0\.1:\d+/);
      await reg.client({ username: 'alice', password: 'alice-pw-2' }).canPull('credprov/busybox', 'latest');
      let text = '';
      for (let i = 0; i < 50 && !/"GET \/v2\/credprov\/busybox\/manifests\/latest HTTP\/1\.1" 200/.test(text); i++) {
        await sleep(100);
        text = await readFile(reg.logFile, 'utf8');
      }
      expect(text).toMatch(/"GET \/v2\/credprov\/busybox\/manifests\/latest HTTP\/1\.1" 200/);
    });
  });

  it('REG-CONTAINER-TOKEN-TLS: token auth over TLS works, and stop() removes container, hosts line and dir', async () => {
    const reg = await provider.start({
      name: 'hcontainers-tls',
      hostname: 'hcontainers-tls.registry.test',
      auth: Auth.token({ users: [alice] }),
      tls: true,
    });
    const state = (await readState(reg.dir))!;
    try {
      expect(state).toMatchObject({
        provider: 'container',
        containerId: expect.any(String),
        docker: { host: dockerd.host },
      });
      await reg.push(await busyboxImage());
      const c = new RegistryClient({
        baseUrl: `https://${reg.host}`,
        credentials: alice,
        ca: await readFile(reg.caCertPath!, 'utf8'),
      });
      expect(await c.canPull('credprov/busybox', 'latest')).toMatchObject({ ok: true });
    } finally {
      await reg.stop();
    }
    expect(await containersOf(rt, 'hcontainers-tls')).toEqual([]);
    expect((await new HostsFile().entries()).some((e) => e.owner.startsWith('registry/hcontainers-tls'))).toBe(false);
    await expect(readFile(`${reg.dir}/state.json`)).rejects.toThrow();
  });

  it("REG-CONTAINER-PORT-IN-USE: a port already taken fails in distribution's words (exit 2), and no container is left", async () => {
    const taken: Server = createServer();
    await new Promise<void>((r) => taken.listen({ host: '127.0.0.1', port: 0 }, r));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(
        provider.start({
          name: 'hcontainers-busy',
          hostname: 'hcontainers-busy.registry.test',
          auth: Auth.none(),
          port,
        }),
      ).rejects.toMatchObject({
        reason: `starting registry hcontainers-busy: 127.0.0.1:${port} is already in use`,
        exitCode: 2,
        detail: expect.stringContaining('address already in use'),
      });
      expect(await containersOf(rt, 'hcontainers-busy')).toEqual([]);
    } finally {
      taken.close();
    }
  });

  it('REG-CONTAINER-ORPHAN: the container of a test process that was killed is removed when the next container registry starts', async () => {
    const child = await holder(
      `
      const { containerProvider, Auth } = await import(${JSON.stringify(join(ROOT, 'registry/index.ts'))});
      const reg = await containerProvider().start({ name: 'hcontainers-orphan', hostname: 'hcontainers-orphan.registry.test', auth: Auth.none() });
      console.log(JSON.stringify({ dir: reg.dir }));`,
      { DOCKER_HOST: dockerd.host },
    );
    try {
      const id = (await readState(child.ready.dir!))!.containerId!;
      process.kill(child.pid, 'SIGKILL');
      for (let i = 0; i < 50 && isAlive(child.pid); i++) await sleep(20);
      expect(await containerRunning(dockerd.host, id)).toBe(true);
      const next = await provider.start({
        name: 'hcontainers-next',
        hostname: 'hcontainers-next.registry.test',
        auth: Auth.none(),
      });
      await next.stop();
      expect(await containersOf(rt, 'hcontainers-orphan')).toEqual([]);
    } finally {
      await rm(child.ready.dir!, { recursive: true, force: true });
    }
  });

  it('REG-CONTAINER-CLI: registry up --provider container returns, its log keeps growing, ls sees it, down from another process removes container and follower', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credprov-state-'));
    const env = { CREDPROV_STATE_DIR: state, DOCKER_HOST: dockerd.host };
    const cli = (...a: string[]) =>
      execa(process.execPath, [CLI, 'registry', ...a], { env, reject: false, timeout: 60_000 });
    try {
      const up = await cli(
        'up',
        '--provider',
        'container',
        '--name',
        'hcontainers-cli',
        '--auth',
        'htpasswd',
        '--user',
        'alice:alice-pw-1',
      );
      expect(up).toMatchObject({ exitCode: 0, timedOut: false });
      const out = JSON.parse(up.stdout.trim().split('\n').at(-1)!) as { host: string };
      const dir = join(state, 'registries', 'hcontainers-cli');
      const s = (await readState(dir))!;
      expect(s).toMatchObject({
        provider: 'container',
        containerId: expect.any(String),
        docker: { host: dockerd.host },
        processes: [expect.objectContaining({ match: s.containerId })],
      });
      expect(JSON.parse((await cli('ls', '--json')).stdout)).toEqual([
        expect.objectContaining({ name: 'hcontainers-cli', status: 'running' }),
      ]);
      // `up` has exited: the detached follower writes what the registry says now.
      await new RegistryClient({ baseUrl: s.url, credentials: alice }).canPull('credprov/nothing', 'latest');
      let log = '';
      for (let i = 0; i < 100 && !log.includes('/v2/credprov/nothing/manifests/latest'); i++) {
        await sleep(100);
        log = await readFile(join(dir, 'registry.log'), 'utf8');
      }
      expect(log).toContain('/v2/credprov/nothing/manifests/latest');
      expect(log.match(/listening on/g)).toHaveLength(1);
      expect(out.host).toMatch(/^hcontainers-cli\.registry\.test:\d+$/);
      expect((await cli('down', '--name', 'hcontainers-cli')).exitCode).toBe(0);
      expect(await containersOf(rt, 'hcontainers-cli')).toEqual([]);
      for (const p of s.processes) expect(await isOurs(p)).toBe(false);
    } finally {
      await cli('down', '--all');
      await rm(state, { recursive: true, force: true });
    }
  });

  it('REG-CONTAINER-DOCKERD-SWEEP: a private dockerd whose owner was killed is stopped with its container, unmounted and removed by the next start', async () => {
    const child = await holder(
      `
      const { PrivateDockerd } = await import(${JSON.stringify(join(ROOT, 'src/engine/dockerd.ts'))});
      const { containerProvider, Auth } = await import(${JSON.stringify(join(ROOT, 'registry/index.ts'))});
      const d = await PrivateDockerd.start();
      const reg = await containerProvider({ dockerHost: d.host }).start({ name: 'hcontainers-swept', hostname: 'hcontainers-swept.registry.test', auth: Auth.none() });
      console.log(JSON.stringify({ dockerdDir: d.dir, registryDir: reg.dir }));`,
      {},
    );
    const { dockerdDir, registryDir } = child.ready as { dockerdDir: string; registryDir: string };
    try {
      process.kill(child.pid, 'SIGKILL');
      for (let i = 0; i < 50 && isAlive(child.pid); i++) await sleep(20);
      expect(await processesNaming(dockerdDir)).not.toEqual([]);
      expect(await processesNaming(join(registryDir, 'config.yml'))).not.toEqual([]);
      expect(await sweepPrivateDockerds()).toContain(dockerdDir);
      expect(await processesNaming(dockerdDir)).toEqual([]);
      expect(await processesNaming(join(registryDir, 'config.yml'))).toEqual([]);
      expect((await readFile('/proc/mounts', 'utf8')).includes(dockerdDir)).toBe(false);
      await expect(readdir(dockerdDir)).rejects.toThrow();
    } finally {
      await rm(registryDir, { recursive: true, force: true });
      await pruneRegistryHosts(new HostsFile());
    }
  });
});
