// kubectl (client-go) is the reference consumer of exec plugins. This suite
// runs a real kubectl against the same kubeconfigs and plugins credprov's
// runner uses, and checks that both agree: what the plugin is given
// (KUBERNETES_EXEC_INFO, env, stdin, resolved command) and why an answer is
// refused. No API server is needed: client-go runs the plugin before it
// dials, so a refused loopback port (127.0.0.1:1) is enough.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { execa } from 'execa';
import { issueClientCertificate } from '../../src/core/client-cert.ts';
import { InvocationLog } from '../../src/plugin/invocation.ts';
import { runExecPlugin, type ExecPlugin } from '../../src/plugin/client-exec.ts';
import { loadKubeconfigExecUser } from '../../src/api/exec/kubeconfig.ts';
import { testIf, type Prerequisite } from '../../src/testing/prerequisites.ts';
import { kubeCacheRoot, versionDir } from '../../src/cluster/binaries/cache.ts';
import { DEFAULT_KUBE_VERSION } from '../../src/versions/table.ts';

const V1 = 'client.authentication.k8s.io/v1';
// The reference client: kubectl of the default release from credprov's binary cache (scripts/setup.sh --cluster puts it there).
const cachedKubectl = join(versionDir(kubeCacheRoot(), DEFAULT_KUBE_VERSION), 'kubectl');
const kubectl = [process.env.CREDPROV_KUBECTL, cachedKubectl, '/usr/bin/kubectl', '/usr/local/bin/kubectl'].find(
  (p) => p && existsSync(p),
);
const present: Prerequisite = kubectl
  ? { ok: true }
  : { ok: false, reason: `no kubectl (run scripts/setup.sh --cluster, or set CREDPROV_KUBECTL)` };
const it = testIf(present);
const env = { ...process.env, KUBERC: 'off', CREDPROV_NODE: process.execPath };
let dir: string;

function kubeconfig(
  exec: Record<string, unknown>,
  cluster: Record<string, unknown> = { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true },
): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    clusters: [{ name: 'c', cluster }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    users: [{ name: 'u', user: { exec } }],
  });
}

/** What kubectl says went wrong getting credentials (the text after "getting credentials: "). */
async function kubectlCredentialError(file: string): Promise<string> {
  const r = await execa(kubectl!, ['--kubeconfig', file, 'get', '--raw', '/'], {
    reject: false,
    env,
    timeout: 60_000,
    stdin: 'ignore',
  });
  const m = /getting credentials: ([\s\S]*)$/.exec(r.stderr.trim());
  return m ? m[1]! : r.stderr.trim();
}

