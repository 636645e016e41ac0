// runKubeletPlugin against plugins that fight back: daemons that keep stdout
// open, grandchildren in sessions of their own, SIGTERM ignored, output by the
// hundred megabytes. Whatever they do, the run returns by its deadline, says
// what it found, and leaves no process behind.
import { afterEach, describe, expect, test } from '@jest/globals';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { killMarked, markedAfter, newMarker, TEST_MARKER_ENV } from '../testing/processes.ts';
import { useTempDir } from '../testing/tmp.ts';
import { killRunningPlugins, runKubeletPlugin } from './kubelet-exec.ts';
import { NOISE_KEPT_BYTES } from './output-capture.ts';

const V1 = 'credentialprovider.kubelet.k8s.io/v1';
const request = { apiVersion: V1, kind: 'CredentialProviderRequest' as const, image: 'reg.example/app' };
const RESPONSE = JSON.stringify({
  apiVersion: V1,
  kind: 'CredentialProviderResponse',
  cacheKeyType: 'Registry',
  auth: { 'reg.example': { username: 'u', password: 'p' } },
});

const dir = useTempDir('credprov-kexec-hostile-');
let marker = newMarker();

afterEach(() => {
  // A failing test must not leave its sleepers for the next one.
  killMarked(marker);
  marker = newMarker();
});

async function script(name: string, body: string): Promise<string> {
  const file = join(dir(), name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

function run(path: string, timeoutMs: number) {
  return runKubeletPlugin({
    path,
    request,
    timeoutMs,
    parentEnv: { PATH: process.env.PATH, [TEST_MARKER_ENV]: marker },
  });
}

describe('runKubeletPlugin with hostile plugins', () => {
  test('returns soon after the plugin exits although a setsid daemon keeps stdout open, and names and kills that daemon', async () => {
    const plugin = await script('daemon', `cat >/dev/null\nsetsid sleep 30 &\nprintf '%s' '${RESPONSE}'`);
    const t0 = Date.now();
    const inv = await run(plugin, 10_000);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(inv.timedOut).toBe(false);
    expect(inv.exitCode).toBe(0);
    expect(inv.response).toMatchObject({ cacheKeyType: 'Registry' });
    expect(inv.strays).toEqual([
      { pid: expect.any(Number), cmdline: expect.stringMatching(/sleep 30$/), holds: ['stdout', 'stderr'] },
    ]);
    expect(await markedAfter(marker)).toEqual([]);
  }, 20_000);

  test('ends at the timeout plus a short grace when the plugin hangs and its setsid daemon holds stdout', async () => {
    const plugin = await script('daemon-hang', 'setsid sleep 30 &\nsleep 30');
    const t0 = Date.now();
    const inv = await run(plugin, 500);
    expect(Date.now() - t0).toBeLessThan(500 + 2500);
    expect(inv.timedOut).toBe(true);
    expect(inv.strays?.map((s) => s.holds)).toEqual([['stdout', 'stderr']]);
    expect(await markedAfter(marker)).toEqual([]);
  }, 20_000);

  test('kills a plugin that ignores SIGTERM at the timeout', async () => {
    const plugin = await script('no-term', "trap '' TERM\nwhile :; do sleep 1; done");
    const t0 = Date.now();
    const inv = await run(plugin, 500);
    expect(Date.now() - t0).toBeLessThan(500 + 2500);
    expect(inv.timedOut).toBe(true);
    expect(await markedAfter(marker)).toEqual([]);
  }, 20_000);

  test('is not held up by a setsid grandchild that closed its outputs, and kills it as a leftover', async () => {
    const plugin = await script(
      'grandchild',
      `cat >/dev/null\nsetsid sleep 30 </dev/null >/dev/null 2>&1 &\nprintf '%s' '${RESPONSE}'`,
    );
    const t0 = Date.now();
    const inv = await run(plugin, 10_000);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(inv.response).toBeDefined();
    expect(inv.strays).toEqual([{ pid: expect.any(Number), cmdline: expect.stringMatching(/sleep 30$/), holds: [] }]);
    expect(await markedAfter(marker)).toEqual([]);
  }, 20_000);

  test('ends every run in flight at once when credprov is interrupted, daemons included', async () => {
    const plugin = await script('daemon-hang-2', 'setsid sleep 30 &\nsleep 30');
    const pending = run(plugin, 60_000);
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    killRunningPlugins();
    const inv = await pending;
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(inv.timedOut).toBe(false);
    expect(await markedAfter(marker)).toEqual([]);
  }, 20_000);

  test('reads 200 MB of stdout without keeping it: what decides the verdict is kept (the first byte is not "{") and the size is recorded', async () => {
    const plugin = await script('huge', 'cat >/dev/null\nhead -c 209715200 /dev/zero | tr "\\0" "x"\necho');
    const before = process.memoryUsage().rss;
    const inv = await run(plugin, 30_000);
    expect(inv.exitCode).toBe(0);
    expect(inv.stdout.length).toBe(NOISE_KEPT_BYTES);
    expect(inv.outputBytes).toEqual({ stdout: 209715201, stderr: 0 });
    expect(inv.decodeError).toBeDefined();
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
  }, 60_000);
});
