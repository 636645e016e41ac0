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

const nothingHere = { kind: { exitCode: 127, missing: true }, docker: { exitCode: 127, missing: true } };
const allHere = {
  'kind version': { stdout: 'kind v0.33.0 go1.26.4 linux/amd64' },
  'docker version': { stdout: '28.5.1' },
  'docker image inspect': { stdout: 'sha256:abc' },
  'kind get clusters': { stdout: '' },
};

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'credprov-kind-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('kind availability', () => {
  test('on a machine without kind and Docker it says so, naming every missing piece', async () => {
    const probe = await probeKind(scripted(nothingHere), 'v1.37.1');
    expect(availabilityOf(probe)).toEqual({
      ok: false,
      reason:
        'kind is neither on PATH nor built by credprov; the docker CLI is not on PATH; kindest/node:v1.37.1: cannot check without a Docker engine',
    });
    expect(kindHints(probe, 'v1.37.1')).toEqual([
      'build kind v0.33.0 into the cache (credprov binaries ensure --for kind), or put a kind on PATH',
      'start a Docker engine (dockerd) or point DOCKER_HOST at one',
      'load kindest/node:v1.37.1 (docker load, or kind build node-image v1.37.1); kind v0.33.0 publishes kindest/node:v1.37.0',
    ]);
  });

  test('with a docker CLI but no engine, the reason quotes docker', async () => {
    const run = scripted({
      ...allHere,
      'docker version': {
        exitCode: 1,
        stderr: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?',
      },
    });
    const a = availabilityOf(await probeKind(run, 'v1.37.1'));
    expect(a.ok).toBe(false);
    expect((a as { reason: string }).reason).toContain('no Docker engine answers (Cannot connect to the Docker daemon');
  });

  test('a missing node image alone makes kind unavailable', async () => {
    const run = scripted({ ...allHere, 'docker image inspect': { exitCode: 1, stderr: 'No such image' } });
    expect(availabilityOf(await probeKind(run, 'v1.36.4'))).toEqual({
      ok: false,
      reason: 'kindest/node:v1.36.4 is not present locally',
    });
  });

  test('with kind, an engine and the image it is available', async () => {
    expect(availabilityOf(await probeKind(scripted(allHere), 'v1.37.1'))).toEqual({ ok: true });
  });
});

describe('kind provider', () => {
  const env = () => ({ CREDPROV_STATE_DIR: join(tmp, 'state') }) as NodeJS.ProcessEnv;

  test('refuses up() with the availability reason before touching anything', async () => {
    const run = scripted(nothingHere);
    const p = kindProvider({ run, env: env() });
    await expect(p.up(applyDefaults({ name: 't' }), silentProgress)).rejects.toThrow(
      /the kind provider cannot run here: kind is neither on PATH nor built by credprov/,
    );
    expect(run.calls.some((c) => c[1] === 'create')).toBe(false);
    expect(existsSync(join(tmp, 'state'))).toBe(false);
  });

  test('up() writes the mounted files and the config, then creates the cluster with it', async () => {
    const plugin = join(tmp, 'fake-plugin');
    writeFileSync(plugin, '#!/bin/sh\n');
    const run = scripted(allHere);
    const p = kindProvider({ run, env: env(), registries: [{ host: 'registry.test:5000', tls: false }] });
    const spec = applyDefaults({
      name: 't',
      kubeVersion: 'v1.37.1',
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
      pluginBinDir: join(root, 'plugins'),
    });
    expect(readFileSync(join(root, 'plugins', 'fake'), 'utf8')).toBe('#!/bin/sh\n');
    expect(parse(readFileSync(join(root, 'credential-provider-config.yaml'), 'utf8'))).toMatchObject({
      kind: 'CredentialProviderConfig',
    });
    expect(readFileSync(join(root, 'certs.d', 'registry.test:5000', 'hosts.toml'), 'utf8')).toContain(
      'server = "http://registry.test:5000"',
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
      nodes: [{ image: 'kindest/node:v1.37.1' }],
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
    const p = kindProvider({ run, env: env() });
    await expect(p.up(applyDefaults({ name: 't' }), silentProgress)).rejects.toThrow(
      /kind up: failed to create kind cluster credprov-t \(kind exit 1\)/,
    );
    expect(run.calls.some((c) => c.join(' ').startsWith('kind export logs'))).toBe(true);
    expect(run.calls.some((c) => c.join(' ') === 'kind delete cluster --name credprov-t')).toBe(true);
    expect(existsSync(join(tmp, 'state', 'env', 't'))).toBe(false);
  });

  test('down() is idempotent and deletes only the cluster credprov named', async () => {
    const run = scripted({ 'kind get clusters': { stdout: 'kind\nother\n' } });
    const p = kindProvider({ run, env: env() });
    await p.down('t');
    await p.down('t');
    expect(run.calls.filter((c) => c[1] === 'delete')).toEqual([]);
  });

  test('cluster names are prefixed and made DNS-safe', () => {
    expect(clusterName('My_Env')).toBe('credprov-my-env');
  });
});
