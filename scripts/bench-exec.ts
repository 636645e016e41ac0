// What the exec runner costs and what a certification costs, on this machine.
//   node scripts/bench-exec.ts [rounds]
// Prints JSON: per-run wall time of a trivial /bin/sh plugin run raw (execa) and
// through runExecPlugin (resolution, env, decode, invocation record), and the
// wall time of a whole certification of the fake Node plugin (14 runs).
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
  const q = (p: number) => Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 10) / 10;
  return { n: s.length, p50: q(0.5), p90: q(0.9), max: q(1) };
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
  const log = new InvocationLog();
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    await execa(sh, [], { stdin: 'ignore', reject: false });
    raw.push(performance.now() - t);
    t = performance.now();
    await runExecPlugin(plugin, { log, timeoutMs: 10_000, stdin: { kind: 'none' } });
    runner.push(performance.now() - t);
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
        runnerOverheadP50Ms: Math.round((w.p50 - r.p50) * 10) / 10,
        certifyFakeNodePluginMs: stats(certs),
      },
      null,
      2,
    )}\n`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
