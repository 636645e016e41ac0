// How a differential test runs: thousands of generated cases, each put to
// credprov's model and to the real code, compared by a function that names
// the disagreement (or returns undefined). Seeded and replayable:
//   CREDPROV_DIFF_SEED=<n>   the seed (default: a fresh one, printed)
//   CREDPROV_DIFF_RUNS=<n>   cases per property (default: the test's own)
//   CREDPROV_DIFF_COLLECT=1  do not stop at the first disagreement: count every kind, print them (to find rows)
// A failure message carries fast-check's seed and path: set them to replay
// exactly that case (fc.assert shrinks it to the smallest input first).
import fc from 'fast-check';

export interface DiffSummary {
  property: string;
  cases: number;
  ms: number;
  seed: number;
  disagreements: Map<string, { count: number; example: unknown }>;
}

const summaries: DiffSummary[] = [];

export function diffSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.CREDPROV_DIFF_SEED);
  return Number.isInteger(given) ? given : Math.floor(Math.random() * 2 ** 31);
}

export function diffRuns(fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.CREDPROV_DIFF_RUNS);
  return Number.isInteger(given) && given > 0 ? given : fallback;
}

/**
 * Runs `compare` on `runs` cases of `arb`. It returns undefined when credprov
 * and the real code agree, else a short key naming the kind of disagreement
 * (cases of one kind are one finding) and the details.
 */
export async function differential<T>(
  property: string,
  arb: fc.Arbitrary<T>,
  compare: (c: T) => Promise<{ kind: string; detail: unknown } | undefined>,
  o: { runs: number; seed?: number; env?: NodeJS.ProcessEnv },
): Promise<DiffSummary> {
  const env = o.env ?? process.env;
  const seed = o.seed ?? diffSeed(env);
  const runs = diffRuns(o.runs, env);
  const collect = env.CREDPROV_DIFF_COLLECT === '1';
  const summary: DiffSummary = { property, cases: 0, ms: 0, seed, disagreements: new Map() };
  const t0 = performance.now();
  try {
    await fc.assert(
      fc.asyncProperty(arb, async (c) => {
        summary.cases++;
        const d = await compare(c);
        if (!d) return true;
        const seen = summary.disagreements.get(d.kind);
        if (seen) seen.count++;
        else summary.disagreements.set(d.kind, { count: 1, example: d.detail });
        if (collect) return true;
        throw new Error(`credprov and the real code disagree (${d.kind}): ${JSON.stringify(d.detail)}`);
      }),
      { seed, numRuns: runs, endOnFailure: false },
    );
  } finally {
    summary.ms = Math.round(performance.now() - t0);
    summaries.push(summary);
    const kinds = [...summary.disagreements].map(([k, v]) => `\n  ${v.count}× ${k}: ${JSON.stringify(v.example)}`);
    process.stderr.write(
      `differential ${property}: ${summary.cases} cases in ${(summary.ms / 1000).toFixed(1)} s (seed ${seed}), ${summary.disagreements.size} kind(s) of disagreement${kinds.join('')}\n`,
    );
  }
  return summary;
}
