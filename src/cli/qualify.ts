// credprov qualify: release qualification, the chosen suites against each
// Kubernetes version; one report per version and a suite × version matrix.
import { applyEnv, loadSpecFile, mergePartial } from '../api/spec/index.ts';
import { UsageError } from '../core/errors.ts';
import { stderrProgress } from '../core/progress.ts';
import { Redactor } from '../core/redact.ts';
import { exitCodeFor } from '../report/model.ts';
import { prepareReportDir } from '../report/report-dir.ts';
import { describePlan, planVersions, qualify } from '../run/qualify.ts';
import { cleanupActiveSuites } from '../run/runner.ts';
import { parseShard, shardCells, withoutShard } from '../run/shard.ts';
import { DEFAULT_SUITES, SUITES } from '../../suites/index.ts';
import type { Command } from './command.ts';
import { closest, parseFlags } from './flags.ts';
import { announceInterrupt, printJson, reportJson, writeMatrixSummary } from './output.ts';
import { onInterrupt } from './signals.ts';
import { join } from 'node:path';

const USAGE = `Usage: credprov qualify --kube-versions 1.34,1.35,1.36,1.37 [--suite NAME|all]... [--report-dir DIR] [--spec FILE] [--plan]

Release qualification: runs the suites against a whole local cluster of each
version in turn (kubelet, kube-apiserver, controller-manager, scheduler and a
containerd that version supports), tearing each down before the next.
Says up front what must be built and roughly how long; cached builds are reused.

Writes, under --report-dir (default reports/<timestamp>):
  <version>/report.{json,xml,md,html}   one report per version
  matrix.{json,xml,md}                  suite × version: pass, fail or skip with the reason
  report.{json,xml,md,html}             every check of every version; report.html shows the matrix

  --kube-versions  comma-separated minors or exact releases (1.36 or v1.36.5)
  --suite          suites to run (repeatable; default: ${DEFAULT_SUITES.join(', ')}; 'all' for every suite)
  --shard I/N      run only share I of N of the version × suite cells (one CI runner
                   of N); the report dir gets shard.json, and 'credprov report merge'
                   joins the N dirs into the report dir an unsharded run writes
  --plan           print what would be built and exit (--json: {plan, notes}; with
                   --shard, that shard's cells too)
Stdout: one JSON line, {reportDir, report, summary, failed, exitCode, matrix}.
Exit: 0 every MUST check passed on every version, 1 one failed (or no check ran), 2 bad input, 3 harness error.
`;

export const command: Command = {
  path: ['qualify'],
  summary: 'run suites against several Kubernetes versions and write a suite × version matrix',
  usage: USAGE,
  async run(argv, ctx) {
    const { values } = parseFlags<{
      'kube-versions'?: string;
      suite?: string[];
      'report-dir'?: string;
      spec?: string;
      plan?: boolean;
      shard?: string;
    }>('qualify', argv, {
      'kube-versions': { type: 'string' },
      suite: { type: 'string', multiple: true },
      'report-dir': { type: 'string' },
      spec: { type: 'string' },
      plan: { type: 'boolean' },
      shard: { type: 'string' },
    });
    const shard = values.shard !== undefined ? parseShard(values.shard) : undefined;
    const versions = (values['kube-versions'] ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    if (versions.length === 0)
      throw new UsageError('qualify: --kube-versions is required (e.g. --kube-versions 1.35,1.36,1.37)', {
        hint: "run 'credprov qualify --help'",
      });
    if (new Set(versions).size !== versions.length)
      throw new UsageError(`qualify: --kube-versions names a version twice (${versions.join(',')})`);
    const names = !values.suite?.length
      ? DEFAULT_SUITES
      : values.suite.includes('all')
        ? Object.keys(SUITES)
        : values.suite;
    const suites = names.map((n) => {
      const s = SUITES[n];
      if (!s)
        throw new UsageError(
          `qualify: unknown suite '${n}'${closest(n, Object.keys(SUITES)) ? ` (did you mean '${closest(n, Object.keys(SUITES))}'?)` : ''}`,
          { hint: `known suites: ${Object.keys(SUITES).join(', ')}` },
        );
      return s;
    });
    const cells = shard ? shardCells(versions, names, shard) : undefined;
    // Only the versions this shard runs are built here.
    const plan = await planVersions(cells ? versions.filter((v) => cells.some((c) => c.version === v)) : versions);
    const progress = stderrProgress();
    const notes = [
      ...(shard && cells
        ? [
            `shard ${shard.index}/${shard.count}: ${cells.length} of ${versions.length * names.length} cells: ${cells.map((c) => `${c.suite} on ${c.version}`).join(', ') || 'none'}`,
          ]
        : []),
      ...describePlan(plan),
    ];
    for (const line of notes) progress.note(line);
    if (values.plan) {
      if (ctx.json) printJson(ctx, { plan, notes, ...(shard ? { shard, cells } : {}) });
      return 0;
    }
    // Before any version is built or brought up: a report dir that cannot be written is bad input (exit 2).
    const reportDir = await prepareReportDir(values['report-dir'], ctx.cwd);
    const baseSpec = mergePartial(applyEnv(values.spec ? await loadSpecFile(values.spec) : {}, ctx.env, ctx.log), {
      provider: 'local',
    });
    const redactor = new Redactor();
    const release = onInterrupt(() => cleanupActiveSuites(), undefined, announceInterrupt(ctx));
    try {
      const { matrix, aggregate } = await qualify({
        versions,
        plan,
        suites,
        ...(shard ? { shard } : {}),
        baseSpec,
        reportDir,
        log: ctx.log,
        progress,
        redactor,
        processEnv: ctx.env,
        command: ['credprov', 'qualify', ...withoutShard(argv)].join(' '),
      });
      const w = (s: string) => process.stderr.write(s);
      writeMatrixSummary(matrix, w);
      w(`\nmatrix: ${join(reportDir, 'matrix.md')}; reports per version under ${reportDir}\n`);
      // No check ran is never green.
      // A shard dealt no cell (more shards than cells) has nothing to judge and is not a failure.
      const code = aggregate.checks.length === 0 ? (cells?.length === 0 ? 0 : 1) : exitCodeFor(aggregate);
      printJson(ctx, {
        ...reportJson(reportDir, aggregate.checks, aggregate.summary, code),
        matrix: join(reportDir, 'matrix.json'),
      });
      return code;
    } finally {
      release();
    }
  },
};
