// runExecPlugin against plugins that fight back: it returns by its deadline
// whatever their descendants do, names what was left holding stdout, and
// leaves no process behind.
import { afterEach, describe, expect, test } from '@jest/globals';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { killMarked, markedAfter, newMarker, TEST_MARKER_ENV } from '../testing/processes.ts';
import { useTempDir } from '../testing/tmp.ts';
import { killRunningExecPlugins, runExecPlugin, type ExecPlugin } from './client-exec.ts';
import { InvocationLog } from './invocation.ts';
import { MAX_STDOUT_BYTES } from './output-capture.ts';

const V1 = 'client.authentication.k8s.io/v1';
const CREDENTIAL = `{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"tok-0123456789"}}`;

const dir = useTempDir('credprov-cexec-hostile-');
let marker = newMarker();

afterEach(() => {
  killMarked(marker);
  marker = newMarker();
});

async function plugin(name: string, body: string): Promise<ExecPlugin> {
  const file = join(dir(), name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return {
    config: { command: file, args: [], env: [], apiVersion: V1, interactiveMode: 'Never', provideClusterInfo: false },
    baseDir: dir(),
  };
}

function run(p: ExecPlugin, timeoutMs: number) {
  return runExecPlugin(p, {
    log: new InvocationLog(),
    timeoutMs,
    stdin: { kind: 'none' },
    parentEnv: { PATH: process.env.PATH, [TEST_MARKER_ENV]: marker },
  });
}

describe('runExecPlugin with hostile plugins', () => {
  test('returns soon after the plugin exits although a setsid daemon keeps stdout open, and names and kills that daemon', async () => {
    const p = await plugin('daemon', `setsid sleep 30 &\nprintf '%s' '${CREDENTIAL}'`);
    const t0 = Date.now();
    const inv = await run(p, 10_000);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(inv.exitCode).toBe(0);
    expect(inv.response).toBeDefined();
    expect(inv.strays).toEqual([
      { pid: expect.any(Number), cmdline: expect.stringMatching(/sleep 30$/), holds: ['stdout', 'stderr'] },
    ]);
    expect(await markedAfter(marker)).toEqual([]);
  }, 20_000);

  test('ends at the timeout plus a short grace when the plugin hangs and its setsid daemon holds stdout', async () => {
    const p = await plugin('daemon-hang', 'setsid sleep 30 &\nsleep 30');
    const t0 = Date.now();
    const inv = await run(p, 500);
    // Far below the 30 s the daemon holds stdout (a hang), with room for a loaded machine (over 3 s seen at load 15-20).
    expect(Date.now() - t0).toBeLessThan(500 + 9500);
    expect(inv.timedOut).toBe(true);
    expect(await markedAfter(marker)).toEqual([]);
  }, 20_000);

  test('kills a setsid grandchild that closed its outputs as a leftover', async () => {
    const p = await plugin('grandchild', `setsid sleep 30 </dev/null >/dev/null 2>&1 &\nprintf '%s' '${CREDENTIAL}'`);
    const inv = await run(p, 10_000);
    expect(inv.response).toBeDefined();
    expect(inv.strays).toEqual([{ pid: expect.any(Number), cmdline: expect.stringMatching(/sleep 30$/), holds: [] }]);
    expect(await markedAfter(marker)).toEqual([]);
  }, 20_000);

  test('finds such a grandchild run after run, also when it is still inside execve as the plugin exits', async () => {
    // The window of new pids is read at once after the exit: an environment read mid-exec is empty.
    // Before that was handled, 3-4 runs in 100 missed the grandchild; 60 runs catch that with 9 in 10 odds.
    const p = await plugin(
      'grandchildren',
      `setsid sleep 30 </dev/null >/dev/null 2>&1 &\nprintf '%s' '${CREDENTIAL}'`,
    );
    const missed: number[] = [];
    for (let i = 0; i < 60; i++) if ((await run(p, 10_000)).strays?.length !== 1) missed.push(i);
    expect(missed).toEqual([]);
    expect(await markedAfter(marker)).toEqual([]);
  }, 60_000);

  test('ends every run in flight at once when credprov is interrupted', async () => {
    const p = await plugin('daemon-hang-2', 'setsid sleep 30 &\nsleep 30');
    const pending = run(p, 60_000);
    await new Promise((r) => setTimeout(r, 300));
    const t0 = Date.now();
    killRunningExecPlugins();
    await pending;
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(await markedAfter(marker)).toEqual([]);
  }, 20_000);

  test('keeps the first 64 MiB of a 200 MB stdout that could still be YAML to client-go, and records the size', async () => {
    const p = await plugin('huge', 'head -c 209715200 /dev/zero | tr "\\0" "x"');
    const inv = await run(p, 30_000);
    expect(inv.exitCode).toBe(0);
    expect(inv.stdout.length).toBe(MAX_STDOUT_BYTES);
    expect(inv.outputBytes).toEqual({ stdout: 209715200, stderr: 0 });
  }, 60_000);
});
