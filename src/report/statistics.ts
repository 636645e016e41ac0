// The one statistic of plugin latency: every writer (report.json, report.md,
// report.html) renders what latencyOf computed, so the same samples never
// read as two different p50s.

export interface Latency {
  count: number;
  p50Ms?: number;
  p95Ms?: number;
  maxMs?: number;
}

/** p50, p95 and max of `samplesMs` by nearest rank (the smallest sample with at least q of them at or below it), to 0.1 ms. */
export function latencyOf(samplesMs: readonly number[]): Latency {
  const d = samplesMs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (d.length === 0) return { count: 0 };
  const at = (q: number) => d[Math.min(d.length - 1, Math.max(0, Math.ceil(q * d.length) - 1))]!;
  return { count: d.length, p50Ms: round(at(0.5)), p95Ms: round(at(0.95)), maxMs: round(d[d.length - 1]!) };
}

const round = (n: number) => Math.round(n * 10) / 10;
