import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { applyDefaults } from '../../api/spec/defaults.ts';
import { silentProgress } from '../../core/progress.ts';
import { availabilityOf, kindHints, probeKind } from './availability.ts';
import { clusterName, kindProvider } from './index.ts';
import type { RunResult, Runner } from './tools.ts';

/** A runner that answers from a table keyed by "cmd arg0 arg1" prefixes, and records every call. */
function scripted(answers: Record<string, Partial<RunResult>>): Runner & { calls: string[][] } {
  const calls: string[][] = [];
  const run = (async (cmd: string, args: string[]) => {
    calls.push([cmd, ...args]);
    const line = [cmd, ...args].join(' ');
    const key = Object.keys(answers)
      .filter((k) => line.startsWith(k))
      .sort((a, b) => b.length - a.length)[0];
    return { exitCode: 0, stdout: '', stderr: '', ...(key ? answers[key] : {}) };
  }) as Runner & { calls: string[][] };
  run.calls = calls;
  return run;
}

const allHere = {
  'kind version': { stdout: 'kind v0.33.0 go1.26.8 linux/amd64' },
  'docker --host': { stdout: 'sha256:abc' },
  'kind get clusters': { stdout: '' },
  'kind get nodes': { stdout: 'credprov-t-worker\ncredprov-t-control-plane\n' },
  'docker ps -aq': { stdout: '' },
};
const ownEngine = { host: 'unix:///run/credprov-kind/docker.sock', kind: 'own', version: '20.10.24' } as const;
const systemEngine = { host: 'unix:///var/run/docker.sock', kind: 'system', version: '28.2.2' } as const;

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'credprov-kind-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('kind availability', () => {
  const env = { PATH: '/nonexistent' } as NodeJS.ProcessEnv;

  test('without kind, Go, an engine or dockerd it says so, naming every missing piece', async () => {
    const run = scripted({ kind: { exitCode: 127, missing: true } });
    const probe = await probeKind(run, 'v1.37.1', { env, engine: null, capSysResource: true });
    expect(probe.kind).toEqual({
      ok: false,
      detail: 'kind is neither on PATH nor built by credprov, and Go is missing',
    });
    expect(probe.image.name).toBe('credprov/kind-node:v1.37.1');
    expect(kindHints(probe, 'v1.37.1')[0]).toBe(
      'build kind v0.33.0 into the cache (credprov binaries ensure --for kind), or put a kind on PATH',
    );
  });

  test("a system engine on a host whose bounding set lacks CAP_SYS_RESOURCE cannot run kind's privileged nodes", async () => {
    const probe = await probeKind(scripted(allHere), 'v1.37.1', { env, engine: systemEngine, capSysResource: false });
    expect(probe.docker.ok).toBe(false);
    expect(probe.docker.detail).toMatch(/lacks CAP_SYS_RESOURCE.*credprov's own engine \(a runc wrapper drops it\)/);
  });

  test("credprov's own engine with the image present is available, and says the wrapper is in use", async () => {
    const probe = await probeKind(scripted(allHere), 'v1.37.1', { env, engine: ownEngine, capSysResource: false });
    expect(availabilityOf(probe)).toEqual({ ok: true });
    expect(probe.docker.detail).toMatch(/^Docker engine 20\.10\.24 \(credprov's own\); this host's capability/);
    expect(probe.image.detail).toBe('credprov/kind-node:v1.37.1 present');
  });

  test('an image the user names must be present: kind would pull it otherwise', async () => {
    const run = scripted({ ...allHere, 'docker --host': { exitCode: 1, stderr: 'No such image' } });
    const probe = await probeKind(run, 'v1.36.4', {
      env,
      engine: systemEngine,
      capSysResource: true,
      imageOverride: 'kindest/node:v1.36.4',
    });
    expect(availabilityOf(probe)).toEqual({ ok: false, reason: 'kindest/node:v1.36.4 is not present locally' });
  });
});

