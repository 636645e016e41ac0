import { describe, test, expect, afterEach, beforeEach } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostsFile } from '../src/core/hosts.ts';
import { isOurs } from '../src/core/pids.ts';
import {
  hostsOwner,
  IN_PROCESS_DIR_PREFIX,
  orphanedRegistries,
  pruneOrphanedRegistries,
  pruneRegistryHosts,
  readState,
  writeState,
  type RegistryState,
} from './state.ts';

describe('pruneRegistryHosts', () => {
  let dir: string;
  let hosts: HostsFile;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-prune-'));
    await writeFile(join(dir, 'hosts'), '127.0.0.1 localhost\n');
    hosts = new HostsFile(join(dir, 'hosts'));
    await hosts.add(
      { address: '127.0.0.1', hostnames: ['live.test'], owner: hostsOwner('live', false) },
      { address: '127.0.0.1', hostnames: ['dead.test'], owner: hostsOwner('dead', false, 999_999) },
      { address: '127.0.0.1', hostnames: ['cli.test'], owner: hostsOwner('cli', true) },
      { address: '127.0.0.1', hostnames: ['gone.test'], owner: hostsOwner('gone', true) },
      { address: '127.0.0.1', hostnames: ['node.test'], owner: 'cluster/default' },
    );
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  test('removes only lines of in-process registries whose process died when no CLI state is given', async () => {
    expect(await pruneRegistryHosts(hosts)).toEqual(['registry/dead:pid999999']);
  });

  test('also removes CLI registries without state, and never touches other owners', async () => {
    expect((await pruneRegistryHosts(hosts, { cliNames: new Set(['cli']) })).sort()).toEqual([
      'registry/dead:pid999999',
      'registry/gone',
    ]);
    expect((await hosts.entries()).map((e) => e.owner).sort()).toEqual([
      'cluster/default',
      'registry/cli',
      `registry/live:pid${process.pid}`,
    ]);
  });

  test('with `only`, leaves other CLI registries alone', async () => {
    expect(await pruneRegistryHosts(hosts, { cliNames: new Set(), only: 'cli' })).toEqual([
      'registry/dead:pid999999',
      'registry/cli',
    ]);
  });
});

describe('pruneOrphanedRegistries', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-orphans-'));
  });
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  /** A registry dir as an in-process registry leaves it, with a stand-in process whose command line names its config. */
  async function registryDir(
    name: string,
    ownerPid: number | undefined,
    hostsOwnerPid?: number,
  ): Promise<{ state: RegistryState; child: ChildProcess }> {
    const d = join(dir, `${IN_PROCESS_DIR_PREFIX}${name}-x1`);
    await mkdir(d);
    const config = join(d, 'config.yml');
    await writeFile(config, '');
    const child = spawn('/bin/sh', ['-c', 'sleep 60', config], { stdio: 'ignore' });
    children.push(child);
    const state: RegistryState = {
      name,
      provider: 'process',
      processes: [{ pid: child.pid!, match: config }],
      host: '',
      hostname: `${name}.registry.test`,
      address: '127.0.0.1',
      port: 5000,
      url: '',
      auth: 'none',
      dir: d,
      ownsDir: true,
      createdAt: new Date().toISOString(),
      ...(ownerPid !== undefined ? { ownerPid } : {}),
      ...(hostsOwnerPid !== undefined ? { hostsOwner: hostsOwner(name, false, hostsOwnerPid) } : {}),
    };
    await writeState(state);
    return { state, child };
  }

  test('stops the registries whose owning process is gone (also when only the /etc/hosts owner names it), and leaves live ones alone', async () => {
    const dead = await registryDir('dead', 999_999);
    const older = await registryDir('older', undefined, 999_998);
    const live = await registryDir('live', process.pid);
    expect((await orphanedRegistries({ dir })).map((s) => s.name).sort()).toEqual(['dead', 'older']);
    expect((await pruneOrphanedRegistries({ dir })).sort()).toEqual([dead.state.dir, older.state.dir].sort());
    expect(await isOurs(dead.state.processes[0]!)).toBe(false);
    expect(await isOurs(live.state.processes[0]!)).toBe(true);
    expect(await readState(live.state.dir)).toBeDefined();
    expect(await readState(older.state.dir)).toBeUndefined();
  });

  test('`ended` picks the owners to judge (the leftovers checker passes the runs it knows have ended)', async () => {
    await registryDir('mine', process.pid);
    expect((await orphanedRegistries({ dir, ended: (pid) => pid === process.pid })).map((s) => s.name)).toEqual([
      'mine',
    ]);
  });
});
