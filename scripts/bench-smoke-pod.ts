// Benchmarks pod start as the suites see it, on a warm local environment:
// the smoke suite N times (the first run, which brings the environment up and
// restarts the kubelet for its config, is not counted), reporting per run
//   privatePull: SMOKE-PRIVATE-PULL's duration, from the created pod to its
//                completed container (pulled through the fake provider), its
//                events and log read;
//   unmatched:   SMOKE-UNMATCHED-IMAGE-FAILS's duration (the pod's pull failed
//                meanwhile: how soon the harness knows);
//   suite:       the smoke suite's wall time.
// Usage: node scripts/bench-smoke-pod.ts [--runs N] [--name ENV]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { localProvider } from '../src/cluster/local/index.ts';
import { Redactor } from '../src/core/redact.ts';
import { runSuites } from '../src/run/runner.ts';
import { smokeSuite } from '../suites/smoke/index.ts';
import { PRIVATE_PULL, UNMATCHED_FAILS } from '../suites/smoke/checks.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, name: { type: 'string', default: 'bench-smoke-pod' } },
});
const base = { name: values.name!, provider: 'local' as const };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pulls: number[] = [];
const unmatched: number[] = [];
const suites: number[] = [];
const dir = await mkdtemp(join(tmpdir(), 'credprov-bench-smoke-pod-'));
try {
  const once = () =>
    runSuites([smokeSuite], { baseSpec: base, artifactsDir: dir, redactor: new Redactor(), keep: true });
  await once();
  for (let i = 0; i < Number(values.runs); i++) {
    const { report } = await once();
    const failed = report.checks.filter((c) => c.status !== 'passed');
    if (failed.length > 0)
      process.stderr.write(`run ${i + 1}: ${failed.map((c) => `${c.id} ${c.status}: ${c.message}`).join('; ')}\n`);
    pulls.push(Math.round(report.checks.find((c) => c.id === PRIVATE_PULL.id)?.durationMs ?? NaN));
    unmatched.push(Math.round(report.checks.find((c) => c.id === UNMATCHED_FAILS.id)?.durationMs ?? NaN));
    suites.push(report.suites?.[0]?.durationMs ?? NaN);
  }
} finally {
  await localProvider().down(values.name!);
  await rm(dir, { recursive: true, force: true });
}
console.log(
  JSON.stringify({
    privatePullMs: pulls,
    unmatchedMs: unmatched,
    suiteMs: suites,
    medians: { privatePull: median(pulls), unmatched: median(unmatched), suite: median(suites) },
  }),
);
