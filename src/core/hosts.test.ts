import { describe, test, expect, beforeEach, afterEach } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { editHosts, HostsFile, parseEntries } from './hosts.ts';

const BASE = '127.0.0.1 localhost\n::1 localhost ip6-localhost\n';

describe('editHosts', () => {
  test('appends a marked line and leaves foreign lines untouched', () => {
    const out = editHosts(BASE, { add: [{ address: '127.0.0.1', hostnames: ['registry.test'], owner: 'registry/a' }] });
    expect(out).toBe(`${BASE}127.0.0.1 registry.test # credprov:registry/a\n`);
  });

  test('replaces the lines of an owner that adds again instead of duplicating them', () => {
    const once = editHosts(BASE, { add: [{ address: '127.0.0.1', hostnames: ['a.test'], owner: 'registry/a' }] });
    const twice = editHosts(once, { add: [{ address: '127.0.0.2', hostnames: ['a.test'], owner: 'registry/a' }] });
    expect(parseEntries(twice)).toEqual([{ address: '127.0.0.2', hostnames: ['a.test'], owner: 'registry/a' }]);
  });

  test('removes only the named owners', () => {
    let t = editHosts(BASE, { add: [{ address: '127.0.0.1', hostnames: ['a.test'], owner: 'registry/a' }] });
    t = editHosts(t, { add: [{ address: '127.0.0.1', hostnames: ['b.test', 'c.test'], owner: 'registry/b' }] });
    t = editHosts(t, { removeOwners: ['registry/a'] });
    expect(t).toBe(`${BASE}127.0.0.1 b.test c.test # credprov:registry/b\n`);
  });
});

describe('HostsFile', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-hosts-'));
    file = join(dir, 'hosts');
    await writeFile(file, BASE);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  test('adds and removes entries and leaves no temp or lock file behind', async () => {
    const hosts = new HostsFile(file);
    await hosts.add({ address: '127.0.0.1', hostnames: ['registry.test'], owner: 'registry/default' });
    expect(await hosts.entries()).toHaveLength(1);
    await hosts.remove('registry/default');
    expect(await readFile(file, 'utf8')).toBe(BASE);
    expect(await readdir(dir)).toEqual(['hosts']);
  });

  test('concurrent edits are serialised by the lock and none is lost', async () => {
    const hosts = new HostsFile(file);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        hosts.add({ address: '127.0.0.1', hostnames: [`r${i}.test`], owner: `registry/r${i}` }),
      ),
    );
    expect((await hosts.entries()).map((e) => e.owner).sort()).toHaveLength(8);
  });

  test('prune removes the entries of owners that are gone', async () => {
    const hosts = new HostsFile(file);
    await hosts.add(
      { address: '127.0.0.1', hostnames: ['live.test'], owner: 'registry/live' },
      { address: '127.0.0.1', hostnames: ['dead.test'], owner: 'registry/dead' },
    );
    expect(await hosts.prune((o) => o === 'registry/dead')).toEqual(['registry/dead']);
    expect((await hosts.entries()).map((e) => e.owner)).toEqual(['registry/live']);
  });

  test('a lock left by a dead run is broken after it goes stale, a live one times out with the lock path', async () => {
    await writeFile(`${file}.credprov.lock`, '1');
    const hosts = new HostsFile(file, { lockTimeoutMs: 100 });
    await expect(hosts.add({ address: '127.0.0.1', hostnames: ['x.test'], owner: 'x' })).rejects.toThrow(
      /hosts\.credprov\.lock is held/,
    );
  });

  test('rejects hostnames that would corrupt the file', async () => {
    const hosts = new HostsFile(file);
    await expect(
      hosts.add({ address: '127.0.0.1', hostnames: ['bad name\n1.2.3.4 evil'], owner: 'x' }),
    ).rejects.toThrow(/not a valid hostname/);
  });
});
