// credprov run: run conformance suites against the environment (bringing one
// up when none matches, tearing it down afterwards unless --keep) and write
// report.json, junit.xml and report.md.
import { join } from 'node:path';
import { applyEnv, loadSpecFile, mergePartial } from '../api/spec/index.ts';
import { UsageError } from '../core/errors.ts';
import { prepareReportDir } from '../report/report-dir.ts';
import { stderrProgress } from '../core/progress.ts';
import { Redactor } from '../core/redact.ts';
import { exitCodeFor } from '../report/model.ts';
import { writeReports } from '../report/write.ts';
import { cleanupActiveSuites, runSuites } from '../run/runner.ts';
import { DEFAULT_SUITES, SUITES } from '../../suites/index.ts';
import type { Command } from './command.ts';
import { closest, parseFlags } from './flags.ts';
import { announceInterrupt, printJson, reportJson } from './output.ts';
import { exitSoonAfterReturn, onInterrupt } from './signals.ts';
import { SPEC_FLAG_OPTIONS, specOverrides, type SpecFlags } from './up.ts';
import {
  listEnvironmentNames,
  providerByName,
  readEnvironment,
  resolveProvider,
  type ProviderOptions,
} from '../cluster/detect.ts';
import { laneEnvironmentName } from '../run/lanes.ts';

/**
 * Environments the default run uses on the local provider: the latency-bound
 * suites (cache's expiry waits, pull-secrets' back-off, kubelet restarts)
 * beside the CPU-bound ensure-secret-pulled-images. Measured in docs/benchmarks.md.
 */
const AUTO_LANES = 2;

const USAGE = `Usage: credprov run [--suite NAME]... [--report-dir DIR] [--provider P] [--kube-version V] [--spec FILE] [--keep] [--parallel N]

Runs suites against the environment. Reuses a running environment whose spec
matches, restarts only its kubelet when just kubelet settings differ, or brings
one up (and tears it down afterwards unless --keep).
Writes report.json, junit.xml and report.md (+ per-suite artifacts and, on failure, component logs).
Exit: 0 all MUST checks passed, 1 a MUST check failed (or no check ran), 2 usage/input error, 3 harness error.
--json: {reportDir, report, summary, failed, exitCode} on stdout.

  --suite         suite to run (repeatable; default: ${DEFAULT_SUITES.join(', ')}); known: ${Object.keys(SUITES).join(', ')};
                  'all' runs every suite, including those that need an extra build
  --report-dir    where reports go (default: reports/<timestamp>)
  --keep          leave the environment running afterwards
  --parallel N    run suites on N environments side by side (<name>, <name>-2, …), each suite wholly on one;
                  default ${AUTO_LANES} on the local provider when the run brings its environment up and has
                  more than one suite, else 1 (an environment you brought up yourself runs every suite)
  --provider, --kube-version, --spec, --name, --bin-dir: as for credprov up
Under CI=true a suite that cannot run (missing prerequisite) fails instead of being skipped.
`;

