// runSuites: prepare each suite, find or make the environment it needs, run
// its checks, and turn everything into one RunReport. With `lanes` > 1 the
// suites run side by side, each lane on an environment of its own (lanes.ts).
// Environments are torn down at the end when this run brought them up, unless
// `keep`.
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { EnvironmentSpec } from '../api/spec/types.ts';
import { finalizeSpec, mergePartial, type PartialSpec } from '../api/spec/index.ts';
import { applyDefaults } from '../api/spec/defaults.ts';
import { errorMessage, CredprovError, PrerequisiteError } from '../core/errors.ts';
import { noopLogger, type Logger } from '../core/logger.ts';
import { silentProgress, step, type Progress } from '../core/progress.ts';
import { Redactor } from '../core/redact.ts';
import { inCI } from '../core/ci.ts';
import { CREDPROV_VERSION } from '../core/package-layout.ts';
import {
  CAPABILITY_TEXT,
  missingFailsUnderCi,
  type Capability,
  type ComponentDeath,
  type Environment,
  type EnvironmentProvider,
} from '../cluster/provider.ts';
import { summarize, type CheckResult, type RunReport, type SuiteTiming } from '../report/model.ts';
import { ensureEnvironment, type EnsureOptions } from './environment.ts';
import { readEnvironment, resolveProvider } from '../cluster/detect.ts';
import { harnessFailed, notRun, reconcile } from './results.ts';
import { Scope } from './scope.ts';
import type { PreparedSuite, Suite, SuiteSetup } from './suite.ts';
import { stopInProcessRegistries } from '../../registry/index.ts';
import { drainOnLanes, laneEnvironmentName, queueOrder } from './lanes.ts';
import { kubeletsCached, startKubeletBuilds } from './kubelet-builds.ts';

/** Cleanups of suites that are prepared and not yet cleaned up: what Ctrl-C must still stop (registries, token servers). */
const activeCleanups = new Set<() => Promise<void>>();
/** Set by Ctrl-C: the process is about to exit, so no run may start another suite or environment meanwhile. */
let interrupted = false;

/**
 * Runs the cleanup of every suite still in flight (for SIGINT/SIGTERM
 * handlers), and stops runs in this process from starting any further suite
 * or environment: one started while the handler tears down would outlive it.
 */
export async function cleanupActiveSuites(): Promise<void> {
  interrupted = true;
  const all = [...activeCleanups];
  activeCleanups.clear();
  await Promise.all(all.map((c) => c().catch(() => {})));
  // A suite interrupted while preparing has no cleanup registered yet, but may have started registries.
  await stopInProcessRegistries();
}

export interface RunOptions {
  /** The user's spec (file + env + flags), not yet defaulted; suites' needs merge over it. */
  baseSpec: PartialSpec;
  artifactsDir: string;
  keep?: boolean;
  log?: Logger;
  progress?: Progress;
  redactor?: Redactor;
  processEnv?: NodeJS.ProcessEnv;
  command?: string;
  /** Test seam: picks the provider (default: detection by name). */
  providerFor?: EnsureOptions['providerFor'];
  /**
   * Environments to run suites on side by side (default 1): the first is the
   * base spec's name, the others `<name>-2`, …; a free lane takes the next
   * suite, longest first. Each lane's environment is one this run brings up or reuses.
   */
  lanes?: number;
}

export interface RunOutcome {
  report: RunReport;
  /** A suite cut short by a dying component still runs in the background: the caller should end the process once it has written its reports. */
  abandoned?: string;
  /** The environment last used (may already be torn down). */
  environment?: Environment;
  tornDown: boolean;
}

