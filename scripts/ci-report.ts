// What .ci/run prints at the end, from the files scripts/test.sh leaves in
// reports/: the verdict line `N passed, N failed, N skipped` computed from
// jest's JSON (the unit and e2e runs merged into jest-results.json), and a
// table of where the time went: each phase and each build, with its start
// and end offsets from the first timestamp, so overlapping work shows as such.
//   node scripts/ci-report.ts merge OUT IN...   merge jest JSON files (IN that do not exist are skipped)
//   node scripts/ci-report.ts summary FILE      the verdict line; exit 1 on a failure, 4 when no test ran, 3 unreadable
//   node scripts/ci-report.ts phases FILE...    the time table from phases and builds TSV files
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** The part of jest's --json output these functions read and write. */
export interface JestJson {
  success: boolean;
  startTime: number;
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numTotalTestSuites: number;
  numPassedTestSuites: number;
  numFailedTestSuites: number;
  numPendingTestSuites: number;
  numRuntimeErrorTestSuites: number;
  testResults: Array<{ name: string; status: string; startTime: number; endTime: number; assertionResults: unknown[] }>;
  [more: string]: unknown;
}

const COUNTS = [
  'numTotalTests',
  'numPassedTests',
  'numFailedTests',
  'numPendingTests',
  'numTodoTests',
  'numTotalTestSuites',
  'numPassedTestSuites',
  'numFailedTestSuites',
  'numPendingTestSuites',
  'numRuntimeErrorTestSuites',
] as const;

/** One jest result from several runs (the unit run and the e2e run): counts added, files listed in run order. */
export function mergeJest(runs: JestJson[]): JestJson {
  if (runs.length === 0) throw new Error('no jest results to merge');
  const merged: JestJson = { ...runs[0]!, testResults: runs.flatMap((r) => r.testResults) };
  for (const k of COUNTS) merged[k] = runs.reduce((n, r) => n + (r[k] ?? 0), 0);
  merged.success = runs.every((r) => r.success);
  merged.startTime = Math.min(...runs.map((r) => r.startTime));
  return merged;
}

/** The verdict line and the exit code .ci/run gives it: 1 on any failure, 4 when nothing passed. */
export function summary(r: JestJson): { line: string; code: 0 | 1 | 4 } {
  // Files that failed to load count as failures too (they hold tests that never ran).
  const broken = r.testResults.filter((t) => t.status === 'failed' && t.assertionResults.length === 0).length;
  const failed = r.numFailedTests + broken;
  const skipped = r.numPendingTests + r.numTodoTests;
  return {
    line: `${r.numPassedTests} passed, ${failed} failed, ${skipped} skipped`,
    code: failed > 0 ? 1 : r.numPassedTests === 0 ? 4 : 0,
  };
}

export interface Span {
  name: string;
  start: number;
  end: number;
  ok: boolean;
}

/** `name<TAB>start ms<TAB>end ms<TAB>ok|failed|<exit code>` lines (test.sh's phases, binaries ensure's --timings). */
export function parseSpans(tsv: string, prefix = ''): Span[] {
  return tsv
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const [name, start, end, status] = l.split('\t');
      return {
        name: `${prefix}${name}`,
        start: Number(start),
        end: Number(end),
        ok: status === 'ok' || status === '0',
      };
    })
    .filter((s) => s.name && Number.isFinite(s.start) && Number.isFinite(s.end));
}

const clock = (ms: number) => {
  const s = Math.round(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(3)}:${String(s % 60).padStart(2, '0')}`;
};

/** The table: one line per span in start order, offsets from the earliest start, and the whole run's wall time. */
export function phaseTable(spans: Span[]): string {
  if (spans.length === 0) return 'no phase timings recorded';
  const t0 = Math.min(...spans.map((s) => s.start));
  const t1 = Math.max(...spans.map((s) => s.end));
  const width = Math.max(24, ...spans.map((s) => s.name.length));
  const rows = [...spans]
    .sort((a, b) => a.start - b.start)
    .map(
      (s) =>
        `${s.name.padEnd(width)}  ${clock(s.start - t0)}  ${clock(s.end - t0)}  ${clock(s.end - s.start)}${s.ok ? '' : '  FAILED'}`,
    );
  return [
    `${'phase'.padEnd(width)}  ${'start'.padStart(6)}  ${'end'.padStart(6)}  ${'took'.padStart(6)}`,
    ...rows,
    `${'total (wall)'.padEnd(width)}  ${clock(0)}  ${clock(t1 - t0)}  ${clock(t1 - t0)}`,
  ].join('\n');
}

function main(argv: string[]): number {
  const [cmd, ...args] = argv;
  const read = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as JestJson;
  switch (cmd) {
    case 'merge': {
      const [out, ...inputs] = args;
      const found = inputs.filter((f) => existsSync(f));
      if (!out || found.length === 0) return 3;
      writeFileSync(out, JSON.stringify(mergeJest(found.map(read))));
      return 0;
    }
    case 'summary': {
      let r: JestJson;
      try {
        r = read(args[0]!);
      } catch {
        console.log('0 passed, 0 failed, 0 skipped');
        return 3;
      }
      const s = summary(r);
      console.log(s.line);
      return s.code;
    }
    case 'phases': {
      const spans = args.flatMap((f) =>
        existsSync(f) ? parseSpans(readFileSync(f, 'utf8'), f.includes('build') ? 'build ' : '') : [],
      );
      console.log(phaseTable(spans));
      return 0;
    }
    default:
      console.error('usage: node scripts/ci-report.ts merge OUT IN... | summary FILE | phases FILE...');
      return 2;
  }
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
