// What every suite's e2e test shares, on any provider: run the suites once
// (the first test to ask starts the run, the others wait for it), tear down
// whatever a failed run left, and let each check be its own jest test so a
// failure names the check and shows its one-line message. Several suites in
// one call share one environment, as `credprov run` runs them: the kind leg of
// the e2e table brings one kind cluster up for all of its suites.
import { afterAll } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PartialSpec } from '../api/spec/defaults.ts';
import { kindProvider } from '../cluster/kind/index.ts';
import { localProvider } from '../cluster/local/index.ts';
import type { EnvironmentProvider } from '../cluster/provider.ts';
import { Redactor } from '../core/redact.ts';
import type { Check, CheckResult } from '../report/model.ts';
import { runSuites, type RunOutcome } from '../run/runner.ts';
import type { Suite } from '../run/suite.ts';
import { all, isRoot, testIf, type Prerequisite, type TestFn } from './prerequisites.ts';

export type TableProvider = 'local' | 'kind';

const PROVIDERS: Record<TableProvider, () => EnvironmentProvider> = { local: localProvider, kind: kindProvider };

export interface SuitesOnProvider {
  provider: TableProvider;
  /** The environment the run uses (a second run of the same name reuses it). */
  envName: string;
  /** `test` when root and the provider can run here (else a skip, or a failure in CI). */
  it: TestFn;
  /** Tears down what the run left (`keep`, a run that threw half way) and removes its artifacts; idempotent. */
  down(): Promise<void>;
  /** The run's redactor: every secret the suites registered. */
  redactor: Redactor;
  /** The one run of the suites. */
  run(): Promise<RunOutcome>;
  /** The run's artifacts dir (valid once run() started); each suite's are under <dir>/<suite>. */
  dir(): string;
  /** "<status>: <message>" of one check, or "<id> did not report": compare against /^passed: / for a readable failure. */
  verdict(id: string): Promise<string>;
  result(id: string): Promise<CheckResult | undefined>;
}

export interface SuitesOnProviderOptions {
  provider: TableProvider;
  envName: string;
  /** Leave the environment up after the run (later tests reuse it); afterAll still tears it down. */
  keep?: boolean;
  /** afterAll's limit for the teardown. */
  teardownTimeoutMs?: number;
  /** The run's redactor (a test that scans the artefacts for every secret the suite registered passes its own). */
  redactor?: Redactor;
  /** What else the suites need here (a vendor plugin's build): missing, their tests skip with the reason, or fail under CI. */
  prerequisites?: Prerequisite[];
  /** More of the base spec (kind: a worker for the two-node checks). */
  spec?: PartialSpec;
  /** The run's environment variables (default: this process's). */
  processEnv?: NodeJS.ProcessEnv;
}

/** `test` when root, the prerequisites hold and the provider can run here; else a skip (a failure under CI). */
export async function providerGate(provider: TableProvider, prerequisites: Prerequisite[] = []): Promise<TestFn> {
  const available = await PROVIDERS[provider]().isAvailable();
  return testIf(
    all(
      isRoot(),
      ...prerequisites,
      available.ok ? { ok: true } : { ok: false, reason: `${provider} provider: ${available.reason}` },
    ),
  );
}

/** The suites' one run on the provider, started by the first test that asks; the caller tears it down (down()). */
export function suitesRun(suites: Suite | Suite[], o: SuitesOnProviderOptions, it: TestFn): SuitesOnProvider {
  const provider = PROVIDERS[o.provider]();
  let outcome: Promise<RunOutcome> | undefined;
  let dir: string | undefined;
  const redactor = o.redactor ?? new Redactor();

  const run = (): Promise<RunOutcome> =>
    (outcome ??= (async () => {
      dir = await mkdtemp(join(tmpdir(), `credprov-${o.envName}-`));
      return runSuites(Array.isArray(suites) ? suites : [suites], {
        baseSpec: {
          name: o.envName,
          provider: o.provider,
          ...(o.provider === 'local' && process.env.CREDPROV_KUBE_BIN_DIR
            ? { binDir: process.env.CREDPROV_KUBE_BIN_DIR }
            : {}),
          ...o.spec,
        },
        artifactsDir: dir,
        redactor,
        ...(o.keep ? { keep: true } : {}),
        ...(o.processEnv ? { processEnv: o.processEnv } : {}),
      });
    })());

  const result = async (id: string) => (await run()).report.checks.find((c) => c.id === id);
  return {
    provider: o.provider,
    envName: o.envName,
    it,
    run,
    redactor,
    async down() {
      // runSuites tears down what it brought up; this covers `keep` and a run that threw half way.
      await provider.down(o.envName);
      if (dir) await rm(dir, { recursive: true, force: true });
    },
    dir: () => {
      if (!dir) throw new Error('the suite has not started');
      return dir;
    },
    result,
    async verdict(id) {
      const r = await result(id);
      return r ? `${r.status}: ${r.message}` : `${id} did not report`;
    },
  };
}

/** suitesRun for a file of its own: gated on the provider and torn down after the file's tests. */
export async function suitesOnProvider(suites: Suite | Suite[], o: SuitesOnProviderOptions): Promise<SuitesOnProvider> {
  const h = suitesRun(suites, o, await providerGate(o.provider, o.prerequisites));
  afterAll(() => h.down(), o.teardownTimeoutMs ?? 300_000);
  return h;
}

/** The ids a run reported that are not passed, with status, cause and message: expect it toEqual([]). */
export function notPassed(checks: CheckResult[]): string[] {
  return checks
    .filter((c) => c.status !== 'passed')
    .map((c) => `${c.id} ${c.status}${c.cause ? ` (${c.cause})` : ''}: ${c.message}`);
}

export const sortedIds = (checks: Array<Check | CheckResult>): string[] => checks.map((c) => c.id).sort();
