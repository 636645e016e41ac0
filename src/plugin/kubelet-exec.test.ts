import { describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { chmod, copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redactor } from '../core/redact.ts';
import { InvocationLog, readInvocationLog } from './invocation.ts';
import { pluginEnv, runKubeletPlugin } from './kubelet-exec.ts';
import { useTempDir } from '../testing/tmp.ts';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const request = { apiVersion: V1, kind: 'CredentialProviderRequest' as const, image: 'reg.example/app' };
const goodResponse = JSON.stringify({
  apiVersion: V1,
  kind: 'CredentialProviderResponse',
  cacheKeyType: 'Registry',
  auth: { 'reg.example': { username: 'u', password: 'hunter22' } },
});

const dir = useTempDir('credprov-kexec-');

/** 'gone', or the state letter from /proc (a killed orphan may linger as a zombie until its reaper runs). */
async function processState(pid: number): Promise<string> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return 'gone';
  }
}

async function script(name: string, body: string, mode = 0o755): Promise<string> {
  const file = join(dir(), name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, mode);
  return file;
}

describe('runKubeletPlugin', () => {
  test('runs <binDir>/<name> with the args and writes the request JSON to stdin', async () => {
    await script('echo-plugin', 'printf "%s\\n" "$0" "$@" >&2; cat');
    const inv = await runKubeletPlugin({ binDir: dir(), name: 'echo-plugin', args: ['--a', 'b c'], request });
    expect(inv.argv).toEqual([join(dir(), 'echo-plugin'), '--a', 'b c']);
    expect(inv.stderr).toBe(`${join(dir(), 'echo-plugin')}\n--a\nb c\n`);
    expect(JSON.parse(inv.stdout)).toEqual(request);
    expect(inv.protocol).toBe('kubelet-credential-provider');
  });

  test("gives the plugin the parent environment with the config's env appended, later entries winning", async () => {
    const plugin = await script('env-plugin', 'echo "A=$A B=$B C=$C" >&2; exit 3');
    const inv = await runKubeletPlugin({
      path: plugin,
      parentEnv: { A: 'parent', B: 'parent', PATH: process.env.PATH },
      env: [
        { name: 'B', value: 'config' },
        { name: 'C', value: 'first' },
        { name: 'C', value: 'second' },
      ],
      request,
    });
    expect(inv.stderr.trim()).toBe('A=parent B=config C=second');
    // The config's names only; the caller's own variables are counted, not listed.
    expect(inv.envKeys).toEqual(['B', 'C']);
    expect(inv.inheritedEnv).toBe(2);
    expect(inv.exitCode).toBe(3);
    expect(inv.response).toBeUndefined();
    expect(inv.decodeError).toBeUndefined();
  });

  test('decodes stdout strictly against the configured apiVersion when the plugin exits 0', async () => {
    const plugin = await script('good', `cat >/dev/null; echo '${goodResponse}'`);
    const ok = await runKubeletPlugin({ path: plugin, request });
    expect(ok.exitCode).toBe(0);
    expect(ok.response).toMatchObject({ cacheKeyType: 'Registry' });
    const wrong = await runKubeletPlugin({
      path: plugin,
      request: { ...request, apiVersion: 'credentialprovider.kubelet.k8s.io/v1beta1' },
    });
    expect(wrong.response).toBeUndefined();
    expect(wrong.decodeError).toMatch(/apiVersion/);
  });

  test('records a decode error for stdout that is not a response', async () => {
    const plugin = await script('garbage', 'echo OK');
    const inv = await runKubeletPlugin({ path: plugin, request });
    expect(inv.exitCode).toBe(0);
    expect(inv.decodeError).toBeDefined();
  });

  test('decodes a 5 MiB answer whole, as the kubelet reads all of stdout', async () => {
    const head = `{"apiVersion":"${V1}","kind":"CredentialProviderResponse","cacheKeyType":"Registry","auth":{"reg.example":{"username":"u","password":"`;
    const plugin = await script(
      'big-valid',
      `cat >/dev/null; printf '%s' '${head}'; head -c 5242880 /dev/zero | tr '\\0' p; printf '"}}}\\n'`,
    );
    const inv = await runKubeletPlugin({ path: plugin, request, timeoutMs: 30_000 });
    expect(inv).not.toHaveProperty('outputBytes');
    expect(inv.decodeError).toBeUndefined();
    expect(inv.response).toBeDefined();
  }, 30_000);

  test("does not decode an answer still going at credprov's own 64 MiB limit: the decode error says where it was cut", async () => {
    const head = `{"apiVersion":"${V1}","kind":"CredentialProviderResponse","cacheKeyType":"Registry","auth":{"reg.example":{"username":"u","password":"`;
    const plugin = await script(
      'huge-valid',
      `cat >/dev/null; printf '%s' '${head}'; head -c 68157440 /dev/zero | tr '\\0' p; printf '"}}}\\n'`,
    );
    const inv = await runKubeletPlugin({ path: plugin, request, timeoutMs: 30_000 });
    const total = head.length + 68157440 + 5;
    expect(inv.outputBytes).toEqual({ stdout: total, stderr: 0 });
    expect(inv.decodeError).toBe(`stdout was cut at 67108864 bytes of ${total}`);
    expect(inv).not.toHaveProperty('response');
  }, 30_000);

  test('kills the whole process tree when the timeout passes', async () => {
    const pidFile = join(dir(), 'grandchild.pid');
    const plugin = await script('hang', `sleep 30 & echo $! > ${pidFile}; wait`);
    const inv = await runKubeletPlugin({ path: plugin, request, timeoutMs: 300 });
    expect(inv.timedOut).toBe(true);
    expect(inv.signal).toBe('SIGKILL');
    expect(inv.durationMs).toBeLessThan(5000);
    const grandchild = Number(await readFile(pidFile, 'utf8'));
    await new Promise((r) => setTimeout(r, 50));
    expect(await processState(grandchild)).toMatch(/^(gone|Z)$/);
  });

  test('waits out a timeout longer than a Node timer can hold (2^31-1 ms): --timeout 597h is not a 1 ms timeout', async () => {
    const plugin = await script('slow-enough', `cat >/dev/null; sleep 0.2; echo '${goodResponse}'`);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const inv = await runKubeletPlugin({ path: plugin, request, timeoutMs: 597 * 3_600_000 });
      expect({ timedOut: inv.timedOut, exitCode: inv.exitCode }).toEqual({ timedOut: false, exitCode: 0 });
      expect(inv.response).toBeDefined();
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain('TimeoutOverflowWarning');
  });

  test('reports a missing plugin as a spawn error, not an exception', async () => {
    const inv = await runKubeletPlugin({ path: join(dir(), 'nope'), request });
    expect(inv.spawnError).toBe(`fork/exec ${join(dir(), 'nope')}: no such file or directory`);
    expect(inv.exitCode).toBeUndefined();
  });

  test('reports a plugin that is not executable as a spawn error', async () => {
    const plugin = await script('not-exec', 'exit 0', 0o644);
    const inv = await runKubeletPlugin({ path: plugin, request });
    expect(inv.spawnError).toMatch(/permission denied/);
  });

  test('refuses a script without a #! line with exec format error, as execve does, and never runs it (no /bin/sh fallback)', async () => {
    const file = join(dir(), 'no-shebang');
    const ran = join(dir(), 'no-shebang-ran');
    await writeFile(file, `touch '${ran}'\ncat >/dev/null; echo '${goodResponse}'\n`);
    await chmod(file, 0o755);
    const inv = await runKubeletPlugin({ path: file, request });
    expect(inv.spawnError).toBe(`fork/exec ${file}: exec format error`);
    expect(inv).not.toHaveProperty('exitCode');
    expect(inv).not.toHaveProperty('response');
    expect(existsSync(ran)).toBe(false);
  });

  test('refuses an empty executable file with exec format error too', async () => {
    const file = join(dir(), 'empty');
    await writeFile(file, '');
    await chmod(file, 0o755);
    expect((await runKubeletPlugin({ path: file, request })).spawnError).toBe(`fork/exec ${file}: exec format error`);
  });

  test('runs an ELF binary and a #! script as before', async () => {
    const elf = join(dir(), 'elf-true');
    await copyFile('/bin/true', elf);
    await chmod(elf, 0o755);
    expect(await runKubeletPlugin({ path: elf, request })).toMatchObject({ exitCode: 0 });
    const shebang = join(dir(), 'shebang-with-blank-after-bang');
    await writeFile(shebang, '#! /bin/sh\nexit 4\n');
    await chmod(shebang, 0o755);
    expect(await runKubeletPlugin({ path: shebang, request })).toMatchObject({ exitCode: 4 });
  });

  test('sends raw stdin when asked, to provoke a plugin with a malformed request', async () => {
    const plugin = await script('cat-err', 'cat >&2; exit 1');
    const inv = await runKubeletPlugin({ path: plugin, request: { raw: 'not json' }, apiVersion: V1 });
    expect(inv.stderr).toBe('not json');
    expect(inv.request).toBe('not json');
  });

  test('appends every run to the invocation log with returned passwords redacted', async () => {
    const plugin = await script('good2', `cat >/dev/null; echo '${goodResponse}'`);
    const file = join(dir(), 'log.jsonl');
    const redactor = new Redactor();
    const log = new InvocationLog(file, redactor);
    const inv = await runKubeletPlugin({ path: plugin, request, log, redactor });
    expect(log.records).toEqual([inv]);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('hunter22');
    expect((await readInvocationLog(file))[0]!.id).toBe(inv.id);
  });
});

describe('pluginEnv', () => {
  test('drops undefined values and lets config entries override', () => {
    expect(pluginEnv({ A: '1', B: undefined }, [{ name: 'A', value: '2' }])).toEqual({ A: '2' });
  });
});