export async function runSuites(suites: Suite[], o: RunOptions): Promise<RunOutcome> {
  const log = o.log ?? noopLogger;
  const progress = o.progress ?? silentProgress;
  const redactor = o.redactor ?? new Redactor();
  const processEnv = o.processEnv ?? process.env;
  const ci = inCI(processEnv);
  const startedAt = new Date();
  const checks: CheckResult[] = [];
  const timings: SuiteTiming[] = [];
  const environments: Array<{
    environment: Environment;
    provider: EnvironmentProvider;
    ours: boolean;
    lane: number;
  }> = [];
  let lastSpec: EnvironmentSpec | undefined;

  const baseName = applyDefaults(o.baseSpec).name;
  const lanes = Math.max(1, o.lanes ?? 1);
  /** A component that died under a suite: that lane's environment is broken, so no later suite runs on it. */
  const broken = new Map<number, ComponentDeath & { suite: string }>();
  /** Each suite's results, by its place in `suites`: the report lists them in the order asked for, whichever lane ran them. */
  const done: Array<{ checks: CheckResult[]; timing: SuiteTiming } | undefined> = suites.map(() => undefined);

  // Kubelets that suites swap in are built from now on, beside the suites before them; a suite whose
  // kubelets are not cached yet goes last, so the build has the whole run.
  const kubeVersion = applyDefaults(o.baseSpec).kubeVersion;
  const items = await Promise.all(
    suites.map(async (suite, at) => {
      const minors = suite.kubelets?.(kubeVersion) ?? [];
      const waitsForBuild = !(await kubeletsCached({ processEnv }, minors).catch(() => false));
      startKubeletBuilds({ progress, log, processEnv }, minors, `suite ${suite.name}`);
      return { name: suite.name, suite, at, waitsForBuild };
    }),
  );
  await drainOnLanes(lanes === 1 ? items : queueOrder(items), lanes, async ({ suite, at }, lane) => {
    if (interrupted) return;
    const t0 = Date.now();
    const own: CheckResult[] = [];
    const death = broken.get(lane);
    if (death)
      own.push(
        ...suiteNotRun(
          suite,
          `not run: ${deathText(death)} during suite ${death.suite}`,
          new CredprovError('environment broken'),
          ci,
        ),
      );
    else await runOne(suite, lane, own);
    for (const c of own) c.suite = suite.name;
    done[at] = { checks: own, timing: { name: suite.name, summary: suite.summary, durationMs: Date.now() - t0 } };
  });
  for (const d of done) {
    if (!d) continue;
    checks.push(...d.checks);
    timings.push(d.timing);
  }

  async function runOne(suite: Suite, lane: number, checks: CheckResult[]): Promise<void> {
    const envName = laneEnvironmentName(baseName, lane);
    const baseSpec = lane === 0 ? o.baseSpec : { ...o.baseSpec, name: envName };
    if (lanes > 1) progress.note(`suite ${suite.name} on environment ${envName}`);
    const artifactsDir = join(o.artifactsDir, suite.name);
    await mkdir(artifactsDir, { recursive: true });
    const scope = new Scope(`suite ${suite.name}`, log);
    const setup: SuiteSetup = {
      log,
      progress,
      artifactsDir,
      redactor,
      processEnv,
      ci,
      environmentName: envName,
      kubeVersion,
      defer: (c) => scope.defer(c),
      own: (started) => scope.own(started),
    };
    let prepared: PreparedSuite | undefined;
    const cleanup = async () => {
      await prepared?.cleanup?.();
      await scope.close();
    };
    activeCleanups.add(cleanup);
    try {
      try {
        prepared = await step(progress, `prepare suite ${suite.name}`, () => suite.prepare(setup));
      } catch (err) {
        checks.push(...suiteNotRun(suite, `could not prepare suite ${suite.name}: ${errorMessage(err)}`, err, ci));
        return;
      }
      const wanted = finalizeSpec(mergePartial(baseSpec, prepared.spec));
      if (lane === 0) lastSpec = wanted;
      let ensured;
      try {
        if (interrupted) throw new CredprovError('interrupted before the environment was ready');
        ensured = await ensureEnvironment(wanted, {
          log,
          progress,
          processEnv,
          keepOnFailure: o.keep ?? false,
          ...(o.providerFor ? { providerFor: o.providerFor } : {}),
        });
      } catch (err) {
        checks.push(...suiteNotRun(suite, `no environment for suite ${suite.name}: ${errorMessage(err)}`, err, ci));
        // A kubelet restart that failed leaves the environment's logs in place: keep them with the suite's artifacts.
        const running = await readEnvironment(wanted.name, processEnv).catch(() => undefined);
        if (running) {
          const p = o.providerFor
            ? await o.providerFor(running.provider).catch(() => undefined)
            : await resolveProvider(running.provider, { log, env: processEnv }).catch(() => undefined);
          await p?.collectLogs(running, join(artifactsDir, 'logs')).catch(() => {});
        }
        return;
      }
      const { environment, provider } = ensured;
      const known = environments.find((e) => e.environment.name === environment.name);
      if (known) known.environment = environment;
      else environments.push({ environment, provider, ours: ensured.action === 'brought-up', lane });
      const can = (c: Capability) => provider.capabilities(environment)[c];
      const missing = (prepared.needs ?? []).filter((c) => !can(c));
      if (missing.length > 0) {
        checks.push(
          ...suiteNotRun(
            suite,
            `provider ${provider.name} cannot ${missing.map((m) => `${CAPABILITY_TEXT[m]} (${m})`).join(', ')}`,
            undefined,
            ci && missingFailsUnderCi(missing),
          ),
        );
        return;
      }
      const run = prepared.run;
      let results: CheckResult[];
      try {
        const outcome = await runWatched(() => run({ ...setup, environment, provider, can }), provider, environment);
        if ('death' in outcome) {
          const d = outcome.death;
          broken.set(lane, { ...d, suite: suite.name });
          progress.note(
            `${d.component} died during suite ${suite.name}${d.why ? `: ${d.why}` : ''}; its checks fail now, and no later suite runs on ${environment.name}`,
          );
          results = suite.checks.map((c) =>
            harnessFailed(
              c,
              `${deathText(d)} during suite ${suite.name}: no verdict${d.logFile ? ` (its log: ${join(artifactsDir, 'logs', basename(d.logFile))})` : ''}`,
            ),
          );
        } else results = reconcile(`suite ${suite.name}`, suite.checks, outcome.results);
      } catch (err) {
        // The suite itself broke (not one check): none of its checks may count as run.
        results = suite.checks.map((c) => harnessFailed(c, `suite ${suite.name} broke: ${errorMessage(err)}`));
      }
      checks.push(...results);
      if (results.some((r) => r.status === 'failed')) {
        await provider
          .collectLogs(environment, join(artifactsDir, 'logs'))
          .catch((e: unknown) => log.warn(`collecting logs: ${errorMessage(e)}`));
      }
    } finally {
      activeCleanups.delete(cleanup);
      await cleanup().catch((e: unknown) => log.warn(`cleaning up suite ${suite.name}: ${errorMessage(e)}`));
    }
  }

  // Side by side: each lane's environment goes at the same time.
  const ours = environments.filter((e) => e.ours && !o.keep);
  await Promise.all(
    ours.map((e) =>
      e.provider
        .down(e.environment, progress)
        .catch((err: unknown) => log.warn(`tearing down ${e.environment.name}: ${errorMessage(err)}`)),
    ),
  );
  const tornDown = ours.length > 0;
  const last = environments.filter((e) => e.lane === 0).at(-1)?.environment ?? environments.at(-1)?.environment;
  const report: RunReport = {
    tool: { name: 'credprov', version: CREDPROV_VERSION, command: o.command ?? 'credprov run' },
    subject: {
      suites: suites.map((s) => s.name),
      ...(last ? { provider: last.provider, kubeVersion: last.kubeVersion, node: last.nodeName } : {}),
      ...(lastSpec ? { spec: lastSpec } : {}),
    },
    checks,
    summary: summarize(checks),
    suites: timings,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
  };
  return {
    report,
    ...(last ? { environment: last } : {}),
    tornDown,
    ...(broken.size > 0
      ? {
          abandoned: [...broken.values()]
            .map((b) => `suite ${b.suite}, cut short by ${b.component}'s death`)
            .join('; '),
        }
      : {}),
  };
}

