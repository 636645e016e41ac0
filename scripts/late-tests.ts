// The test files that need a late build, each run as soon as the builds it
// needs have ended, not once every late build has: scripts/test.sh starts one
// lane per jest project (unit files once the other unit files are done, beside
// the end-to-end files; end-to-end files once the others are done, one at a
// time). The late builds are CPU-bound and the late end-to-end files mostly
// wait (kind's image, cache expiry, 401 retries): run together, each fills the
// other's idle time. A lane polls the builds' timings file, runs what is ready
// as one jest run, and goes on until every file of its project has run.
//   node scripts/late-tests.ts --project unit|e2e --builds reports/builds.tsv \
//     --builds-ended reports/late-builds.rc --phases reports/phases.tsv --out reports/jest-late-e2e
// Each jest run writes OUT-N.json; the exit code is non-zero if any run failed.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { lateTestNeeds, testBuilds } from '../src/cli/test-builds.ts';

export type Project = 'unit' | 'e2e';

/** The jest project a test file belongs to (jest.config.js: end-to-end files are under test/e2e). */
export const projectOf = (file: string): Project => (file.startsWith('test/e2e/') ? 'e2e' : 'unit');

export interface LaneState {
  /** Each file of this lane not run yet, with the builds it waits for. */
  pending: Map<string, string[]>;
  /** The builds that have ended (a failed one too: the files that need it say so). */
  ended: Set<string>;
  /** Every late build has ended (or the build command exited): whatever is pending runs. */
  allEnded: boolean;
}

/** What runs next: the pending files whose builds have all ended, and the builds the others still wait for. */
export function nextBatch(s: LaneState): { ready: string[]; waitingFor: string[] } {
  const ready = [...s.pending].filter(([, needs]) => s.allEnded || needs.every((b) => s.ended.has(b))).map(([f]) => f);
  const waitingFor = [
    ...new Set([...s.pending].flatMap(([f, needs]) => (ready.includes(f) ? [] : needs.filter((b) => !s.ended.has(b))))),
  ];
  return { ready: ready.sort(), waitingFor };
}

/** The names of the builds the timings file says have ended (`name<TAB>start<TAB>end<TAB>ok|failed` lines). */
export function endedBuilds(tsv: string): Set<string> {
  return new Set(
    tsv
      .split('\n')
      .map((l) => l.split('\t')[0]!)
      .filter((n) => n.length > 0),
  );
}

/** A jest --testPathPatterns regex that matches exactly these repository-relative files. */
export function pathPattern(files: string[]): string {
  return files.map((f) => `/${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`).join('|');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(` • ${line}\n`);

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      project: { type: 'string' },
      builds: { type: 'string' },
      'builds-ended': { type: 'string' },
      phases: { type: 'string' },
      out: { type: 'string' },
      'poll-seconds': { type: 'string', default: '5' },
    },
  });
  const project = values.project;
  if ((project !== 'unit' && project !== 'e2e') || !values.builds || !values['builds-ended'] || !values.out) {
    process.stderr.write(
      'usage: node scripts/late-tests.ts --project unit|e2e --builds TSV --builds-ended FILE --out PREFIX [--phases TSV]\n',
    );
    return 2;
  }
  const pending = new Map([...lateTestNeeds(testBuilds())].filter(([f]) => projectOf(f) === project));
  const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
  let failed = false;
  let waitingLine = '';
  for (let run = 1; pending.size > 0;) {
    const state = { pending, ended: endedBuilds(read(values.builds)), allEnded: existsSync(values['builds-ended']) };
    const { ready, waitingFor } = nextBatch(state);
    if (ready.length === 0) {
      const line = `late ${project} files wait for: ${waitingFor.join(', ')}`;
      if (line !== waitingLine) log((waitingLine = line));
      await sleep(Number(values['poll-seconds']) * 1000);
      continue;
    }
    log(`running ${ready.length} late ${project} file(s), their builds done: ${ready.join(', ')}`);
    const start = Date.now();
    const r = spawnSync(
      process.execPath,
      [
        '--experimental-vm-modules',
        '--no-warnings=ExperimentalWarning',
        'node_modules/jest/bin/jest.js',
        '--selectProjects',
        project,
        '--runInBand',
        '--testPathPatterns',
        pathPattern(ready),
        '--json',
        `--outputFile=${values.out}-${run}.json`,
      ],
      { stdio: 'inherit' },
    );
    const code = r.status ?? 1;
    if (values.phases)
      appendFileSync(
        values.phases,
        `late ${project} tests ${run} (${ready.length} files)\t${start}\t${Date.now()}\t${code}\n`,
      );
    failed ||= code !== 0;
    for (const f of ready) pending.delete(f);
    run++;
  }
  return failed ? 1 : 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