/** Same error as client-go, allowing for Go-only detail after the last ": " of ours (parser wording, scheme names). */
function agrees(ours: string, theirs: string): boolean {
  if (theirs.startsWith(ours)) return true;
  const cut = ours.lastIndexOf(': ');
  return cut > 0 && theirs.startsWith(ours.slice(0, cut));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'credprov-kubectl-exec-'));
  await mkdir(join(dir, 'sub'));
  await writeFile(
    join(dir, 'sub', 'record'),
    `#!/bin/sh\nout="$RECORD_DIR/$RECORD_AS"\nmkdir -p "$out"\nprintf '%s' "$KUBERNETES_EXEC_INFO" > "$out/exec-info"\nprintf '%s' "$FOO" > "$out/foo"\nreadlink /proc/self/fd/0 > "$out/stdin"\nprintf '%s' "$0" > "$out/argv0"\nprintf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"abc"}}'\n`,
  );
  await chmod(join(dir, 'sub', 'record'), 0o755);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('exec plugins: credprov runs them as kubectl does', () => {
  it('EP-CLIENTGO-EXEC-INFO: kubectl and credprov give the plugin the same KUBERNETES_EXEC_INFO, env, stdin and resolved command', async () => {
    const ca = Buffer.from(issueClientCertificate().certPem).toString('base64');
    const cluster = {
      server: 'https://127.0.0.1:1',
      'tls-server-name': 'kubernetes.test',
      'certificate-authority-data': ca,
      extensions: [
        { name: 'client.authentication.k8s.io/exec', extension: { audience: 'aud' } },
        { name: 'exec', extension: { ignored: true } },
      ],
    };
    const exec = {
      apiVersion: V1,
      command: 'sub/record',
      interactiveMode: 'Never',
      provideClusterInfo: true,
      env: [
        { name: 'KUBERNETES_EXEC_INFO', value: 'overridden?' },
        { name: 'FOO', value: 'bar' },
        { name: 'RECORD_DIR', value: join(dir, 'rec') },
        { name: 'RECORD_AS', value: 'kubectl' },
      ],
    };
    const file = join(dir, 'record.yaml');
    await writeFile(file, kubeconfig(exec, cluster));
    await kubectlCredentialError(file);

    const loaded = await loadKubeconfigExecUser(file);
    const plugin: ExecPlugin = {
      config: {
        ...loaded.config,
        env: loaded.config.env.map((e) => (e.name === 'RECORD_AS' ? { ...e, value: 'credprov' } : e)),
      },
      baseDir: loaded.baseDir,
      ...(loaded.cluster ? { cluster: loaded.cluster } : {}),
    };
    const inv = await runExecPlugin(plugin, {
      log: new InvocationLog(),
      timeoutMs: 10_000,
      stdin: { kind: 'client-go', isTerminal: false },
      cwd: '/',
    });
    expect(inv.exitCode).toBe(0);

    const read = (who: string, f: string) => readFile(join(dir, 'rec', who, f), 'utf8');
    for (const f of ['exec-info', 'foo', 'stdin', 'argv0'])
      expect([f, await read('credprov', f)]).toEqual([f, await read('kubectl', f)]);
    expect(JSON.parse(await read('kubectl', 'exec-info')).spec.cluster.config).toEqual({ audience: 'aud' });
    expect((await read('kubectl', 'stdin')).trim()).toBe('/dev/null');
    expect(await read('kubectl', 'argv0')).toBe(join(dir, 'sub', 'record'));
  }, 90_000);

  it('EP-CLIENTGO-NOT-FOUND: a missing binary gets the same message and installHint from both', async () => {
    const file = join(dir, 'missing.yaml');
    await writeFile(
      file,
      kubeconfig({
        apiVersion: V1,
        command: 'credprov-no-such-plugin',
        interactiveMode: 'Never',
        installHint: 'apt-get install credprov-no-such-plugin',
      }),
    );
    const theirs = await kubectlCredentialError(file);
    const loaded = await loadKubeconfigExecUser(file);
    const inv = await runExecPlugin(
      { config: loaded.config, baseDir: loaded.baseDir },
      { log: new InvocationLog(), timeoutMs: 10_000, stdin: { kind: 'none' } },
    );
    expect(inv.spawnError).toBe(theirs);
  }, 90_000);

  const refusals: Array<[string, string]> = [
    ['broken-wrong-api-version', V1],
    ['broken-ignores-exec-info-version', V1],
    ['broken-wrong-kind', V1],
    ['broken-no-status', V1],
    ['broken-no-credential', V1],
    ['broken-cert-without-key', V1],
    ['broken-mismatched-cert-and-key', V1],
    ['broken-bad-timestamp-format', V1],
    ['broken-stdout-noise', V1],
  ];
  it("EP-CLIENTGO-REFUSALS: kubectl refuses each broken plugin's answer for the reason credprov predicts", async () => {
    const rows: Array<{ name: string; ours: string; theirs: string }> = [];
    for (const [name, apiVersion] of refusals) {
      const file = join(dir, `${name}.yaml`);
      await writeFile(
        file,
        kubeconfig({ apiVersion, command: resolve('fixtures/exec-plugins', name), interactiveMode: 'Never' }),
      );
      const theirs = await kubectlCredentialError(file);
      const loaded = await loadKubeconfigExecUser(file);
      const inv = await runExecPlugin(
        { config: loaded.config, baseDir: loaded.baseDir },
        { log: new InvocationLog(), timeoutMs: 30_000, stdin: { kind: 'none' }, parentEnv: env },
      );
      rows.push({ name, ours: inv.decodeError ?? '(accepted)', theirs });
    }
    expect(rows.filter((r) => !agrees(r.ours, r.theirs))).toEqual([]);
  }, 300_000);

  const accepted: Array<[string, string]> = [
    ['fake-exec-plugin/fake-exec-plugin', '{"credential":"both"}'],
    ['exec-plugins/broken-yaml-output', ''],
    ['exec-plugins/broken-expired-cert', ''],
    ['exec-plugins/broken-no-expiry', ''],
  ];
  it("EP-CLIENTGO-ACCEPTS: what credprov's runner accepts, kubectl accepts too (it goes on to dial the server)", async () => {
    const rows: Array<{ name: string; ours: string; theirs: string }> = [];
    for (const [path, scenario] of accepted) {
      const file = join(dir, `${path.replace(/\//g, '_')}.yaml`);
      await writeFile(
        file,
        kubeconfig({
          apiVersion: V1,
          command: resolve('fixtures', path),
          args: scenario ? ['--scenario', scenario] : [],
          interactiveMode: 'Never',
        }),
      );
      const theirs = await kubectlCredentialError(file);
      const loaded = await loadKubeconfigExecUser(file);
      const inv = await runExecPlugin(
        { config: loaded.config, baseDir: loaded.baseDir },
        { log: new InvocationLog(), timeoutMs: 30_000, stdin: { kind: 'none' }, parentEnv: env },
      );
      rows.push({
        name: path,
        ours: inv.decodeError ?? 'accepted',
        theirs: /getting credentials/.test(theirs) ? theirs : 'accepted',
      });
    }
    expect(rows.filter((r) => r.ours !== 'accepted' || r.theirs !== 'accepted')).toEqual([]);
  }, 300_000);
});
