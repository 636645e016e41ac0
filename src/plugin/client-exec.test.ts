import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { ExecConfig } from '../api/exec/types.ts';
import { Redactor } from '../core/redact.ts';
import { decideInteractive, runExecPlugin, type ExecPlugin, type RunExecOptions } from './client-exec.ts';
import { InvocationLog, readInvocationLog } from './invocation.ts';

const V1 = 'client.authentication.k8s.io/v1';
const CREDENTIAL = `{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"tok-0123456789"}}`;
let root: string;
let out: string;

/** A shell plugin that records what it was given (argv, env, KUBERNETES_EXEC_INFO, stdin when asked) and answers `body`. */
async function script(path: string, body: string, mode = 0o755): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(
    path,
    `#!/bin/sh\nprintf '%s' "$KUBERNETES_EXEC_INFO" > "$OUT/exec-info"\nenv > "$OUT/env"\necho "$@" > "$OUT/argv"\n${body}\n`,
  );
  await chmod(path, mode);
  return path;
}

function plugin(config: Partial<ExecConfig>, extra: Partial<ExecPlugin> = {}): ExecPlugin {
  return {
    config: {
      command: 'bin/plugin',
      args: [],
      env: [],
      apiVersion: V1,
      interactiveMode: 'Never',
      provideClusterInfo: false,
      ...config,
    },
    baseDir: join(root, 'kube'),
    ...extra,
  };
}