export const command: Command = {
  path: ['run'],
  summary: 'run conformance suites against the environment and write a report',
  usage: USAGE,
  async run(argv, ctx) {
    const { values } = parseFlags<
      SpecFlags & { suite?: string[]; 'report-dir'?: string; keep?: boolean; parallel?: string }
    >('run', argv, {
      ...SPEC_FLAG_OPTIONS,
      suite: { type: 'string', multiple: true },
      'report-dir': { type: 'string' },
      keep: { type: 'boolean' },
      parallel: { type: 'string' },
    });
    const parallel = values.parallel === undefined ? undefined : Number(values.parallel);
    if (parallel !== undefined && !(Number.isInteger(parallel) && parallel >= 1 && parallel <= 4))
      throw new UsageError(`run: --parallel ${values.parallel} is not a whole number from 1 to 4`);
    // `all` adds the suites that need something built first (none yet); the default is every other suite.
    const names = !values.suite?.length
      ? DEFAULT_SUITES
      : values.suite.includes('all')
        ? Object.keys(SUITES)
        : values.suite;
    const suites = names.map((n) => {
      const s = SUITES[n];
      if (!s) {
        const near = closest(n, Object.keys(SUITES));
        throw new UsageError(`run: unknown suite '${n}'${near ? ` (did you mean '${near}'?)` : ''}`, {
          hint: `known suites: ${Object.keys(SUITES).join(', ')}`,
        });
      }
      return s;
    });
    const fromFile = values.spec ? await loadSpecFile(values.spec) : {};
    const baseSpec = mergePartial(applyEnv(fromFile, ctx.env, ctx.log), specOverrides(values));
    // Before any environment starts: a report dir that cannot be written should cost a second, not a run.
    const reportDir = await prepareReportDir(values['report-dir'], ctx.cwd);
    const progress = stderrProgress();
    const redactor = new Redactor();
    const envName = baseSpec.name ?? 'default';
    const upBefore = await listEnvironmentNames(ctx.env);
    const alreadyUp = upBefore.includes(envName);
    const lanes =
      parallel ??
      (suites.length > 1 && !alreadyUp && (await onLocal(baseSpec.provider ?? 'auto', { log: ctx.log, env: ctx.env }))
        ? AUTO_LANES
        : 1);
    const laneNames = Array.from({ length: lanes }, (_, i) => laneEnvironmentName(envName, i));
    // On Ctrl-C, tear down only what this run brought up.
    const release = onInterrupt(
      async () => {
        await cleanupActiveSuites();
        if (values.keep) return;
        await Promise.all(
          laneNames
            .filter((name) => !upBefore.includes(name))
            .map(async (name) => {
              const env = await readEnvironment(name, ctx.env);
              await providerByName(env?.provider ?? 'local', { log: ctx.log, env: ctx.env }).down(
                env ?? name,
                progress,
              );
            }),
        );
      },
      undefined,
      announceInterrupt(ctx),
    );
    try {
      const { report, abandoned } = await runSuites(suites, {
        baseSpec,
        artifactsDir: join(reportDir, 'artifacts'),
        keep: values.keep ?? false,
        log: ctx.log,
        progress,
        redactor,
        processEnv: ctx.env,
        command: ['credprov', 'run', ...argv].join(' '),
        lanes,
      });
      await writeReports(report, reportDir, redactor);
      const safe = redactor.value(report);
      const w = (s: string) => process.stderr.write(s);
      for (const c of safe.checks)
        w(
          `${c.status === 'passed' ? 'PASS' : c.status === 'failed' ? 'FAIL' : 'SKIP'} ${c.level.padEnd(6)} ${c.id}: ${c.status === 'passed' ? c.title : c.message}\n`,
        );
      const { passed, failed, skipped } = report.summary;
      // What a CI log reader scans: one line per failure with where its evidence is.
      const failures = safe.checks.filter((c) => c.status === 'failed');
      if (failures.length > 0) {
        w(`\nfailed (${failures.length}):\n`);
        for (const c of failures)
          w(
            `  ${c.id}${c.cause === 'harness' ? ' [harness]' : ''}: ${c.message.replace(/\s+/g, ' ').slice(0, 300)}\n    evidence: ${join(reportDir, 'report.html')}#check-${c.id}${c.suite ? ` and ${join(reportDir, 'artifacts', c.suite)}/` : ''}\n`,
          );
      }
      w(
        `\n${passed} passed, ${failed} failed, ${skipped} skipped; report: ${join(reportDir, 'report.md')} (${join(reportDir, 'report.html')})\n`,
      );
      if (report.checks.length === 0) w('no check ran\n');
      // No check ran is never green.
      const code = report.checks.length === 0 ? 1 : exitCodeFor(report);
      if (ctx.json) printJson(ctx, reportJson(reportDir, report.checks, report.summary, code));
      if (abandoned) exitSoonAfterReturn();
      return code;
    } finally {
      release();
    }
  },
};

/** Whether the run's environments are the local provider's (named, or what detection picks here). */
async function onLocal(provider: string, o: ProviderOptions): Promise<boolean> {
  if (provider !== 'auto') return provider === 'local';
  return (await resolveProvider('auto', o).catch(() => undefined))?.name === 'local';
}
