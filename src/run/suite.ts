// What a conformance suite is: a named list of checks, prepared outside any
// environment (registries, images, fake plugins), then run against one. A
// suite says which environment it needs as a partial spec, and which
// capabilities; the runner finds or makes an environment that matches, and
// skips (under CI=true: fails) the suite's checks when a capability is missing.
// docs/writing-a-suite.md walks through writing one.
import type { PartialSpec } from '../api/spec/defaults.ts';
import type { Logger } from '../core/logger.ts';
import type { Progress } from '../core/progress.ts';
import type { Redactor } from '../core/redact.ts';
import type { Capability, Environment, EnvironmentProvider } from '../cluster/provider.ts';
import type { Check, CheckResult } from '../report/model.ts';

/** Something a suite started and must stop: a registry, a webhook, a server. */
export interface Stoppable {
  stop(): Promise<void>;
}

export interface SuiteSetup {
  log: Logger;
  progress: Progress;
  /** This suite's own artifacts dir (logs, invocation logs, scenario files). */
  artifactsDir: string;
  redactor: Redactor;
  processEnv: NodeJS.ProcessEnv;
  /** CI=true: a check that cannot run fails instead of being skipped. */
  ci: boolean;
  /**
   * The name of the environment the suite will run in (the spec's name), known
   * before it exists: a suite whose spec must point at something stable for
   * that environment (a token webhook's address) derives it from this.
   */
  environmentName: string;
  /**
   * The Kubernetes version the environment will run (kubelet, kube-apiserver, kubectl), known before it
   * exists: a suite writes the configs it hands them (a CredentialProviderConfig, an AuthenticationConfiguration)
   * for this version, through the version table (behaviourFor).
   */
  kubeVersion: string;
  /**
   * Registers a cleanup that runs after the suite (also when prepare throws,
   * and on Ctrl-C), last registered first. A failing cleanup is logged; it
   * never hides the suite's own error.
   */
  defer(cleanup: () => Promise<void> | void): void;
  /** Starts (awaits) something stoppable and defers its stop(): `const reg = await ctx.own(startLabRegistry(ctx, 'x'))`. */
  own<T extends Stoppable>(started: Promise<T> | T): Promise<T>;
}

export interface SuiteRun extends SuiteSetup {
  environment: Environment;
  provider: EnvironmentProvider;
  /** Whether the environment's provider has a capability (for checks that need one the suite as a whole does not). */
  can(capability: Capability): boolean;
}

export interface PreparedSuite {
  /** The environment this suite needs, merged over the user's base spec. */
  spec: PartialSpec;
  /** Capabilities without which none of its checks can run. */
  needs?: Capability[];
  /**
   * Runs every check; returns one result per declared check (runCases does
   * that). The runner turns a throw into a harness failure of every check, and
   * a declared check with no result into a harness failure of its own.
   */
  run(ctx: SuiteRun): Promise<CheckResult[]>;
  /** Stops what prepare started and did not hand to defer()/own(); idempotent. */
  cleanup?(): Promise<void>;
}

export interface Suite {
  name: string;
  summary: string;
  /** Every check the suite may report, so a suite that cannot run still lists them as skipped or failed. */
  checks: Check[];
  /** What must be built first (beyond the default version's binaries); such suites run with --suite all or by name, not by default. */
  needsBuild?: string;
  /**
   * Why the suite runs only by name or with --suite all although it needs no build: its SHOULD
   * failures report the environment's behaviour (containerd's), not the plugin's.
   */
  optIn?: string;
  /**
   * Minors ("1.36") of other kubelets the suite swaps in under a control plane of `kubeVersion` (a downgrade's
   * previous minor). A run starts building them in the background as it starts, so a first-time build goes on
   * beside the suites before this one instead of inside its checks; the suite's own ensureKubelet waits for it.
   */
  kubelets?(kubeVersion: string): string[];
  prepare(ctx: SuiteSetup): Promise<PreparedSuite>;
}
