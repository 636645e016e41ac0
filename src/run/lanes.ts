// Running suites side by side: each lane is an environment of its own (its
// own control plane, nodes, kubelet config), and a lane that is free takes the
// next suite of one queue. The default run spends most of its time waiting
// (cache expiry, the kubelet's pull back-off, kubelet restarts) while
// ensure-secret-pulled-images keeps the CPU busy: on two environments the
// waits overlap it. A suite runs wholly on one environment, as it would alone,
// so its verdicts cannot depend on the lane it got.

/**
 * What each suite took alone on a warm environment (scripts/bench-suites.ts,
 * docs/benchmarks.md), in seconds: the queue starts with the longest, so the
 * last suite to start is a short one. A suite not listed counts as DEFAULT_COST.
 */
export const SUITE_COST_S: Readonly<Record<string, number>> = {
  'ensure-secret-pulled-images': 96,
  downgrade: 44,
  cache: 26,
  'service-account-token': 26,
  'pull-secrets': 19,
  smoke: 4,
  matching: 12,
};
const DEFAULT_COST_S = 30;

export interface Queued {
  name: string;
  /** Whether it waits for a build the run started (Suite.kubelets, not cached yet): it goes last, so the build has the whole run. */
  waitsForBuild?: boolean;
}

/** The order a lane takes suites in: longest first, those that wait for a build last (each group longest first). */
export function queueOrder<T extends Queued>(suites: T[]): T[] {
  const cost = (s: T) => SUITE_COST_S[s.name] ?? DEFAULT_COST_S;
  const byCost = (a: T, b: T) => cost(b) - cost(a);
  return [
    ...suites.filter((s) => !s.waitsForBuild).sort(byCost),
    ...suites.filter((s) => s.waitsForBuild).sort(byCost),
  ];
}

/** Lane i's environment name: the run's own for the first, `<name>-<i+1>` for the others (environment names are at most 40 characters). */
export function laneEnvironmentName(base: string, lane: number): string {
  if (lane === 0) return base;
  const suffix = `-${lane + 1}`;
  return `${base.slice(0, 40 - suffix.length)}${suffix}`;
}

/**
 * Runs `work` over `items` on `lanes` lanes: each lane takes the next item of
 * the queue when it is free. Resolves when every lane has drained the queue.
 */
export async function drainOnLanes<T>(
  items: T[],
  lanes: number,
  work: (item: T, lane: number) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(lanes, items.length)) }, async (_, lane) => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) await work(next, lane);
    }),
  );
}