function opts(o: Partial<RunExecOptions> = {}): RunExecOptions {
  return {
    log: new InvocationLog(),
    timeoutMs: 5000,
    stdin: { kind: 'none' },
    parentEnv: { PATH: process.env.PATH, OUT: out },
    cwd: root,
    ...o,
  };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'credprov-client-exec-'));
  out = join(root, 'out');
  await mkdir(out);
  await script(join(root, 'kube', 'bin', 'plugin'), `printf '%s' '${CREDENTIAL}'`);
  await script(join(root, 'path-bin', 'on-path-plugin'), `printf '%s' '${CREDENTIAL}'`);
  await script(join(root, 'kube', 'bin', 'reads-stdin'), `cat > "$OUT/stdin"\nprintf '%s' '${CREDENTIAL}'`);
  await script(join(root, 'kube', 'bin', 'fails'), 'echo "token for prod expired; run plugin login" >&2\nexit 3');
  await script(join(root, 'kube', 'bin', 'sleeps'), 'sleep 30 &\necho $! > "$OUT/child"\nwait');
  await script(join(root, 'kube', 'bin', 'not-executable'), 'true', 0o644);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('runExecPlugin: where the command comes from', () => {
  test('resolves a command with a path separator against the kubeconfig directory, not the cwd', async () => {
    const inv = await runExecPlugin(
      plugin({ command: 'bin/plugin', args: ['get-token', '--flag'] }),
      opts({ cwd: tmpdir() }),
    );
    expect(inv.argv).toEqual([join(root, 'kube', 'bin', 'plugin'), 'get-token', '--flag']);
    expect(inv.response?.status?.token).toBe('tok-0123456789');
    expect((await readFile(join(out, 'argv'), 'utf8')).trim()).toBe('get-token --flag');
  });

  test("looks a bare command name up on the client's PATH", async () => {
    const inv = await runExecPlugin(
      plugin({ command: 'on-path-plugin' }),
      opts({ parentEnv: { PATH: `${join(root, 'path-bin')}:/usr/bin:/bin`, OUT: out } }),
    );
    expect(inv.exitCode).toBe(0);
    expect(inv.argv[0]).toBe(join(root, 'path-bin', 'on-path-plugin'));
  });

  test('reports a missing binary as client-go does, with its help and the installHint without ANSI codes', async () => {
    const inv = await runExecPlugin(
      plugin({ command: 'credprov-missing-plugin', installHint: '\u001b[1mbrew install missing\u001b[0m' }),
      opts(),
    );
    expect(inv.spawnError).toBe(
      'exec: executable credprov-missing-plugin not found\n\nIt looks like you are trying to use a client-go credential plugin that is not installed.\n\n' +
        'To learn more about this feature, consult the documentation available at:\n      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins\n\nbrew install missing',
    );
    expect(inv.exitCode).toBeUndefined();
  });

  test('reports a file without the executable bit as permission denied, without the install help', async () => {
    const inv = await runExecPlugin(plugin({ command: './bin/not-executable', installHint: 'x' }), opts());
    expect(inv.spawnError).toBe(`exec: fork/exec ${join(root, 'kube', 'bin', 'not-executable')}: permission denied`);
  });

  test('refuses a script without a #! line as client-go does (exec format error), where a shell would run it with /bin/sh', async () => {
    const file = join(root, 'kube', 'bin', 'no-shebang');
    await writeFile(file, `printf '%s' '${CREDENTIAL}' > "$OUT/no-shebang-ran"\nprintf '%s' '${CREDENTIAL}'\n`);
    await chmod(file, 0o755);
    const inv = await runExecPlugin(plugin({ command: './bin/no-shebang' }), opts());
    expect(inv.spawnError).toBe(`exec: fork/exec ${file}: exec format error`);
    expect(inv.decodeError).toBe(inv.spawnError);
    expect(inv.response).toBeUndefined();
    await expect(readFile(join(out, 'no-shebang-ran'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});

describe('runExecPlugin: environment and KUBERNETES_EXEC_INFO', () => {
  test("passes the client's environment, then exec.env over it, then KUBERNETES_EXEC_INFO over both", async () => {
    const config = {
      env: [
        { name: 'PROFILE', value: 'from-kubeconfig' },
        { name: 'KUBERNETES_EXEC_INFO', value: 'overridden?' },
      ],
    };
    const inv = await runExecPlugin(
      plugin(config),
      opts({ parentEnv: { PATH: process.env.PATH, OUT: out, PROFILE: 'from-parent', KEEP: 'kept' } }),
    );
    const env = await readFile(join(out, 'env'), 'utf8');
    expect(env).toContain('PROFILE=from-kubeconfig\n');
    expect(env).toContain('KEEP=kept\n');
    expect(JSON.parse(await readFile(join(out, 'exec-info'), 'utf8'))).toMatchObject({ kind: 'ExecCredential' });
    expect(inv.envKeys).toEqual(['PROFILE', 'KUBERNETES_EXEC_INFO', 'KUBERNETES_EXEC_INFO']);
  });

  test('sends only kind, apiVersion and spec.interactive without provideClusterInfo, even when a cluster is known', async () => {
    await runExecPlugin(plugin({}, { cluster: { server: 'https://10.0.0.1:6443' } }), opts());
    expect(await readFile(join(out, 'exec-info'), 'utf8')).toBe(
      `{"kind":"ExecCredential","apiVersion":"${V1}","spec":{"interactive":false}}\n`,
    );
  });

  test('adds spec.cluster with provideClusterInfo, including the exec extension as config', async () => {
    const cluster = {
      server: 'https://10.0.0.1:6443',
      'tls-server-name': 'k8s',
      'certificate-authority-data': 'YmF6',
      config: { audience: 'a' },
    };
    await runExecPlugin(
      plugin({ provideClusterInfo: true, apiVersion: 'client.authentication.k8s.io/v1beta1' }, { cluster }),
      opts(),
    );
    // Byte for byte what kubectl 1.32 sends for the same stanza (checked with /usr/bin/kubectl).
    expect(await readFile(join(out, 'exec-info'), 'utf8')).toBe(
      JSON.stringify({
        kind: 'ExecCredential',
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        spec: { cluster, interactive: false },
      }) + '\n',
    );
  });

  test('sends the override apiVersion and expects it back', async () => {
    const inv = await runExecPlugin(plugin({}), opts({ apiVersion: 'client.authentication.k8s.io/v1beta1' }));
    expect(JSON.parse(await readFile(join(out, 'exec-info'), 'utf8')).apiVersion).toBe(
      'client.authentication.k8s.io/v1beta1',
    );
    expect(inv.decodeError).toBe(
      'exec plugin is configured to use API version client.authentication.k8s.io/v1beta1, plugin returned version client.authentication.k8s.io/v1',
    );
  });
});

describe('runExecPlugin: stdin', () => {
  test('gives a non-interactive plugin /dev/null, so a read ends at once', async () => {
    const inv = await runExecPlugin(plugin({ command: 'bin/reads-stdin' }), opts({ stdin: { kind: 'none' } }));
    expect(inv.exitCode).toBe(0);
    expect(inv.interactive).toBe(false);
    expect(await readFile(join(out, 'stdin'), 'utf8')).toBe('');
  });

  test('hands scripted input to an interactive plugin and tells it spec.interactive=true', async () => {
    const inv = await runExecPlugin(
      plugin({ command: 'bin/reads-stdin', interactiveMode: 'Always' }),
      opts({ stdin: { kind: 'input', data: 'hunter2\n' } }),
    );
    expect(inv.exitCode).toBe(0);
    expect(await readFile(join(out, 'stdin'), 'utf8')).toBe('hunter2\n');
    expect(JSON.parse(await readFile(join(out, 'exec-info'), 'utf8')).spec.interactive).toBe(true);
  });

  test('catches a plugin that reads an open, silent stdin when not interactive: it is killed at the timeout', async () => {
    const inv = await runExecPlugin(
      plugin({ command: 'bin/reads-stdin' }),
      opts({ stdin: { kind: 'silent-pipe' }, timeoutMs: 400 }),
    );
    expect(inv.timedOut).toBe(true);
    expect(inv.decodeError).toContain('did not finish within 400 ms');
  });

  test('refuses to run an Always plugin without a terminal, as client-go does', async () => {
    const inv = await runExecPlugin(
      plugin({ interactiveMode: 'Always' }),
      opts({ stdin: { kind: 'client-go', isTerminal: false } }),
    );
    expect(inv.spawnError).toBe('exec plugin cannot support interactive mode: standard input is not a terminal');
  });

  test("decides interactivity like client-go's isInteractive", () => {
    expect(decideInteractive('Never', { isTerminal: true })).toEqual({ interactive: false });
    expect(decideInteractive('IfAvailable', { isTerminal: true })).toEqual({ interactive: true });
    expect(decideInteractive('IfAvailable', { isTerminal: false })).toEqual({ interactive: false });
    expect(
      decideInteractive('IfAvailable', {
        isTerminal: true,
        unavailableMessage: 'used by stdin resource manifest reader',
      }),
    ).toEqual({ interactive: false });
    expect(
      decideInteractive('Always', { isTerminal: true, unavailableMessage: 'used by stdin resource manifest reader' }),
    ).toEqual({
      error:
        'exec plugin cannot support interactive mode: standard input is unavailable: used by stdin resource manifest reader',
    });
  });
});

describe('runExecPlugin: outcomes', () => {
  test('kills the plugin and everything it started when the timeout passes', async () => {
    const inv = await runExecPlugin(plugin({ command: 'bin/sleeps' }), opts({ timeoutMs: 300 }));
    expect(inv.timedOut).toBe(true);
    expect(inv.durationMs).toBeLessThan(5000);
    const child = Number((await readFile(join(out, 'child'), 'utf8')).trim());
    await new Promise((r) => setTimeout(r, 100));
    // Gone, or a zombie waiting for a PID 1 that may not reap (containers): either way not running.
    const state = await readFile(`/proc/${child}/stat`, 'utf8').then(
      (s) => s.split(') ')[1]![0],
      () => 'gone',
    );
    expect(['gone', 'Z', 'X']).toContain(state);
  });

  test("reports a non-zero exit in client-go's words and keeps stderr for the report", async () => {
    const inv = await runExecPlugin(plugin({ command: 'bin/fails' }), opts());
    expect(inv.exitCode).toBe(3);
    expect(inv.decodeError).toBe(`exec: executable ${join(root, 'kube', 'bin', 'fails')} failed with exit code 3`);
    expect(inv.stderr).toBe('token for prod expired; run plugin login\n');
  });

  test('reports death by a signal in client-go\'s words: exit code -1 (ProcessState.ExitCode), not "undefined" or a Node signal name', async () => {
    await script(join(root, 'kube', 'bin', 'segfaults'), 'ulimit -c 0 2>/dev/null\nkill -SEGV $$');
    const inv = await runExecPlugin(plugin({ command: 'bin/segfaults' }), opts());
    expect(inv.signal).toBe('SIGSEGV');
    expect(inv.decodeError).toBe(`exec: executable ${join(root, 'kube', 'bin', 'segfaults')} failed with exit code -1`);
  });

  test('appends every run to the invocation log, with the returned token redacted', async () => {
    const file = join(root, 'log', 'invocations.jsonl');
    const redactor = new Redactor();
    const log = new InvocationLog(file, redactor);
    await runExecPlugin(plugin({}), opts({ log, redactor, label: 'main' }));
    expect(log.records).toHaveLength(1);
    const [record] = await readInvocationLog(file);
    expect(record).toMatchObject({ id: 'main-0001', protocol: 'client-exec', exitCode: 0 });
    expect(JSON.stringify(record)).not.toContain('tok-0123456789');
  });
});
