// The case runner every suite uses: cases side by side (bounded), each with a
// context that gives it a namespace, deferred cleanups and evidence collected
// only on failure. A throw becomes a harness failure of that case's checks, a
// check the case did not report is a harness failure too, and results come
// back in the cases' order. A case reaches the environment only through the
// context (its fields and capabilities), never through a provider's internals.
// The kit times each case on its clock: every result a case returns carries
// the case's start and duration, so no case keeps a start time of its own.
import { mapPool } from '../core/pool.ts';
import { systemClock, type Clock } from '../core/time.ts';
import { CAPABILITY_TEXT, missingFailsUnderCi, type Capability } from '../cluster/provider.ts';
import type { Check, CheckResult, Evidence } from '../report/model.ts';
import { createNamespace, namespaceName, type TestNamespace } from './namespace.ts';
import { harnessFailed, notRun, reconcile } from './results.ts';
import { Scope } from './scope.ts';
import type { Stoppable, SuiteRun } from './suite.ts';

export interface CaseContext extends SuiteRun {
  /** The case's first check (most cases have one). */
  check: Check;
  /** When the case began, on `clock`: its results carry it, and it is the start of the case's own window (events, execs since). */
  startedAt: Date;
  /** The clock the case runs on: `clock.now()` for a time a prediction or a schedule needs. */
  clock: Clock;
  /** A namespace for this case: made now, deleted after the case, kept with its events when the case fails. */
  namespace(base?: string): Promise<string>;
  /** A cleanup after this case, last registered first (the suite's own defer is not reachable from a case). */
  defer(cleanup: () => Promise<void> | void): void;
  own<T extends Stoppable>(started: Promise<T> | T): Promise<T>;
  /** Evidence worth collecting only when the case fails (a kubelet log excerpt), gathered then and added to its failed results. */
  onFailure(collect: () => Promise<Evidence[]> | Evidence[]): void;
}

export interface Case {
  /** The checks this case reports, each exactly once. */
  checks: Check[];
  /** Capabilities this case needs beyond the suite's `needs`: without one its checks are not run (skipped, or failed under CI). */
  needs?: Capability[];
  run(ctx: CaseContext): Promise<CheckResult | CheckResult[]>;
}

/** The usual case: one check, one result. */
export function caseOf(
  check: Check,
  run: (ctx: CaseContext) => Promise<CheckResult>,
  o: { needs?: Capability[] } = {},
): Case {
  return { checks: [check], ...(o.needs ? { needs: o.needs } : {}), run };
}

export interface RunCasesOptions {
  /** How many cases run at once (default: all). */
  concurrency?: number;
  /** The cases' clock (default: the system's). */
  clock?: Clock;
}

export async function runCases(ctx: SuiteRun, cases: Case[], o: RunCasesOptions = {}): Promise<CheckResult[]> {
  const clock = o.clock ?? systemClock;
  const settled = await mapPool(cases, o.concurrency ?? cases.length, (c) => runCase(ctx, c, clock));
  return settled.flatMap((s, i) =>
    s.status === 'fulfilled' ? s.value : cases[i]!.checks.map((check) => harnessFailed(check, s.reason)),
  );
}

async function runCase(suite: SuiteRun, c: Case, clock: Clock): Promise<CheckResult[]> {
  const missing = (c.needs ?? []).filter((cap) => !suite.can(cap));
  if (missing.length > 0) {
    const reason = `needs what provider ${suite.provider.name} cannot do: ${missing.map((m) => `${m} (${CAPABILITY_TEXT[m]})`).join(', ')}`;
    return c.checks.map((check) => notRun(check, reason, suite.ci && missingFailsUnderCi(missing)));
  }
  const startedAt = new Date(clock.now());
  const scope = new Scope(`case ${c.checks.map((x) => x.id).join(', ')}`, suite.log);
  const namespaces: TestNamespace[] = [];
  const onFailure: Array<() => Promise<Evidence[]> | Evidence[]> = [];
  const ctx: CaseContext = {
    ...suite,
    check: c.checks[0]!,
    startedAt,
    clock,
    async namespace(base) {
      const ns = await createNamespace(suite.environment, namespaceName(base ?? `credprov-${c.checks[0]!.id}`));
      namespaces.push(ns);
      return ns.name;
    },
    defer: (cleanup) => scope.defer(cleanup),
    own: (started) => scope.own(started),
    onFailure: (collect) => void onFailure.push(collect),
  };
  let results: CheckResult[];
  try {
    const returned = await c.run(ctx);
    results = reconcile(
      `the case of ${c.checks.map((x) => x.id).join(', ')}`,
      c.checks,
      Array.isArray(returned) ? returned : [returned],
    );
  } catch (err) {
    results = c.checks.map((check) => harnessFailed(check, err));
  }
  const failed = results.some((r) => r.status === 'failed');
  const extra: Evidence[] = [];
  if (failed) {
    for (const collect of onFailure) {
      try {
        extra.push(...(await collect()));
      } catch (err) {
        extra.push({ kind: 'text', label: 'collecting failure evidence failed', text: String(err) });
      }
    }
  }
  for (const ns of namespaces) extra.push(...(await ns.finish(failed).catch(() => [])));
  await scope.close();
  const timing = { startedAt: startedAt.toISOString(), durationMs: Math.max(0, clock.now() - startedAt.getTime()) };
  return results.map((r) => ({
    ...r,
    ...timing,
    ...(r.status === 'failed' && extra.length > 0 ? { evidence: [...r.evidence, ...extra] } : {}),
  }));
}
