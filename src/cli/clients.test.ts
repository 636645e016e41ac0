// credprov clients ls / ensure: which exec-plugin clients this machine can run.
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { runCli } from '../testing/cli.ts';
import { useTempDir } from '../testing/tmp.ts';

const dir = useTempDir('credprov-cli-clients-ls-');

describe('credprov clients', () => {
  test('ls --json lists the four clients, each with a version or why it cannot run', async () => {
    const r = await runCli(['clients', 'ls', '--json'], { json: true });
    const out = JSON.parse(r.stdout) as {
      kubeVersion: string;
      clients: Array<{ name: string; ok: boolean; version?: string; reason?: string }>;
    };
    expect(out.clients.map((c) => c.name)).toEqual(['kubectl', 'client-go', 'client-node', 'python']);
    for (const c of out.clients) expect(c.ok ? c.version : c.reason).toBeTruthy();
    expect(r.code).toBe(out.clients.every((c) => c.ok) ? 0 : 1);
  }, 60_000);

  test('with an empty cache, ls says how to get each missing client and exits 1', async () => {
    const r = await runCli(['clients', 'ls'], { env: { ...process.env, CREDPROV_CACHE_DIR: join(dir(), 'empty') } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/kubectl +unavailable: no kubectl v\d+\.\d+\.\d+ at .*binaries ensure/);
    expect(r.stdout).toMatch(/client-go +unavailable: .*clients ensure/);
    expect(r.stdout).toMatch(/python +unavailable: .*scripts\/setup\.sh/);
    expect(r.stdout).toMatch(/client-node +2\.0\.1/);
  }, 60_000);

  test('--kube-version must be exact: kubectl and client-go are taken at one release', async () => {
    const r = await runCli(['clients', 'ensure', '--kube-version', '1.37']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: clients ensure: --kube-version "1.37" is not an exact version');
  });
});
