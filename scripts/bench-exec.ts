// What the exec runner costs and what a certification costs, on this machine.
//   node scripts/bench-exec.ts [rounds]
// Prints JSON: per-run wall time of a trivial /bin/sh plugin run raw (execa) and
// through runExecPlugin (resolution, env, decode, invocation record), and the
// wall time of a whole certification of the fake Node plugin (14 runs).
// runnerOverheadP50Ms compares medians with execa's; runnerOverVsBareSpawn is
// the paired difference with a bare node:child_process spawn of the same
// plugin, in wall time and in this process's CPU time (user + system), which a
// loaded machine inflates far less.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { certifyExecPlugin } from '../src/certify/exec-plugin/certify.ts';
import { InvocationLog } from '../src/plugin/invocation.ts';
import { runExecPlugin, type ExecPlugin } from '../src/plugin/client-exec.ts';

const rounds = Number(process.argv[2] ?? 30);
const V1 = 'client.authentication.k8s.io/v1';

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 100) / 100;
  return { n: s.length, p50: q(0.5), p90: q(0.9), max: q(1) };
}

/** The plugin run with nothing around it: stdin /dev/null, stdout read to its end. */
async function bareSpawn(file: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(file, [], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => (out.length > 0 ? resolve() : reject(new Error('no output'))));
  });
}

const dir = await mkdtemp(join(tmpdir(), 'credprov-bench-exec-'));
try {
  const sh = join(dir, 'plugin');
  await writeFile(
    sh,
    `#!/bin/sh\nprintf '{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"t0123456789"}}'\n`,
  );
  await chmod(sh, 0o755);
  const plugin: ExecPlugin = {
    config: { command: sh, args: [], env: [], apiVersion: V1, interactiveMode: 'Never', provideClusterInfo: false },
    baseDir: dir,
  };

  const raw: number[] = [];
  const runner: number[] = [];
  const overBare: number[] = [];
  const cpuOverBare: number[] = [];
  const log = new InvocationLog();
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const u = process.cpuUsage(since);
    return (u.user + u.system) / 1000;
  };
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    await execa(sh, [], { stdin: 'ignore', reject: false });
    raw.push(performance.now() - t);
    t = performance.now();
    let c = process.cpuUsage();
    await bareSpawn(sh);
    const bare = performance.now() - t;
    const bareCpu = cpuMs(c);
    t = performance.now();
    c = process.cpuUsage();
    const inv = await runExecPlugin(plugin, { log, timeoutMs: 10_000, stdin: { kind: 'none' } });
    const took = performance.now() - t;
    if (!inv.response) throw new Error(`the sh plugin did not decode: ${inv.decodeError ?? inv.stderr}`);
    runner.push(took);
    overBare.push(took - bare);
    cpuOverBare.push(cpuMs(c) - bareCpu);
  }

  const fake: ExecPlugin = {
    config: { ...plugin.config, command: resolve('fixtures/fake-exec-plugin/fake-exec-plugin') },
    baseDir: dir,
  };
  const certs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await certifyExecPlugin(fake, {
      log: new InvocationLog(),
      timeoutMs: 30_000,
      parentEnv: { ...process.env, CREDPROV_NODE: process.execPath },
    });
    certs.push(performance.now() - t);
  }
  const r = stats(raw);
  const w = stats(runner);
  process.stdout.write(
    `${JSON.stringify(
      {
        shPluginRawMs: r,
        shPluginViaRunnerMs: w,
        runnerOverheadP50Ms: Math.round((w.p50 - r.p50) * 100) / 100,
        runnerOverBareSpawnMs: stats(overBare),
        runnerOverBareSpawnCpuMs: stats(cpuOverBare),
        certifyFakeNodePluginMs: stats(certs),
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
