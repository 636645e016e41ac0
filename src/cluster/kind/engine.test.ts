import { describe, expect, test } from '@jest/globals';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { useTempDir } from '../../testing/tmp.ts';
import { boundingSetHasSysResource, ownEngineArgs, runcWrapperScript } from './engine.ts';
import { kubeletKubeconfigFor } from './kubelet-kubeconfig.ts';

const tmp = useTempDir('credprov-kind-engine-');

describe("credprov's own Docker engine", () => {
  test("reads CAP_SYS_RESOURCE (bit 24) from the capability bounding set: this host's lacks it", async () => {
    const status = (capBnd: string) => {
      const f = join(tmp(), `status-${capBnd}`);
      writeFileSync(f, `Name:\tnode\nCapEff:\t0000000000000000\nCapBnd:\t${capBnd}\n`);
      return f;
    };
    expect(await boundingSetHasSysResource(status('000001fffeffffff'))).toBe(false);
    expect(await boundingSetHasSysResource(status('000001ffffffffff'))).toBe(true);
  });

  test('the runc wrapper drops CAP_SYS_RESOURCE from a bundle and from an exec process spec, and passes every argument on', async () => {
    const dir = tmp();
    const fakeRunc = join(dir, 'runc');
    writeFileSync(fakeRunc, `#!/bin/sh\nprintf '%s\\n' "$@" > ${dir}/argv\n`);
    chmodSync(fakeRunc, 0o755);
    const wrapper = join(dir, 'wrapper');
    writeFileSync(wrapper, runcWrapperScript(fakeRunc));
    chmodSync(wrapper, 0o755);
    const caps = '["CAP_CHOWN","CAP_SYS_RESOURCE","CAP_SYS_ADMIN"]';
    const spec = (c: string) => `{"process":{"capabilities":{"bounding":${c},"effective":${c}}}}`;
    mkdirSync(join(dir, 'bundle'));
    writeFileSync(join(dir, 'bundle', 'config.json'), spec(caps));
    writeFileSync(
      join(dir, 'process.json'),
      '{"capabilities":{"bounding":["CAP_SYS_RESOURCE"],"permitted":["CAP_KILL","CAP_SYS_RESOURCE"]}}',
    );
    await execa(wrapper, ['--root', '/run/x', 'create', '--bundle', join(dir, 'bundle'), 'id1']);
    expect(readFileSync(join(dir, 'argv'), 'utf8')).toBe(
      `--root\n/run/x\ncreate\n--bundle\n${join(dir, 'bundle')}\nid1\n`,
    );
    expect(JSON.parse(readFileSync(join(dir, 'bundle', 'config.json'), 'utf8'))).toEqual(
      JSON.parse(spec('["CAP_CHOWN","CAP_SYS_ADMIN"]')),
    );
    await execa(wrapper, ['exec', `--process=${join(dir, 'process.json')}`, 'id1']);
    expect(JSON.parse(readFileSync(join(dir, 'process.json'), 'utf8'))).toEqual({
      capabilities: { bounding: [], permitted: ['CAP_KILL'] },
    });
  });

  test('runs confined (no iptables, no bridge of its own) with its data root in the cache, and the wrapper as default runtime only when needed', () => {
    const args = ownEngineArgs('/cache/kind/docker', true);
    expect(args).toEqual(expect.arrayContaining(['--iptables=false', '--ip-masq=false', '--bridge=none']));
    expect(args[args.indexOf('--data-root') + 1]).toBe('/cache/kind/docker');
    expect(args.slice(-4)).toEqual([
      '--add-runtime',
      'credprov-runc=/run/credprov-kind/runc-without-sys-resource',
      '--default-runtime',
      'credprov-runc',
    ]);
    expect(ownEngineArgs('/cache/kind/docker', false)).not.toContain('--default-runtime');
  });
});

describe("a kind node's kubelet kubeconfig", () => {
  test("the admin kubeconfig's cluster, the node's own certificate and key as system:node:<node>", () => {
    const admin =
      'apiVersion: v1\nkind: Config\nclusters:\n- name: kind-x\n  cluster:\n    server: https://127.0.0.1:40000\n    certificate-authority-data: Q0E=\nusers:\n- name: admin\n  user: {}\n';
    const pem =
      '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----\n';
    const kc = kubeletKubeconfigFor(admin, 'x-worker', pem);
    expect(kc).toContain('server: https://127.0.0.1:40000');
    expect(kc).toContain('current-context: system:node:x-worker');
    expect(kc).toContain(
      `client-key-data: ${Buffer.from('-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----\n').toString('base64')}`,
    );
    expect(() => kubeletKubeconfigFor(admin, 'x-worker', 'garbage')).toThrow(/lacks a certificate or a key/);
  });
});
