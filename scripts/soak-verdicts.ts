// Which checks the soak's consecutive runs disagree on: a check that passed
// in one run and failed in another is flaky; one that failed in every run is
// a failure to fix, not a flake. Each failure keeps its message: the why.

export interface RunVerdicts {
  index: number;
  /** Check id → status (passed, failed, skipped). */
  statuses: Record<string, string>;
  failed: Array<{ id: string; cause?: string; message: string }>;
}

export interface Flaky {
  id: string;
  passed: number;
  failed: number;
  /** `run N: <message>` for each failure. */
  why: string[];
}

export function verdicts(runs: RunVerdicts[]): { flaky: Flaky[]; alwaysFailed: string[] } {
  const ids = [...new Set(runs.flatMap((r) => Object.keys(r.statuses)))].sort();
  const flaky: Flaky[] = [];
  const alwaysFailed: string[] = [];
  for (const id of ids) {
    const passed = runs.filter((r) => r.statuses[id] === 'passed').length;
    const failed = runs.filter((r) => r.statuses[id] === 'failed').length;
    if (failed > 0 && passed > 0)
      flaky.push({
        id,
        passed,
        failed,
        why: runs.flatMap((r) => r.failed.filter((f) => f.id === id).map((f) => `run ${r.index}: ${f.message}`)),
      });
    else if (failed > 0) alwaysFailed.push(id);
  }
  return { flaky, alwaysFailed };
}
