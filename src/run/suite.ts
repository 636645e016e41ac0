// What a conformance suite is: a named list of checks, prepared outside any
// environment (registries, images, fake plugins), then run against one. A
// suite says which environment it needs as a partial spec; the runner finds
// or makes an environment that matches.
import type { PartialSpec } from '../api/spec/defaults.ts';
import type { Logger } from '../core/logger.ts';
import type { Progress } from '../core/progress.ts';
import type { Redactor } from '../core/redact.ts';
import type { Capabilities, Environment, EnvironmentProvider } from '../cluster/provider.ts';
import type { Check, CheckResult } from '../report/model.ts';

export interface SuiteSetup {
  log: Logger;
  progress: Progress;
  /** This suite's own artifacts dir (logs, invocation logs, scenario files). */
  artifactsDir: string;
  redactor: Redactor;
  processEnv: NodeJS.ProcessEnv;
  /**
   * The name of the environment the suite will run in (the spec's name), known
   * before it exists: a suite whose spec must point at something stable for
   * that environment (a token webhook's address) derives it from this.
   */
  environmentName: string;
}

export interface SuiteRun extends SuiteSetup {
  environment: Environment;
  provider: EnvironmentProvider;
}

export interface PreparedSuite {
  /** The environment this suite needs, merged over the user's base spec. */
  spec: PartialSpec;
  /** Capabilities without which its checks cannot run. */
  needs?: Array<keyof Capabilities>;
  /** Runs every check; each becomes a CheckResult (a thrown error is a harness failure of the remaining checks). */
  run(ctx: SuiteRun): Promise<CheckResult[]>;
  /** Stops what prepare started; idempotent. */
  cleanup(): Promise<void>;
}

export interface Suite {
  name: string;
  summary: string;
  /** Every check the suite may report, so a suite that cannot run still lists them as skipped or failed. */
  checks: Check[];
  /** What must be built first (beyond the default version's binaries); such suites run with --suite all or by name, not by default. */
  needsBuild?: string;
  prepare(ctx: SuiteSetup): Promise<PreparedSuite>;
}
