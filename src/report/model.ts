// The one results model. Every writer (JSON, JUnit, Markdown) renders a
// RunReport; nothing else invents its own shape. report.json is an interface
// CI pipelines script against, so its field names are fixed.

export type Level = 'MUST' | 'SHOULD';
export type Status = 'passed' | 'failed' | 'skipped';

/** What a check verifies: stable id, a sentence, the level and the requirement it comes from. */
export interface Check {
  id: string;
  title: string;
  level: Level;
  /** The requirement's source, e.g. "KEP-2133: response apiVersion must match the configured one". */
  source: string;
  /** Where the check sits in a two-way table its suite's report draws (behaviour × client); see src/report/grid.ts. */
  cell?: TableCell;
}

/**
 * A check's place in a table of its suite: one row per behaviour, one column
 * per client (or version, or config), each cell one check. The check keeps
 * its own status, message and evidence; the table only arranges them.
 */
export interface TableCell {
  /** The table's title; checks naming the same one form one table. */
  table: string;
  row: string;
  column: string;
  /** What the cell shows in a few words (set on the result, e.g. "401/2 → 200/0"); the message otherwise. */
  text?: string;
}

export type Evidence =
  | { kind: 'invocation'; label: string; data: unknown }
  | { kind: 'text'; label: string; text: string }
  | { kind: 'log'; label: string; file?: string; text: string }
  | { kind: 'event'; label: string; data: unknown }
  | { kind: 'data'; label: string; data: unknown };

/**
 * A suite case's prediction (from credprov's own model: the matching oracle,
 * the version table, the cache model, or a cited design text) next to what the
 * real kubelet or client did. A disagreement is a kubelet behaviour worth
 * reporting or a bug in the model; either way both sides are kept.
 */
export interface Comparison {
  /** Which model made the prediction: `matching oracle (src/matching)`, `cache model (src/model/credential-cache.ts)`, `KEP-2133 §…`. */
  model: string;
  /** The model's reasoning in one line. */
  because: string;
  predicted: unknown;
  observed: unknown;
  agree: boolean;
}

export interface CheckResult extends Check {
  /** The suite that reported it (credprov run). */
  suite?: string;
  status: Status;
  /** One line a vendor can act on (why it failed or was skipped; what was seen when it passed). */
  message: string;
  /** `harness` when the harness broke rather than the subject: still a failure, but not the vendor's. */
  cause?: 'subject' | 'harness';
  evidence: Evidence[];
  /** Suite cases: the prediction and what the real component did. */
  comparison?: Comparison;
  startedAt: string;
  durationMs: number;
}

/** One suite of a run: its wall time (prepare, environment, checks, cleanup). */
export interface SuiteTiming {
  name: string;
  summary: string;
  durationMs: number;
}

export interface Summary {
  passed: number;
  failed: number;
  skipped: number;
}

export interface RunReport {
  tool: { name: 'credprov'; version: string; command: string };
  /** What was tested: a plugin path and config, a cluster, a kube version … (already redacted). */
  subject: Record<string, unknown>;
  checks: CheckResult[];
  summary: Summary;
  /** Informational figures (latency percentiles, timings); never decide pass/fail. */
  metrics?: Record<string, unknown>;
  /** credprov run: the suites in the order they ran, with wall times; checks carry `suite`. */
  suites?: SuiteTiming[];
  startedAt: string;
  durationMs: number;
}

export function summarize(checks: CheckResult[]): Summary {
  const s: Summary = { passed: 0, failed: 0, skipped: 0 };
  for (const c of checks) s[c.status]++;
  return s;
}

/** True when any MUST check failed, or any check failed because the harness broke. */
export function hasBlockingFailure(report: Pick<RunReport, 'checks'>): boolean {
  return report.checks.some((c) => c.status === 'failed' && (c.level === 'MUST' || c.cause === 'harness'));
}

/**
 * Exit codes (docs/exit-codes-and-json.md): 0 all MUST checks passed; 1 a
 * MUST check failed on the subject's account; 3 the only blocking failures are
 * the harness's own, so nothing is known against the subject. (2 is bad input,
 * raised before any check runs.)
 */
export function exitCodeFor(report: Pick<RunReport, 'checks'>): 0 | 1 | 3 {
  if (!hasBlockingFailure(report)) return 0;
  const subjectFailed = report.checks.some((c) => c.status === 'failed' && c.level === 'MUST' && c.cause !== 'harness');
  return subjectFailed ? 1 : 3;
}

/** The checks with the failed ones first (MUST before SHOULD), the rest in their order: what a reader of report.md and report.html looks for first. */
export function failedFirst<T extends Pick<CheckResult, 'status' | 'level'>>(checks: readonly T[]): T[] {
  const rank = (c: T) => (c.status !== 'failed' ? 2 : c.level === 'MUST' ? 0 : 1);
  return checks
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i)
    .map(({ c }) => c);
}
