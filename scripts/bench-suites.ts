// Benchmarks the conformance suites on this machine (the figures in the README):
//   per suite: wall time of `credprov run --suite NAME` on a warm environment
//     (prepare, kubelet restart for its config, checks, cleanup), median of N;
//   default run: `credprov run` from nothing (bring-up, every default suite,
//     teardown), as scripts/run.sh does it, --default-runs times (default 1):
//     its wall time, each bring-up and teardown (the run's own timing lines),
//     each suite's time, and the verdict counts.
// Usage: node scripts/bench-suites.ts [--runs N] [--suite NAME]... [--skip-default-run | --only-default-run]
//          [--default-runs N] [--parallel N]   (--parallel: passed to the default run's `credprov run`)
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
    'only-default-run': { type: 'boolean' },
    'default-runs': { type: 'string', default: '1' },
    parallel: { type: 'string' },
  },
});
const runs = Number(values.runs);
const suites = values.suite?.length ? values.suite : DEFAULT_SUITES;
const cli = join(import.meta.dirname, '..', 'bin', 'credprov.js');
const env = { ...process.env, CREDPROV_ENV_NAME: 'bench-suites' };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function run(
  args: string[],
  verbose = false,
): Promise<{ wallMs: number; report: RunReport; code: number; stderr: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'credprov-bench-suites-'));
  try {
    const t0 = performance.now();
    const r = await execa(
      process.execPath,
      [cli, ...(verbose ? ['--verbose'] : []), 'run', ...args, '--report-dir', dir],
      {
        env,
        reject: false,
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
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
    return { wallMs, report, code: r.exitCode ?? -1, stderr: String(r.stderr) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The durations of the run's own `✓ <what> '<env>' (<d>)` progress lines, in ms, by environment. */
function stepTimes(stderr: string, what: RegExp): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of stderr.matchAll(new RegExp(`✓ ${what.source} '([^']+)' \\(([\\d.]+)(µs|ms|s)\\)`, 'g'))) {
    const n = Number(m[2]);
    out.set(m[1]!, m[3] === 's' ? n * 1000 : m[3] === 'ms' ? n : n / 1000);
  }
  return out;
}

const rows: Array<[string, string]> = [];
// Warm: the first run brings the environment up and keeps it; it is not counted.
if (!values['only-default-run']) await run(['--suite', 'smoke', '--keep']);
for (const suite of values['only-default-run'] ? [] : suites) {
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
for (let i = 0; !values['skip-default-run'] && i < Number(values['default-runs']); i++) {
  // --verbose: each teardown phase's time (`down: <phase>: <ms>`) goes to stderr too.
  const { wallMs, report, stderr } = await run(values.parallel ? ['--parallel', values.parallel] : [], true);
  const { passed, failed, skipped } = report.summary;
  rows.push([
    `default run from nothing (up, ${DEFAULT_SUITES.join(' + ')}, down): ${passed} passed, ${failed} failed, ${skipped} skipped`,
    fmt(wallMs),
  ]);
  const show = (m: Map<string, number>) => [...m].map(([env, ms]) => `${env} ${fmt(ms)}`).join(', ') || 'none seen';
  rows.push([
    '  bring-up (binaries resolved, to both nodes Ready), per environment',
    show(stepTimes(stderr, /bring up local environment/)),
  ]);
  rows.push(['  teardown, per environment', show(stepTimes(stderr, /tear down local environment/))]);
  rows.push(['  suites', (report.suites ?? []).map((x) => `${x.name} ${fmt(x.durationMs)}`).join(', ')]);
  const phases = [...stderr.matchAll(/down: ([^:\n]+): (\d+)ms/g)].filter((m) => Number(m[2]) >= 100);
  rows.push(['  teardown phases of 100 ms or more', phases.map((m) => `${m[1]} ${m[2]} ms`).join(', ') || 'none']);
}
const width = Math.max(...rows.map(([k]) => k.length));
for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
