// Benchmarks the local provider on this machine:
//   cold: building kube binaries and containerd (from the cache manifests: how long the one-time build took)
//   warm up: `up` to node Ready with everything cached (median of N)
//   down: full teardown (median of N)
//   pod start: the smoke suite's private pull (pod created → container completed, via the fake provider)
//   peak memory: highest sum of RSS of etcd, kube-apiserver, containerd (+ shims) and kubelet during the smoke run
// Usage: node scripts/bench-cluster.ts [--runs N] [--bin-dir DIR]
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { applyDefaults } from '../src/api/spec/defaults.ts';
import { localProvider } from '../src/cluster/local/index.ts';
import { layoutFor } from '../src/cluster/local/layout.ts';
import { recordedPid } from '../src/cluster/local/daemon.ts';
import { cacheDir } from '../src/core/paths.ts';
import { silentProgress } from '../src/core/progress.ts';
import { Redactor } from '../src/core/redact.ts';
import { runSuites } from '../src/run/runner.ts';
import { smokeSuite } from '../suites/smoke/index.ts';
import { PRIVATE_PULL } from '../suites/smoke/checks.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, 'bin-dir': { type: 'string' } } });
const runs = Number(values.runs);
const name = 'bench';
const base = { name, provider: 'local' as const, ...(values['bin-dir'] ? { binDir: values['bin-dir'] } : {}) };
const provider = localProvider();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function buildTimes(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const kind of ['kube', 'containerd']) {
    const root = join(cacheDir(), kind);
    for (const v of await readdir(root).catch(() => [] as string[])) {
      const m = JSON.parse(await readFile(join(root, v, 'manifest.json'), 'utf8').catch(() => '{}')) as {
        durationMs?: number;
        source?: string;
      };
      if (m.durationMs !== undefined) out[`${kind} ${v} (${m.source ?? '?'})`] = m.durationMs;
    }
  }
  return out;
}

async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** Component pids plus containerd shims serving this environment's socket. */
async function componentPids(): Promise<number[]> {
  const layout = layoutFor(name);
  const pids: number[] = [];
  for (const c of ['etcd', 'kube-apiserver', 'containerd', 'kubelet']) {
    const p = await recordedPid(layout.pids, c);
    if (p) pids.push(p);
  }
  for (const e of await readdir('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const argv = (await readFile(`/proc/${e}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (argv[0]?.endsWith('containerd-shim-runc-v2') && argv.includes(layout.containerdSocket)) pids.push(Number(e));
  }
  return pids;
}

await provider.down(name);
const ups: number[] = [];
const downs: number[] = [];
for (let i = 0; i < runs; i++) {
  let t = performance.now();
  await provider.up(applyDefaults(base), silentProgress);
  ups.push(performance.now() - t);
  t = performance.now();
  await provider.down(name);
  downs.push(performance.now() - t);
}

// One more environment for the smoke run, sampled for memory while it works.
await provider.up(applyDefaults(base), silentProgress);
let peak = 0;
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const pids = await componentPids();
    const sum = (await Promise.all(pids.map(rssKiB))).reduce((a, b) => a + b, 0);
    peak = Math.max(peak, sum);
    await new Promise((r) => setTimeout(r, 200));
  }
})();
const { report } = await runSuites([smokeSuite], {
  baseSpec: base,
  artifactsDir: `/tmp/credprov-bench-${process.pid}`,
  redactor: new Redactor(),
});
sampling = false;
await sampler;
await provider.down(name);

const pull = report.checks.find((c) => c.id === PRIVATE_PULL.id);
const results = {
  machine: `${(await readFile('/proc/cpuinfo', 'utf8')).match(/^processor/gm)?.length ?? '?'} cores`,
  coldBuildMs: await buildTimes(),
  warmUpMs: { median: Math.round(median(ups)), all: ups.map(Math.round) },
  downMs: { median: Math.round(median(downs)), all: downs.map(Math.round) },
  smokePodStartMs: pull ? { status: pull.status, durationMs: Math.round(pull.durationMs) } : 'not run',
  peakRssMiB: Math.round(peak / 1024),
};
console.log(JSON.stringify(results, null, 2));
process.stderr.write(
  `warm up ${fmt(results.warmUpMs.median)} (aim ≤ 20 s), down ${fmt(results.downMs.median)} (aim ≤ 5 s), smoke pod ${pull ? fmt(pull.durationMs) : '-'}, peak RSS ${results.peakRssMiB} MiB\n`,
);
