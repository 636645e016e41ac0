// Benchmarks for the kube binaries cache.
//   node scripts/bench-binaries.ts              cold times from the cache manifests + warm resolve times
//   node scripts/bench-binaries.ts --cold       also rebuild into a fresh cache dir (Go build cache stays warm)
//   node scripts/bench-binaries.ts --cold-go    also empty the Go build cache for that rebuild (a true cold build: tens of minutes)
// Flags: --kube-version V (default DEFAULT_KUBE_VERSION), --runs N (warm resolves, default 5)
import { execa } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { kubeCacheRoot, listEntries } from '../src/cluster/binaries/cache.ts';
import { containerdCacheRoot, listContainerd } from '../src/cluster/binaries/containerd.ts';
import { resolveKubeBinaries } from '../src/cluster/binaries/resolve.ts';
import { DEFAULT_KUBE_VERSION } from '../src/cluster/binaries/versions.ts';
import { formatMs } from '../src/core/duration.ts';
import { cacheDir } from '../src/core/paths.ts';

const { values } = parseArgs({
  options: {
    cold: { type: 'boolean' },
    'cold-go': { type: 'boolean' },
    'kube-version': { type: 'string' },
    runs: { type: 'string' },
  },
});
const version = values['kube-version'] ?? DEFAULT_KUBE_VERSION;
const runs = Number(values.runs ?? 5);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

console.log('# kube binaries: recorded fill times (manifest.json durationMs)');
for (const m of await listEntries(kubeCacheRoot(cacheDir()))) {
  console.log(
    `${m.version}\t${m.source}\t${formatMs(m.durationMs)}\t${m.createdAt}${m.goVersion ? `\t${m.goVersion}` : ''}`,
  );
}
for (const m of await listContainerd(containerdCacheRoot(cacheDir()))) {
  console.log(`containerd ${m.version}\t${m.source}\t${formatMs(m.durationMs)}\t${m.createdAt}`);
}

console.log(`\n# warm resolve of ${version} (cache hit), ${runs} runs`);
const inProcess: number[] = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const r = await resolveKubeBinaries({ version });
  inProcess.push(performance.now() - t0);
  if (!r.fromCache) console.log(`(run ${i}: not a cache hit; it was filled by ${r.source})`);
}
console.log(
  `in-process resolveKubeBinaries: median ${formatMs(median(inProcess))} (min ${formatMs(Math.min(...inProcess))}, max ${formatMs(Math.max(...inProcess))})`,
);
const cli: number[] = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  await execa('node', ['bin/credprov.js', 'binaries', 'ensure', '--kube-version', version, '--skip-containerd']);
  cli.push(performance.now() - t0);
}
console.log(`credprov binaries ensure (new process each): median ${formatMs(median(cli))}`);

if (values.cold || values['cold-go']) {
  const tmp = mkdtempSync(join(tmpdir(), 'credprov-bench-'));
  const env = {
    ...process.env,
    CREDPROV_CACHE_DIR: join(tmp, 'cache'),
    ...(values['cold-go'] ? { GOCACHE: join(tmp, 'gocache') } : {}),
  };
  console.log(
    `\n# rebuild of ${version} into an empty cache${values['cold-go'] ? ' with an empty Go build cache' : ' (Go build cache warm)'}`,
  );
  try {
    const t0 = performance.now();
    await execa(
      'node',
      ['bin/credprov.js', 'binaries', 'ensure', '--kube-version', version, '--source', 'build', '--skip-containerd'],
      { env, stderr: 'inherit' },
    );
    console.log(`build: ${formatMs(performance.now() - t0)}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
