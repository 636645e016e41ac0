// What every suite's e2e test shares: run the suite once on a local cluster
// (the first test to ask starts the run, the others wait for it), tear down
// whatever a failed run left, and let each check be its own jest test so a
// failure names the check and shows its one-line message.
import { afterAll } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Check, CheckResult } from '../report/model.ts';
import { localProvider } from '../cluster/local/index.ts';
import { Redactor } from '../core/redact.ts';
import { runSuites, type RunOutcome } from '../run/runner.ts';
import type { Suite } from '../run/suite.ts';
import { all, isRoot, testIf, type Prerequisite, type TestFn } from './prerequisites.ts';

export interface SuiteOnLocalCluster {
  /** `test` when root and the local provider can run here (else a skip, or a failure in CI). */
  it: TestFn;
  /** The one run of the suite. */
  run(): Promise<RunOutcome>;
  /** The run's artifacts dir (valid once run() started). */
  dir(): string;
  /** "<status>: <message>" of one check, or "<id> did not report": compare against /^passed: / for a readable failure. */
  verdict(id: string): Promise<string>;
  result(id: string): Promise<CheckResult | undefined>;
}

export interface SuiteOnLocalClusterOptions {
  envName: string;
  /** Leave the environment up after the run (later tests reuse it); afterAll still tears it down. */
  keep?: boolean;
  /** afterAll's limit for the teardown. */
  teardownTimeoutMs?: number;
  /** The run's redactor (a test that scans the artefacts for every secret the suite registered passes its own). */
  redactor?: Redactor;
  /** What else the suite needs here (a vendor plugin's build): missing, its tests skip with the reason, or fail under CI. */
  prerequisites?: Prerequisite[];
}

export async function suiteOnLocalCluster(
  suites: Suite | Suite[],
  o: SuiteOnLocalClusterOptions,
): Promise<SuiteOnLocalCluster> {
  const available = await localProvider().isAvailable();
  const it = testIf(
    all(
      isRoot(),
      ...(o.prerequisites ?? []),
      available.ok ? { ok: true } : { ok: false, reason: `local provider: ${available.reason}` },
    ),
  );
  let outcome: Promise<RunOutcome> | undefined;
  let dir: string | undefined;

  const run = (): Promise<RunOutcome> =>
    (outcome ??= (async () => {
      dir = await mkdtemp(join(tmpdir(), `credprov-${o.envName}-`));
      return runSuites(Array.isArray(suites) ? suites : [suites], {
        baseSpec: {
          name: o.envName,
          provider: 'local',
          ...(process.env.CREDPROV_KUBE_BIN_DIR ? { binDir: process.env.CREDPROV_KUBE_BIN_DIR } : {}),
        },
        artifactsDir: dir,
        redactor: o.redactor ?? new Redactor(),
        ...(o.keep ? { keep: true } : {}),
      });
    })());

  afterAll(async () => {
    // runSuites tears down what it brought up; this covers `keep` and a run that threw half way.
    await localProvider().down(o.envName);
    if (dir) await rm(dir, { recursive: true, force: true });
  }, o.teardownTimeoutMs ?? 120_000);

  const result = async (id: string) => (await run()).report.checks.find((c) => c.id === id);
  return {
    it,
    run,
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

/** The ids a run reported that are not passed, with status, cause and message: expect it toEqual([]). */
export function notPassed(checks: CheckResult[]): string[] {
  return checks
    .filter((c) => c.status !== 'passed')
    .map((c) => `${c.id} ${c.status}${c.cause ? ` (${c.cause})` : ''}: ${c.message}`);
}

export const sortedIds = (checks: Array<Check | CheckResult>): string[] => checks.map((c) => c.id).sort();