type Watched = { results: CheckResult[] } | { death: ComponentDeath };

/**
 * Runs a suite while the provider watches the environment's components: a
 * component that dies ends the wait at once, instead of every remaining check
 * waiting out its timeout against a cluster that cannot answer. The suite
 * itself cannot be stopped from outside; it runs on, unheard.
 */
async function runWatched(
  run: () => Promise<CheckResult[]>,
  provider: EnvironmentProvider,
  environment: Environment,
): Promise<Watched> {
  const running = Promise.resolve().then(run);
  if (!provider.watchComponents) return { results: await running };
  const stop = new AbortController();
  const never = new Promise<never>(() => {});
  const died = provider.watchComponents(environment, stop.signal).then(
    (death): Watched => ({ death }),
    () => never,
  );
  try {
    const outcome = await Promise.race([running.then((results): Watched => ({ results })), died]);
    if ('death' in outcome) running.catch(() => {});
    return outcome;
  } finally {
    stop.abort();
  }
}

function deathText(d: ComponentDeath): string {
  return `${d.component} died${d.why ? ` (${d.why})` : ''}`;
}

/**
 * Every check of a suite that could not run. A missing prerequisite (or
 * capability) is a skip with the reason; under CI=true it is a failure, and so
 * is anything else that broke: never a silent green.
 */
function suiteNotRun(suite: Suite, reason: string, err: unknown, ci: boolean): CheckResult[] {
  const hint = err instanceof CredprovError && err.hint ? ` (hint: ${err.hint})` : '';
  const prerequisite = err === undefined || isPrerequisite(err);
  return suite.checks.map((c) => notRun(c, `${reason}${hint}`, ci || !prerequisite));
}

function isPrerequisite(err: unknown): boolean {
  for (let e = err; e; e = (e as { cause?: unknown }).cause) if (e instanceof PrerequisiteError) return true;
  return false;
}
