// Teardown leaves nothing behind: no process, no /etc/hosts line, no temp or
// state dir, after a normal stop, after a failed start, after `registry down`,
// and after a run that crashed (killed processes, stale state).
import { describe, expect, afterAll, jest } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { HostsFile } from '../../src/core/hosts.ts';
import { Auth, processProvider, readState } from '../../registry/index.ts';
import { isOurs } from '../../src/core/pids.ts';
import { all, isRoot, testIf } from '../../src/testing/prerequisites.ts';

// Real processes on a shared, busy machine: generous per-test time.
jest.setTimeout(60_000);

const provider = processProvider();
const it = testIf(all(await provider.isAvailable(), isRoot()));
const hosts = new HostsFile();
const CLI = join(import.meta.dirname, '..', '..', 'bin', 'credprov.js');

async function processesMatching(text: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((p) => /^\d+$/.test(p));
  const out: number[] = [];
  for (const p of pids) {
    const cmd = await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '');
    const stat = await readFile(`/proc/${p}/stat`, 'utf8').catch(() => '');
    if (cmd.split('\0').join(' ').includes(text) && !/^\d+ \(.*\) Z/.test(stat)) out.push(Number(p));
  }
  return out;
}

const exists = (p: string) =>
  readdir(p).then(
    () => true,
    () => false,
  );

describe('registry cleanup', () => {
  const stateDir = mkdtemp(join(tmpdir(), 'credprov-state-'));
  const cli = async (...args: string[]) =>
    execa(process.execPath, [CLI, 'registry', ...args], { env: { CREDPROV_STATE_DIR: await stateDir }, reject: false });
  afterAll(async () => {
    await cli('down', '--all');
    await rm(await stateDir, { recursive: true, force: true });
  });

  it('REG-CLEANUP-STOP: stop() of a token+TLS registry leaves no process, hosts line or dir; a second stop() is harmless', async () => {
    const reg = await provider.start({
      name: 'e2e-clean',
      hostname: 'clean.registry.test',
      auth: Auth.token({ users: [{ username: 'u', password: 'p' }] }),
      tls: true,
    });
    const state = (await readState(reg.dir))!;
    expect(state.processes.length).toBeGreaterThan(0);
    expect((await hosts.entries()).some((e) => e.owner.startsWith('registry/e2e-clean'))).toBe(true);
    await reg.stop();
    await reg.stop();
    for (const p of state.processes) expect(await isOurs(p)).toBe(false);
    expect((await hosts.entries()).some((e) => e.owner.startsWith('registry/e2e-clean'))).toBe(false);
    expect(await exists(reg.dir)).toBe(false);
  }, 30_000);

  it('REG-CLEANUP-STALE-HOSTS: a hosts line left by a test process that died is removed when the next registry starts', async () => {
    await hosts.add({
      address: '127.0.0.1',
      hostnames: ['ghost.registry.test'],
      owner: 'registry/e2e-ghost:pid999999',
    });
    const reg = await provider.start({
      name: 'e2e-ghost-check',
      hostname: 'ghost-check.registry.test',
      auth: Auth.none(),
    });
    try {
      expect((await hosts.entries()).some((e) => e.owner === 'registry/e2e-ghost:pid999999')).toBe(false);
      expect((await hosts.entries()).some((e) => e.owner === `registry/e2e-ghost-check:pid${process.pid}`)).toBe(true);
    } finally {
      await reg.stop();
    }
  });

  it('REG-CLEANUP-FAILED-START: a registry that dies at start is reported with its log and leaves nothing behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'credprov-fake-'));
    const fake = join(dir, 'fake-registry');
    await writeFile(fake, '#!/bin/sh\necho "fake registry: configuration error" >&2\nexit 1\n');
    await chmod(fake, 0o755);
    try {
      const before = (await readdir(tmpdir())).filter((d) => d.startsWith('credprov-registry-e2e-broken-'));
      await expect(
        processProvider({ binary: fake }).start({
          name: 'e2e-broken',
          auth: Auth.htpasswd([{ username: 'u', password: 'p' }]),
        }),
      ).rejects.toMatchObject({
        reason: expect.stringMatching(/^starting registry e2e-broken: gave up waiting for .*exited \(code 1\)/),
        detail: expect.stringContaining('configuration error'),
      });
      expect((await readdir(tmpdir())).filter((d) => d.startsWith('credprov-registry-e2e-broken-'))).toEqual(before);
      expect((await hosts.entries()).some((e) => e.owner.startsWith('registry/e2e-broken'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('REG-CLEANUP-CLI: registry up then down leaves no process, hosts line or state dir', async () => {
    const up = await cli('up', '--name', 'e2e-cli', '--auth', 'token', '--tls', '--seed');
    expect(up.exitCode).toBe(0);
    const out = JSON.parse(up.stdout.trim().split('\n').at(-1)!);
    expect(out).toMatchObject({
      name: 'e2e-cli',
      host: expect.stringMatching(/^e2e-cli\.registry\.test:\d+$/),
      auth: 'token',
      realm: expect.stringMatching(/^http:/),
      caFile: expect.any(String),
      images: expect.any(Array),
    });
    const creds = JSON.parse(await readFile(out.credentialsFile, 'utf8'));
    expect(up.stdout + up.stderr).not.toContain(creds.users[0].password);
    const dir = join(await stateDir, 'registries', 'e2e-cli');
    expect(await processesMatching(dir)).toHaveLength(2);
    const down = await cli('down', '--name', 'e2e-cli');
    expect(JSON.parse(down.stdout)).toEqual({ stopped: ['e2e-cli'] });
    expect(await processesMatching(dir)).toEqual([]);
    expect((await hosts.entries()).some((e) => e.owner === 'registry/e2e-cli')).toBe(false);
    expect(await exists(dir)).toBe(false);
  }, 60_000);

  it('REG-CLEANUP-CRASH: after its processes were killed, ls reports the registry stale and up reuses the name cleanly', async () => {
    expect((await cli('up', '--name', 'e2e-crash', '--auth', 'htpasswd')).exitCode).toBe(0);
    const dir = join(await stateDir, 'registries', 'e2e-crash');
    for (const pid of await processesMatching(dir)) process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    const ls = JSON.parse((await cli('ls', '--json')).stdout);
    expect(ls).toEqual([expect.objectContaining({ name: 'e2e-crash', status: 'stale' })]);
    const again = await cli('up', '--name', 'e2e-crash', '--auth', 'none');
    expect(again.exitCode).toBe(0);
    expect((await hosts.entries()).filter((e) => e.owner === 'registry/e2e-crash')).toHaveLength(1);
    expect((await cli('down', '--name', 'e2e-crash')).exitCode).toBe(0);
    expect(await processesMatching(dir)).toEqual([]);
    expect((await hosts.entries()).some((e) => e.owner === 'registry/e2e-crash')).toBe(false);
  }, 60_000);

  it('REG-CLI-USAGE: a second up with the same name is a usage error naming the running registry', async () => {
    expect((await cli('up', '--name', 'e2e-dup', '--auth', 'none')).exitCode).toBe(0);
    const dup = await cli('up', '--name', 'e2e-dup', '--auth', 'none');
    expect(dup.exitCode).toBe(2);
    expect(dup.stderr).toMatch(/already running at http:\/\/127\.0\.0\.1:\d+/);
    expect((await cli('down', '--name', 'e2e-dup')).exitCode).toBe(0);
  }, 60_000);
});
