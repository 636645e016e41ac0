// Benchmarks for `credprov certify kubelet-plugin`:
//   (a) certify of a well-behaved plugin end to end (library call, and the CLI as a process)
//   (b) what runKubeletPlugin adds per invocation over a bare spawn of the same binary,
//       in wall time and in this process's CPU time (user + system: what the
//       harness itself spends, which a loaded machine inflates far less)
// Run: node scripts/bench-certify.ts [--runs N] [--spawns N] [--overhead-only]
// Figures are medians and p95 over repetitions; the machine is shared, so
// compare runs made back to back, not across days.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { loadProviderConfig } from '../src/api/credentialprovider/config.ts';
import { certifyKubeletPlugin } from '../src/certify/kubelet-plugin/certify.ts';
import { chooseImages } from '../src/certify/kubelet-plugin/images.ts';
import { Redactor } from '../src/core/redact.ts';
import { runKubeletPlugin } from '../src/plugin/kubelet-exec.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PLUGINS = join(ROOT, 'fixtures/plugins');
const V1 = 'credentialprovider.kubelet.k8s.io/v1';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    spawns: { type: 'string', default: '200' },
    'overhead-only': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const spawns = Number(values.spawns);

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
  return `median ${q(0.5).toFixed(2)}ms, p95 ${q(0.95).toFixed(2)}ms, min ${s[0]!.toFixed(2)}ms (n=${s.length})`;
}

async function benchCertify(): Promise<void> {
  const config = await loadProviderConfig(join(PLUGINS, 'configs/v1.yaml'));
  const provider = config.providers[0]!;
  const images = chooseImages(provider, []);
  const lib: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = await certifyKubeletPlugin({
      plugin: join(PLUGINS, 'well-behaved'),
      provider,
      images,
      redactor: new Redactor(),
    });
    lib.push(performance.now() - t0);
    if (r.checks.some((c) => c.status === 'failed'))
      throw new Error('the well-behaved plugin failed a check; the benchmark would be meaningless');
  }
  console.log(
    `(a) certify well-behaved plugin, library call (${images.length} images + 2 provocations + 8 concurrent = ${images.length + 10} plugin runs): ${stats(lib)}`,
  );

  const cli: number[] = [];
  const out = await mkdtemp(join(tmpdir(), 'credprov-bench-'));
  try {
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await execa(process.execPath, [
        join(ROOT, 'bin/credprov.js'),
        'certify',
        'kubelet-plugin',
        '--plugin',
        join(PLUGINS, 'well-behaved'),
        '--config',
        join(PLUGINS, 'configs/v1.yaml'),
        '--report-dir',
        join(out, String(i)),
      ]);
      cli.push(performance.now() - t0);
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
  console.log(`(a) certify well-behaved plugin, CLI process end to end (node startup, reports written): ${stats(cli)}`);
}

async function bareSpawn(file: string, input: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(file, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => (out.length > 0 ? resolve() : reject(new Error('no output'))));
    child.stdin.end(input);
  });
}

async function benchOverhead(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'credprov-bench-'));
  try {
    // A plugin that costs as little as possible, so the difference is the harness.
    const plugin = join(dir, 'tiny-plugin');
    const response = JSON.stringify({
      apiVersion: V1,
      kind: 'CredentialProviderResponse',
      cacheKeyType: 'Registry',
      auth: { 'reg.example': { username: 'u', password: 'p' } },
    });
    await writeFile(plugin, `#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '${response}'\n`);
    await chmod(plugin, 0o755);
    const request = { apiVersion: V1, kind: 'CredentialProviderRequest' as const, image: 'reg.example/app' };
    const input = JSON.stringify(request);
    for (let i = 0; i < 20; i++) {
      await bareSpawn(plugin, input);
      await runKubeletPlugin({ path: plugin, request });
    }
    const bare: number[] = [];
    const harness: number[] = [];
    const diffs: number[] = [];
    const cpuDiffs: number[] = [];
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const u = process.cpuUsage(since);
      return (u.user + u.system) / 1000;
    };
    // Interleaved, so drift in machine load hits both sides alike.
    for (let i = 0; i < spawns; i++) {
      let t0 = performance.now();
      let c0 = process.cpuUsage();
      await bareSpawn(plugin, input);
      const b = performance.now() - t0;
      const bCpu = cpuMs(c0);
      t0 = performance.now();
      c0 = process.cpuUsage();
      const inv = await runKubeletPlugin({ path: plugin, request });
      const h = performance.now() - t0;
      const hCpu = cpuMs(c0);
      if (!inv.response) throw new Error(`tiny plugin did not decode: ${inv.decodeError ?? inv.stderr}`);
      bare.push(b);
      harness.push(h);
      diffs.push(h - b);
      cpuDiffs.push(hCpu - bCpu);
    }
    console.log(`(b) bare spawn (node:child_process, stdin+stdout):         ${stats(bare)}`);
    console.log(`(b) runKubeletPlugin (process group, env, encode, decode):  ${stats(harness)}`);
    console.log(`(b) overhead per invocation (paired difference):          ${stats(diffs)}`);
    console.log(`(b) overhead in credprov's CPU time (paired difference):  ${stats(cpuDiffs)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await benchOverhead();
if (!values['overhead-only']) await benchCertify();
