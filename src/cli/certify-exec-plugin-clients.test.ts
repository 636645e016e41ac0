// `credprov certify exec-plugin --clients` as a user meets it: a real credprov
// process certifies the plugins only a real client refuses, and names the
// client and its words; bad --clients values are input errors (exit 2) that
// say how to get a missing client.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { availableProbes } from '../clients/index.ts';
import { all, testIf } from '../testing/prerequisites.ts';
import { useTempDir } from '../testing/tmp.ts';

const dir = useTempDir('credprov-cli-clients-');
const probes = await availableProbes();
const have = (...names: string[]) =>
  all(
    ...probes
      .filter((p) => names.includes(p.probe.name))
      .map((p) =>
        p.availability.ok ? { ok: true } : { ok: false, reason: `${p.probe.name}: ${p.availability.reason}` },
      ),
  );
const V1 = 'client.authentication.k8s.io/v1';

function credprov(args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, [resolve('bin/credprov.js'), 'certify', 'exec-plugin', ...args], {
    reject: false,
    cwd: dir(),
    env: { CREDPROV_NODE: process.execPath, ...env },
  });
}

async function report(out: string): Promise<{
  subject: { clients: Array<{ name: string; version: string }> };
  checks: Array<{ id: string; status: string; message: string }>;
}> {
  return JSON.parse(await readFile(join(out, 'report.json'), 'utf8'));
}

describe('credprov certify exec-plugin --clients', () => {
  testIf(have('client-go', 'python'))(
    'broken-no-kind: client-go accepts it, python does not: exit 1, EP-CLIENT-PYTHON names python and its error',
    async () => {
      const out = join(dir(), 'no-kind');
      const r = await credprov([
        '--command',
        resolve('fixtures/exec-plugins/broken-no-kind'),
        '--api-version',
        V1,
        '--clients',
        'client-go,python',
        '--report-dir',
        out,
      ]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(
        /^FAIL MUST {3}EP-CLIENT-PYTHON: python 37\.0\.2 sent its request without a credential.*exec: malformed response\. missing key 'kind'/m,
      );
      expect(r.stderr).toMatch(/^PASS MUST {3}EP-CLIENT-CLIENT-GO: client-go v0\.\d+\.\d+ accepts/m);
      const rep = await report(out);
      expect(rep.subject.clients.map((c) => c.name)).toEqual(['client-go', 'python']);
      expect(rep.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(['EP-CLIENT-PYTHON']);
    },
    120_000,
  );

  testIf(have('client-node'))(
    "broken-requires-exec-info: client-node sends no KUBERNETES_EXEC_INFO: exit 1, EP-CLIENT-CLIENT-NODE names client-node and the plugin's error",
    async () => {
      const out = join(dir(), 'exec-info');
      const r = await credprov([
        '--command',
        resolve('fixtures/exec-plugins/broken-requires-exec-info'),
        '--api-version',
        V1,
        '--clients',
        'client-node',
        '--report-dir',
        out,
      ]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(
        /^FAIL MUST {3}EP-CLIENT-CLIENT-NODE: client-node 2\.0\.1 refuses the plugin's answer: ".*KUBERNETES_EXEC_INFO is not set/m,
      );
      expect((await report(out)).checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual([
        'EP-CLIENT-CLIENT-NODE',
      ]);
    },
    120_000,
  );

  testIf(have('kubectl', 'client-go', 'client-node', 'python'))(
    'without --clients every available client runs, and the report names each with its version',
    async () => {
      const out = join(dir(), 'default');
      const r = await credprov([
        '--command',
        resolve('fixtures/fake-exec-plugin/fake-exec-plugin'),
        '--api-version',
        V1,
        '--interactive-mode',
        'Never',
        '--report-dir',
        out,
      ]);
      expect(r.exitCode).toBe(0);
      const rep = await report(out);
      expect(rep.subject.clients.map((c) => c.name)).toEqual(['kubectl', 'client-go', 'client-node', 'python']);
      expect(rep.subject.clients.every((c) => c.version)).toBe(true);
      expect(rep.checks.filter((c) => c.id.startsWith('EP-CLIENT-')).map((c) => c.status)).toEqual([
        'passed',
        'passed',
        'passed',
        'passed',
      ]);
    },
    120_000,
  );

  test('--clients none runs no client', async () => {
    const out = join(dir(), 'none');
    const r = await credprov([
      '--command',
      resolve('fixtures/fake-exec-plugin/fake-exec-plugin'),
      '--api-version',
      V1,
      '--interactive-mode',
      'Never',
      '--clients',
      'none',
      '--report-dir',
      out,
    ]);
    expect(r.exitCode).toBe(0);
    const rep = await report(out);
    expect(rep.subject.clients).toEqual([]);
    expect(rep.checks.some((c) => c.id.startsWith('EP-CLIENT-'))).toBe(false);
  }, 60_000);

  test('an unknown client is an input error naming the ones credprov knows', async () => {
    const r = await credprov(['--command', 'p', '--api-version', V1, '--clients', 'kubectl,curl']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('error: certify exec-plugin: --clients "curl" is not a client credprov knows');
    expect(r.stderr).toContain(
      'hint: use some of kubectl, client-go, client-node, python, fabric8, kube-rs, kubernetes-asyncio, or all, or none',
    );
  });

  test('a named client this machine lacks is an input error (exit 2) before any plugin runs, saying how to get it', async () => {
    // An empty cache: no client-go probe build, no Python venv, no kubectl.
    const r = await credprov(
      [
        '--command',
        resolve('fixtures/fake-exec-plugin/fake-exec-plugin'),
        '--api-version',
        V1,
        '--clients',
        'client-go,python',
      ],
      { CREDPROV_CACHE_DIR: join(dir(), 'empty-cache') },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      'error: certify exec-plugin: --clients names client-go, python, which this machine cannot run',
    );
    expect(r.stderr).toContain('scripts/credprov clients ensure');
    expect(r.stderr).toContain('scripts/setup.sh');
    expect(r.stdout).toBe('');
  });
});
