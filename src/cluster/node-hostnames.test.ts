// Names mapped to loopback addresses where plugins run: this host's hosts file
// for the local provider (conflicts named, a crashed run's lines pruned), each
// kind node's /etc/hosts through docker exec (exactly the lines added removed).
import { describe, expect, test } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HostsFile } from '../core/hosts.ts';
import { useTempDir } from '../testing/tmp.ts';
import { mapHostnamesHere } from './node-hostnames.ts';
import { mapNodeHostnames } from './kind/node-hostnames.ts';
import type { RunResult, Runner } from './kind/tools.ts';

const tmp = useTempDir('credprov-node-names-');
const NAMES = [
  { hostname: 'metadata.google.internal', address: '127.77.0.9' },
  { hostname: 'metadata', address: '127.77.0.9' },
];

describe('mapHostnamesHere (the local provider)', () => {
  test('adds one owner-tagged line per address and removes it on stop', async () => {
    const file = join(tmp(), 'hosts');
    await writeFile(file, '127.0.0.1 localhost\n');
    const h = await mapHostnamesHere(NAMES, new HostsFile(file));
    expect(await readFile(file, 'utf8')).toMatch(
      new RegExp(`^127\\.77\\.0\\.9 metadata\\.google\\.internal metadata # credprov:nodes/names/${process.pid}-`, 'm'),
    );
    await h.stop();
    expect(await readFile(file, 'utf8')).toBe('127.0.0.1 localhost\n');
  });

  test("a live run's line for the name is a conflict; a dead process's line is pruned first", async () => {
    const file = join(tmp(), 'hosts');
    await writeFile(
      file,
      `127.0.0.1 localhost\n127.9.9.9 metadata.google.internal # credprov:nodes/names/${process.pid}-aaaaaa\n`,
    );
    await expect(mapHostnamesHere(NAMES, new HostsFile(file))).rejects.toThrow(/already mapped .* still going/);
    await writeFile(
      file,
      `127.0.0.1 localhost\n127.9.9.9 metadata.google.internal # credprov:nodes/names/999999999-aaaaaa\n`,
    );
    const h = await mapHostnamesHere(NAMES, new HostsFile(file));
    expect(await readFile(file, 'utf8')).not.toContain('127.9.9.9');
    await h.stop();
  });

  test("a name this host already maps to the same address (a lab's own line) is left as it is, on map and on stop", async () => {
    const file = join(tmp(), 'hosts');
    const lab = `127.77.0.9 metadata.google.internal # credprov:vendor/x/${process.pid}-bbbbbb\n`;
    await writeFile(file, `127.0.0.1 localhost\n${lab}`);
    const h = await mapHostnamesHere(NAMES, new HostsFile(file));
    expect(await readFile(file, 'utf8')).toMatch(/^127\.77\.0\.9 metadata # credprov:nodes\/names\//m);
    await h.stop();
    expect(await readFile(file, 'utf8')).toBe(`127.0.0.1 localhost\n${lab}`);
  });
});

describe('mapNodeHostnames (kind nodes)', () => {
  test('appends the marked line in every node, and stop filters exactly those lines out in place', async () => {
    const calls: Array<{ args: string[]; input?: string }> = [];
    const run: Runner = async (_cmd, args, opts) => {
      calls.push({ args, ...(opts?.input ? { input: opts.input } : {}) });
      return { exitCode: 0, stdout: '', stderr: '' } satisfies RunResult;
    };
    const h = await mapNodeHostnames(run, ['n1', 'n2'], NAMES);
    expect(calls.map((c) => c.args.slice(0, 3))).toEqual([
      ['exec', '-i', 'n1'],
      ['exec', '-i', 'n2'],
    ]);
    expect(calls[0]!.input).toMatch(
      /^127\.77\.0\.9 metadata\.google\.internal metadata # credprov:node-names:[0-9a-f]{8}\n$/,
    );
    const mark = /# (credprov:node-names:[0-9a-f]{8})/.exec(calls[0]!.input!)![1]!;
    await h.stop();
    await h.stop();
    expect(calls.slice(2).map((c) => [c.args[1], c.args.at(-1)])).toEqual([
      ['n1', expect.stringContaining(`grep -v '# ${mark}$' /etc/hosts`)],
      ['n2', expect.stringContaining(`grep -v '# ${mark}$' /etc/hosts`)],
    ]);
  });

  test('a node that refuses leaves no line behind in the nodes done before it', async () => {
    const calls: string[][] = [];
    const run: Runner = async (_cmd, args) => {
      calls.push(args);
      return args[2] === 'n2' && args[1] === '-i'
        ? { exitCode: 1, stdout: '', stderr: 'no such container' }
        : { exitCode: 0, stdout: '', stderr: '' };
    };
    await expect(mapNodeHostnames(run, ['n1', 'n2'], NAMES)).rejects.toThrow(/failed to map/);
    expect(calls.at(-1)!.slice(0, 2)).toEqual(['exec', 'n1']);
  });

  test('refuses a name on a non-loopback address', async () => {
    const run: Runner = async () => ({ exitCode: 0, stdout: '', stderr: '' });
    await expect(mapNodeHostnames(run, ['n1'], [{ hostname: 'a.test', address: '10.0.0.1' }])).rejects.toThrow(
      /loopback/,
    );
  });
});
