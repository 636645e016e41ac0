// Benchmarks the conformance suites on this machine (the figures in the README):
//   per suite: wall time of `credprov run --suite NAME` on a warm environment
//     (prepare, kubelet restart for its config, checks, cleanup), median of N;
//   default run: `credprov run` from nothing (bring-up, every default suite,
//     teardown), as scripts/run.sh does it, once.
// Usage: node scripts/bench-suites.ts [--runs N] [--suite NAME]... [--skip-default-run]
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { DEFAULT_SUITES } from '../suites/index.ts';
import type { RunReport } from '../src/report/model.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    suite: { type: 'string', multiple: true },
    'skip-default-run': { type: 'boolean' },
  },
});
const runs = Number(values.runs);
const suites = values.suite?.length ? values.suite : DEFAULT_SUITES;
const cli = join(import.meta.dirname, '..', 'bin', 'credprov.js');
const env = { ...process.env, CREDPROV_ENV_NAME: 'bench-suites' };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function run(args: string[]): Promise<{ wallMs: number; report: RunReport; code: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'credprov-bench-suites-'));
  try {
    const t0 = performance.now();
    const r = await execa(process.execPath, [cli, 'run', ...args, '--report-dir', dir], {
      env,
      reject: false,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const wallMs = performance.now() - t0;
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as RunReport;
    if (r.exitCode !== 0) {
      // A benchmark run that fails keeps its report: the figure is only worth something with its cause.
      const kept = join(tmpdir(), `credprov-bench-failed-${Date.now().toString(36)}.md`);
      await copyFile(join(dir, 'report.md'), kept).catch(() => {});
      process.stderr.write(
        `warning: credprov run ${args.join(' ')} exited ${r.exitCode}: ${report.summary.failed} failed (report kept: ${kept})\n`,
      );
    }
    return { wallMs, report, code: r.exitCode ?? -1 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const rows: Array<[string, string]> = [];
// Warm: the first run brings the environment up and keeps it; it is not counted.
await run(['--suite', 'smoke', '--keep']);
for (const suite of suites) {
  const times: number[] = [];
  const checks: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { report } = await run(['--suite', suite, '--keep']);
    times.push(report.suites?.find((s) => s.name === suite)?.durationMs ?? report.durationMs);
    checks.push(report.checks.length);
  }
  rows.push([
    `suite ${suite} (${checks[0]} checks), warm environment`,
    `${fmt(median(times))} (min ${fmt(Math.min(...times))}, max ${fmt(Math.max(...times))})`,
  ]);
}
await execa(process.execPath, [cli, 'down'], { env, reject: false });
if (!values['skip-default-run']) {
  const { wallMs, report } = await run([]);
  rows.push([
    `default run from nothing (up, ${DEFAULT_SUITES.join(' + ')}, down): ${report.summary.passed} passed, ${report.summary.failed} failed`,
    fmt(wallMs),
  ]);
}
const width = Math.max(...rows.map(([k]) => k.length));
for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