describe('kind provider', () => {
  const env = () =>
    ({ CREDPROV_STATE_DIR: join(tmp, 'state'), CREDPROV_CACHE_DIR: join(tmp, 'cache') }) as NodeJS.ProcessEnv;

  // A system engine: down() never stops an engine it did not start (stopping credprov's own is engine.ts's test).
  const seams = {
    engine: systemEngine,
    nodeImage: async (v: string) => `credprov/kind-node:${v}`,
    kubeBinaries: async (v: string) => ({ version: v, dir: '/kube', kubectl: '/kube/kubectl' }),
  };

  test('up() writes the mounted files and the config, creates the cluster with it, and lists both nodes', async () => {
    const plugin = join(tmp, 'fake-plugin');
    writeFileSync(plugin, '#!/bin/sh\n');
    const run = scripted(allHere);
    const p = kindProvider({ run, env: env(), ...seams });
    const spec = applyDefaults({
      name: 't',
      kubeVersion: 'v1.37.1',
      kindCluster: { workers: 1 },
      credentialProvider: {
        plugins: { fake: plugin },
        config: { kind: 'CredentialProviderConfig', apiVersion: 'kubelet.config.k8s.io/v1', providers: [] },
      },
    });
    const e = await p.up(spec, silentProgress);
    const root = join(tmp, 'state', 'env', 't');
    expect(e).toMatchObject({
      provider: 'kind',
      kubeVersion: 'v1.37.1',
      nodeName: 'credprov-t-control-plane',
      nodes: ['credprov-t-control-plane', 'credprov-t-worker'],
      kubectl: '/kube/kubectl',
      pluginBinDir: join(root, 'plugins'),
    });
    expect(p.capabilities(e).secondNode).toBe(true);
    expect(readFileSync(join(root, 'plugins', 'fake'), 'utf8')).toBe('#!/bin/sh\n');
    expect(parse(readFileSync(join(root, 'provider-config', 'credential-provider-config.yaml'), 'utf8'))).toMatchObject(
      {
        kind: 'CredentialProviderConfig',
      },
    );
    // Hosts nobody routed lead nowhere: a closed port on the node's loopback.
    expect(readFileSync(join(root, 'certs.d', '_default', 'hosts.toml'), 'utf8')).toBe(
      'server = "https://127.0.0.1:9"\n',
    );
    const create = run.calls.find((c) => c[0] === 'kind' && c[1] === 'create')!;
    expect(create).toEqual([
      'kind',
      'create',
      'cluster',
      '--name',
      'credprov-t',
      '--config',
      join(root, 'kind-config.yaml'),
      '--kubeconfig',
      join(root, 'kubeconfig'),
      '--wait',
      '120s',
    ]);
    expect(parse(readFileSync(join(root, 'kind-config.yaml'), 'utf8'))).toMatchObject({
      name: 'credprov-t',
      nodes: [
        { role: 'control-plane', image: 'credprov/kind-node:v1.37.1' },
        { role: 'worker', image: 'credprov/kind-node:v1.37.1' },
      ],
    });
  });

  test('a node image the spec names is used as it is', async () => {
    const run = scripted(allHere);
    const p = kindProvider({ run, env: env(), ...seams, nodeImage: async () => 'never-built' });
    await p.up(
      applyDefaults({ name: 't', kindCluster: { workers: 0, nodeImage: 'kindest/node:v1.37.0' } }),
      silentProgress,
    );
    expect(parse(readFileSync(join(tmp, 'state', 'env', 't', 'kind-config.yaml'), 'utf8'))).toMatchObject({
      nodes: [{ image: 'kindest/node:v1.37.0' }],
    });
  });

  test('a failed create collects logs and deletes what it made', async () => {
    const run = scripted({
      ...allHere,
      'kind create': {
        exitCode: 1,
        stderr:
          'ERROR: failed to create cluster: could not find a log line that matches "Reached target .*Multi-User System.*"',
      },
      'kind get clusters': { stdout: 'credprov-t\n' },
    });
    const p = kindProvider({ run, env: env(), ...seams });
    await expect(p.up(applyDefaults({ name: 't' }), silentProgress)).rejects.toThrow(
      /kind up: failed to create kind cluster credprov-t \(kind exit 1\)/,
    );
    expect(run.calls.some((c) => c.join(' ').startsWith('kind export logs'))).toBe(true);
    expect(run.calls.some((c) => c.join(' ') === 'kind delete cluster --name credprov-t')).toBe(true);
    expect(existsSync(join(tmp, 'state', 'env', 't'))).toBe(false);
  });

  test('down() is idempotent and deletes only the cluster credprov named', async () => {
    const run = scripted({ 'kind get clusters': { stdout: 'kind\nother\n' }, 'docker ps -aq': { stdout: 'abc\n' } });
    const p = kindProvider({ run, env: env(), engine: systemEngine });
    await p.down('t');
    await p.down('t');
    expect(run.calls.filter((c) => c[1] === 'delete')).toEqual([]);
  });

  test("down() of the last kind cluster removes the kind network, and leaves a system engine's other clusters alone", async () => {
    const last = scripted({ 'kind get clusters': { stdout: 'credprov-t\n' }, 'docker ps -aq': { stdout: '' } });
    await kindProvider({ run: last, env: env(), engine: systemEngine }).down('t');
    expect(last.calls.map((c) => c.join(' '))).toEqual(
      expect.arrayContaining(['kind delete cluster --name credprov-t', 'docker network rm kind']),
    );
    const others = scripted({
      'kind get clusters': { stdout: 'credprov-t\nkind\n' },
      'docker ps -aq': { stdout: 'f00\n' },
    });
    await kindProvider({ run: others, env: env(), engine: systemEngine }).down('t');
    expect(others.calls.some((c) => c.join(' ') === 'docker network rm kind')).toBe(false);
  });

  test('cluster names are prefixed and made DNS-safe', () => {
    expect(clusterName('My_Env')).toBe('credprov-my-env');
  });
});
