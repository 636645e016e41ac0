// Soak and fault injection of the local provider's lifecycle, through the CLI
// a user runs (node bin/credprov.js):
//   1. up/down cycles; in some of them a component (etcd, kube-apiserver,
//      containerd, kubelet, or the CLI itself) is SIGKILLed mid-`up` or
//      mid-suite, seeded, so a run replays. After every `down` nothing of the
//      environment may remain (src/cluster/local/leftovers.ts), and the next
//      `up` must work.
//   2. Ctrl-C (SIGINT to the CLI) at every step `up` prints, and at several
//      points of `run`: exit code 130 and nothing left, without a `down`.
//   3. consecutive default runs: a check whose verdict changes between runs is flaky.
// Writes <report-dir>/soak.json (every figure and finding) and prints a table.
// Exit 0 when there was no leftover, no failed `up`, no interrupt that left
// something or exited otherwise than 130, and no flaky or failing check.
//
// execa, not zx: this is process control rather than shell. Each CLI's stderr
// is read line by line to fire a signal at an exact step, the CLI's pid and
// exit signal are needed, and every command is timed; zx's `$` adds nothing
// there, and there is no pipeline to write.
//
// Usage: node scripts/soak.ts [--name soak] [--cycles 20] [--faults 5] [--runs 10] [--seed N]
//          [--fault COMPONENT[:up|suite]]... [--interrupt-up STEP|all|none]... [--interrupt-run POINT|all|none]...
//          [--suite NAME]... [--report-dir DIR]
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execa, type ResultPromise } from 'execa';
import { recordedPid } from '../src/cluster/local/daemon.ts';
import { layoutFor } from '../src/cluster/local/layout.ts';
import { describeLeftovers, findLeftovers } from '../src/cluster/local/leftovers.ts';
import { timestampDirName } from '../src/core/paths.ts';
import { laneEnvironmentName } from '../src/run/lanes.ts';
import type { RunReport } from '../src/report/model.ts';
import { parseForcedFault, planFaults, type Fault } from './soak-plan.ts';
import { verdicts, type RunVerdicts } from './soak-verdicts.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'bin', 'credprov.js');

const { values } = parseArgs({
  options: {
    name: { type: 'string', default: 'soak' },
    cycles: { type: 'string', default: '20' },
    faults: { type: 'string', default: '5' },
    runs: { type: 'string', default: '10' },
    seed: { type: 'string' },
    fault: { type: 'string', multiple: true },
    'interrupt-up': { type: 'string', multiple: true },
    'interrupt-run': { type: 'string', multiple: true },
    suite: { type: 'string', multiple: true },
    'report-dir': { type: 'string' },
  },
});
const count = (flag: string, v: string | undefined): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${flag} must be a whole number ≥ 0, got '${v}'`);
  return n;
};
const NAME = values.name!;
const CYCLES = count('cycles', values.cycles);
const FAULTS = count('faults', values.faults);
const RUNS = count('runs', values.runs);
const SEED = values.seed !== undefined ? count('seed', values.seed) : Math.floor(Math.random() * 2 ** 31);
const FORCED = (values.fault ?? []).map(parseForcedFault);
const REPORT_DIR = values['report-dir'] ?? join(ROOT, 'reports', `soak-${timestampDirName()}`);
const LOGS = join(REPORT_DIR, 'logs');
// Every process the soak's CLIs start inherits this: what still carries it afterwards was left behind.
const MARKER = { name: 'CREDPROV_SOAK_MARKER', value: `soak-${process.pid}-${Date.now().toString(36)}` };
const TIMEOUT = { up: 240_000, down: 120_000, run: 1_200_000 };

// ---------------------------------------------------------------- CLI runs

interface CliRun {
  what: string;
  pid: number;
  exitCode: number | null;
  signal: string | null;
  ms: number;
  /** performance.now() when it exited. */
  endedAt: number;
  /** Killed by the soak for running past its time limit. */
  hung: boolean;
  lines: string[];
  log: string;
}

const endedOwners: number[] = [];
let current: ResultPromise | undefined;
let logSeq = 0;

/** Runs the CLI, calling `onLine` for each stderr line (progress), with a hard time limit. */
async function cli(
  what: string,
  args: string[],
  o: { onLine?: (line: string, pid: number) => void; timeoutMs: number },
): Promise<CliRun> {
  const log = join(LOGS, `${String(++logSeq).padStart(3, '0')}-${what.replace(/[^a-z0-9]+/gi, '-')}.log`);
  const out: WriteStream = createWriteStream(log);
  out.write(`$ credprov ${args.join(' ')}\n`);
  const t0 = performance.now();
  const child = execa(process.execPath, [CLI, ...args], {
    env: { ...process.env, [MARKER.name]: MARKER.value },
    reject: false,
    buffer: false,
    stdin: 'ignore',
    cwd: ROOT,
  });
  current = child;
  const pid = child.pid!;
  const lines: string[] = [];
  let rest = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    out.write(chunk);
    rest += chunk.toString();
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const l of parts) {
      lines.push(l);
      o.onLine?.(l, pid);
    }
  });
  child.stdout!.on('data', (chunk: Buffer) => out.write(chunk));
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, o.timeoutMs);
  const r = await child;
  clearTimeout(timer);
  current = undefined;
  if (rest) lines.push(rest);
  endedOwners.push(pid);
  const endedAt = performance.now();
  const ms = endedAt - t0;
  out.end(
    `\n# exit ${r.exitCode ?? '-'} signal ${r.signal ?? '-'} after ${Math.round(ms)} ms${hung ? ' (killed: past the time limit)' : ''}\n`,
  );
  return { what, pid, exitCode: r.exitCode ?? null, signal: r.signal ?? null, ms, endedAt, hung, lines, log };
}

const stepStart = (line: string): string | undefined => /^ • (.+) …$/.exec(line)?.[1];
/** Where a command is, by its last progress line: `in '<step>'` or `after '<step>'`. */
const position = (line: string, before: string | undefined): string | undefined => {
  const started = stepStart(line);
  if (started) return `in '${started}'`;
  const ended = /^ [✓✗] (.+) \([^)]*\)(: .*)?$/.exec(line)?.[1];
  return ended ? `after '${ended}'` : before;
};
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The environments a run may bring up: NAME, and the second lane's of a `run` side by side (run --parallel). */
const NAMES = [NAME, laneEnvironmentName(NAME, 1)];

async function leftovers(): Promise<string[]> {
  const found = await Promise.all(NAMES.map((n) => findLeftovers(n, { marker: MARKER, endedOwners })));
  return found.flatMap((l, i) => describeLeftovers(l).map((x) => (i === 0 ? x : `${NAMES[i]}: ${x}`)));
}

async function down(what = 'down'): Promise<CliRun> {
  const second = await cli(`${what} (${NAMES[1]})`, ['down', '--name', NAMES[1]!], { timeoutMs: TIMEOUT.down });
  const first = await cli(what, ['down', '--name', NAME], { timeoutMs: TIMEOUT.down });
  return first.exitCode === 0 ? second : first;
}

// ---------------------------------------------------------------- faults

interface FaultOutcome {
  /** Whether the kill happened, what was killed, and when (the progress line it followed). */
  fired: boolean;
  killedPid?: number;
  afterLine?: string;
  /** Where the CLI was when the kill happened (its last progress line). */
  at?: string;
  note?: string;
}

/** Arms a SIGKILL of the fault's component: at its step's start line (phase up), or after the suite's kubelet is Ready (phase suite). */
function armFault(f: Fault, outcome: FaultOutcome): (line: string, pid: number) => void {
  let armed = false;
  let where: string | undefined;
  return (line, cliPid) => {
    where = position(line, where);
    const trigger = f.phase === 'up' ? stepStart(line) === f.step : /^ ✓ wait for node Ready/.test(line);
    if (armed || !trigger) return;
    armed = true;
    void (async () => {
      let pid: number | undefined = cliPid;
      if (f.component !== 'cli') {
        // Started at this very step: kill it as soon as its pid file names it.
        const deadline = Date.now() + 15_000;
        while ((pid = await recordedPid(layoutFor(NAME).pids, f.component)) === undefined && Date.now() < deadline)
          await sleep(20);
      }
      await sleep(f.delayMs);
      if (pid === undefined) {
        outcome.note = `${f.component} had no pid file within 15 s of '${line.trim()}'`;
        return;
      }
      try {
        process.kill(pid, 'SIGKILL');
        Object.assign(outcome, {
          fired: true,
          killedPid: pid,
          afterLine: `${line.trim()} +${f.delayMs} ms`,
          ...(where ? { at: where } : {}),
        });
      } catch (err) {
        outcome.note = `kill ${pid}: ${(err as Error).message}`;
      }
    })();
  };
}

// ---------------------------------------------------------------- phase 1: cycles

interface Cycle {
  index: number;
  fault?: Fault & FaultOutcome;
  up: { ms: number; exitCode: number | null; signal: string | null; hung: boolean; log: string };
  suite?: { ms: number; exitCode: number | null; signal: string | null; hung: boolean; log: string; report?: string };
  down: { ms: number; exitCode: number | null; hung: boolean; log: string };
  leftovers: string[];
  /** This cycle's `up` failed although no fault was planned for it (after a fault cycle: the environment did not recover). */
  upFailedWithoutFault: boolean;
}

const brief = (r: CliRun) => ({
  ms: Math.round(r.ms),
  exitCode: r.exitCode,
  signal: r.signal,
  hung: r.hung,
  log: r.log,
});

async function runCycles(): Promise<{ cycles: Cycle[]; upSteps: string[]; plan: Fault[] }> {
  const cycles: Cycle[] = [];
  let upSteps: string[] = [];
  let plan: Fault[] = [];
  for (let i = 0; i < CYCLES; i++) {
    const planned = plan.find((f) => f.cycle === i);
    const outcome: FaultOutcome = { fired: false };
    const up = await cli(`cycle ${i} up`, ['up', '--name', NAME], {
      timeoutMs: TIMEOUT.up,
      ...(planned?.phase === 'up' ? { onLine: armFault(planned, outcome) } : {}),
    });
    if (i === 0) {
      upSteps = up.lines.map(stepStart).filter((s): s is string => s !== undefined);
      if (up.exitCode !== 0) throw new Error(`the baseline up (cycle 0) failed (exit ${up.exitCode}); see ${up.log}`);
      plan = planFaults({ seed: SEED, cycles: CYCLES, faults: FAULTS, upSteps, forced: FORCED });
      progress(
        `seed ${SEED}; faults: ${plan.map((f) => `cycle ${f.cycle} ${f.component} ${f.phase === 'up' ? `at '${f.step}'` : `${f.delayMs} ms into a suite`}`).join('; ') || 'none'}`,
      );
    }
    let suite: Cycle['suite'];
    if (planned?.phase === 'suite' && up.exitCode === 0) {
      const dir = join(REPORT_DIR, 'cycles', String(i));
      const run = await cli(`cycle ${i} suite`, ['run', '--name', NAME, '--suite', 'smoke', '--report-dir', dir], {
        timeoutMs: TIMEOUT.run,
        onLine: armFault(planned, outcome),
      });
      suite = { ...brief(run), report: join(dir, 'report.json') };
    }
    const d = await down(`cycle ${i} down`);
    const left = await leftovers();
    const cycle: Cycle = {
      index: i,
      ...(planned ? { fault: { ...planned, ...outcome } } : {}),
      up: brief(up),
      ...(suite ? { suite } : {}),
      down: { ms: Math.round(d.ms), exitCode: d.exitCode, hung: d.hung, log: d.log },
      leftovers: left,
      upFailedWithoutFault: planned?.phase !== 'up' && up.exitCode !== 0,
    };
    cycles.push(cycle);
    progress(
      `cycle ${i}: up ${sec(up.ms)} (exit ${up.exitCode ?? up.signal})${planned ? `, fault ${planned.component}/${planned.phase}: ${outcome.fired ? `killed pid ${outcome.killedPid}` : `not fired${outcome.note ? ` (${outcome.note})` : ''}`}` : ''}${suite ? `, suite exit ${suite.exitCode ?? suite.signal}` : ''}, down ${sec(d.ms)}, ${left.length === 0 ? 'clean' : `LEFT ${left.length}: ${left.slice(0, 3).join(' | ')}`}`,
    );
  }
  return { cycles, upSteps, plan };
}

// ---------------------------------------------------------------- phase 2: Ctrl-C

interface Interrupt {
  command: 'up' | 'run';
  /** Where the SIGINT was aimed: an up step, or a named point of run. */
  at: string;
  sent: boolean;
  /** Where the CLI was when the signal arrived: in a step, or after one. */
  landedIn?: string;
  exitCode: number | null;
  signal: string | null;
  /** From the SIGINT to the CLI's exit. */
  exitMs?: number;
  leftovers: string[];
  log: string;
}

/**
 * Points of `credprov run --suite smoke --suite matching --parallel 1` from nothing (it brings the environment up and
 * tears it down): one environment, so the second suite restarts the first's kubelet. The consecutive runs (phase 3)
 * run side by side, as the default run does.
 */
const RUN_SUITES = ['smoke', 'matching'];
const RUN_POINTS: Array<{ name: string; line: RegExp; delayMs: number }> = [
  { name: 'preparing the first suite', line: /^ • prepare suite smoke …$/, delayMs: 0 },
  { name: "starting the suite's registry", line: /^ • registry smoke-/, delayMs: 0 },
  { name: 'bringing the environment up (kube-apiserver)', line: /^ • start kube-apiserver …$/, delayMs: 0 },
  { name: 'bringing the environment up (kubelet)', line: /^ • start kubelet …$/, delayMs: 0 },
  { name: 'pods running (1.5 s after node Ready)', line: /^ ✓ wait for node Ready/, delayMs: 1500 },
  { name: 'preparing the second suite', line: /^ • prepare suite matching …$/, delayMs: 0 },
  { name: 'restarting the kubelet for the second suite', line: /^ • stop kubelet …$/, delayMs: 0 },
  { name: 'tearing the environment down', line: /^ • tear down local environment/, delayMs: 0 },
];

async function interruptAt(
  command: 'up' | 'run',
  at: string,
  trigger: (line: string) => boolean,
  delayMs: number,
): Promise<Interrupt> {
  let sentAt: number | undefined;
  let landedIn: string | undefined;
  let where: string | undefined;
  const args =
    command === 'up'
      ? ['up', '--name', NAME]
      : [
          'run',
          '--name',
          NAME,
          '--parallel',
          '1',
          ...RUN_SUITES.flatMap((x) => ['--suite', x]),
          '--report-dir',
          join(REPORT_DIR, 'interrupts', `${logSeq + 1}`),
        ];
  const r = await cli(`ctrl-c ${command} ${at}`, args, {
    timeoutMs: command === 'up' ? TIMEOUT.up : TIMEOUT.run,
    onLine: (line, pid) => {
      if (/^(SIGINT|SIGTERM): cleaning up/.test(line.trim())) landedIn ??= where;
      where = position(line, where);
      if (sentAt !== undefined || !trigger(line)) return;
      sentAt = -1;
      void sleep(delayMs).then(() => {
        sentAt = performance.now();
        process.kill(pid, 'SIGINT');
      });
    },
  });
  const exitMs = sentAt !== undefined && sentAt > 0 ? Math.round(r.endedAt - sentAt) : undefined;
  const left = await leftovers();
  // Reset for the next case whatever happened (and prove down clears what was left).
  if (left.length > 0) await down(`reset after ctrl-c ${command} ${at}`);
  const i: Interrupt = {
    command,
    at,
    sent: sentAt !== undefined && sentAt > 0,
    ...(landedIn ? { landedIn } : {}),
    exitCode: r.exitCode,
    signal: r.signal,
    ...(exitMs !== undefined ? { exitMs } : {}),
    leftovers: left,
    log: r.log,
  };
  progress(
    `ctrl-c ${command} at '${at}': ${i.sent ? `landed ${landedIn ?? '?'}, exit ${r.exitCode ?? r.signal} after ${exitMs} ms` : 'never sent (the point was not reached)'}, ${left.length === 0 ? 'clean' : `LEFT ${left.length}: ${left.slice(0, 3).join(' | ')}`}`,
  );
  return i;
}

async function runInterrupts(upSteps: string[]): Promise<Interrupt[]> {
  const wanted = (flag: string[] | undefined, all: string[]) =>
    !flag || flag.includes('all') ? all : flag.includes('none') ? [] : flag;
  const out: Interrupt[] = [];
  for (const step of wanted(values['interrupt-up'], upSteps))
    out.push(await interruptAt('up', step, (l) => stepStart(l) === step, 0));
  for (const name of wanted(
    values['interrupt-run'],
    RUN_POINTS.map((p) => p.name),
  )) {
    const p = RUN_POINTS.find((x) => x.name === name);
    if (!p)
      throw new Error(`--interrupt-run '${name}': known points are ${RUN_POINTS.map((x) => `'${x.name}'`).join(', ')}`);
    out.push(await interruptAt('run', p.name, (l) => p.line.test(l), p.delayMs));
  }
  return out;
}

// ---------------------------------------------------------------- phase 3: consecutive runs

interface Run extends RunVerdicts {
  ms: number;
  exitCode: number | null;
  summary?: RunReport['summary'];
  leftovers: string[];
  log: string;
  report: string;
}

async function runRuns(): Promise<Run[]> {
  const out: Run[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dir = join(REPORT_DIR, 'runs', String(i));
    const r = await cli(
      `run ${i}`,
      ['run', '--name', NAME, '--report-dir', dir, ...(values.suite ?? []).flatMap((s) => ['--suite', s])],
      { timeoutMs: TIMEOUT.run },
    );
    const report = await readFile(join(dir, 'report.json'), 'utf8').then(
      (t) => JSON.parse(t) as RunReport,
      () => undefined,
    );
    // The run brought the environment up itself and must leave nothing; down only resets.
    const left = await leftovers();
    if (left.length > 0) await down(`reset after run ${i}`);
    const run: Run = {
      index: i,
      ms: Math.round(r.ms),
      exitCode: r.exitCode,
      ...(report ? { summary: report.summary } : {}),
      failed: (report?.checks ?? [])
        .filter((c) => c.status === 'failed')
        .map((c) => ({
          id: c.id,
          ...(c.cause ? { cause: c.cause } : {}),
          message: c.message.replace(/\s+/g, ' ').slice(0, 600),
        })),
      statuses: Object.fromEntries((report?.checks ?? []).map((c) => [c.id, c.status])),
      leftovers: left,
      log: r.log,
      report: join(dir, 'report.json'),
    };
    out.push(run);
    progress(
      `run ${i}: exit ${r.exitCode ?? r.signal} in ${sec(r.ms)}, ${run.summary ? `${run.summary.passed} passed, ${run.summary.failed} failed, ${run.summary.skipped} skipped` : 'no report'}${run.failed.length ? ` (${run.failed.map((f) => f.id).join(', ')})` : ''}, ${left.length === 0 ? 'clean' : `LEFT ${left.length}`}`,
    );
  }
  return out;
}

// ---------------------------------------------------------------- summary

const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const stats = (xs: number[]) => {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
  return { n: s.length, medianMs: Math.round(q(0.5)), p95Ms: Math.round(q(0.95)), maxMs: Math.round(s.at(-1)!) };
};
function progress(s: string): void {
  process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
}

async function main(): Promise<number> {
  await mkdir(LOGS, { recursive: true });
  const startedAt = new Date();
  const load = [loadavg()];
  progress(
    `environment '${NAME}', seed ${SEED}, ${CYCLES} cycles (${FAULTS} with a fault), ${RUNS} runs; report in ${REPORT_DIR}`,
  );
  await down('initial down');
  const { cycles, upSteps, plan } =
    CYCLES > 0 ? await runCycles() : { cycles: [], upSteps: [] as string[], plan: [] as Fault[] };
  load.push(loadavg());
  const steps =
    upSteps.length > 0
      ? upSteps
      : await (async () => {
          const up = await cli('steps up', ['up', '--name', NAME], { timeoutMs: TIMEOUT.up });
          await down();
          return up.lines.map(stepStart).filter((s): s is string => s !== undefined);
        })();
  const interrupts = await runInterrupts(steps);
  load.push(loadavg());
  const runs = await runRuns();
  load.push(loadavg());
  await down('final down');
  const v = verdicts(runs);
  const clean = cycles.filter((c) => !c.fault);
  const figures = {
    upClean: stats(clean.filter((c) => c.up.exitCode === 0).map((c) => c.up.ms)),
    downClean: stats(clean.map((c) => c.down.ms)),
    downAfterFault: stats(cycles.filter((c) => c.fault).map((c) => c.down.ms)),
    faultCycles: cycles.filter((c) => c.fault).length,
    faultsFired: cycles.filter((c) => c.fault?.fired).length,
    cyclesWithLeftovers: cycles.filter((c) => c.leftovers.length > 0).length,
    failedUps: cycles.filter((c) => c.upFailedWithoutFault).length,
    interrupts: interrupts.length,
    interruptsSent: interrupts.filter((i) => i.sent).length,
    interruptsExit130: interrupts.filter((i) => i.sent && i.exitCode === 130).length,
    interruptsWithLeftovers: interrupts.filter((i) => i.leftovers.length > 0).length,
    interruptExit: stats(interrupts.flatMap((i) => (i.exitMs !== undefined ? [i.exitMs] : []))),
    runs: runs.length,
    runTime: stats(runs.map((r) => r.ms)),
    runsAllPassed: runs.filter((r) => r.exitCode === 0 && r.failed.length === 0).length,
    flakyChecks: v.flaky.length,
    alwaysFailingChecks: v.alwaysFailed.length,
  };
  const summary = {
    tool: 'credprov soak',
    command: `node scripts/soak.ts ${process.argv.slice(2).join(' ')}`.trim(),
    seed: SEED,
    environment: NAME,
    host: { cpus: cpus().length, kernel: release(), loadavg: load.map((l) => l.map((x) => Number(x.toFixed(2)))) },
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    upSteps: steps,
    plan,
    figures,
    flaky: v.flaky,
    alwaysFailed: v.alwaysFailed,
    cycles,
    interrupts,
    runs,
  };
  await writeFile(join(REPORT_DIR, 'soak.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const row = (k: string, val: string) => `  ${k.padEnd(44)} ${val}`;
  const st = (s: ReturnType<typeof stats>) =>
    s ? `median ${sec(s.medianMs)}, p95 ${sec(s.p95Ms)}, max ${sec(s.maxMs)} (n=${s.n})` : '-';
  process.stdout.write(
    [
      `soak of '${NAME}', seed ${SEED}, ${sec(summary.durationMs)}`,
      row('up (clean cycles)', st(figures.upClean)),
      row('down (clean cycles)', st(figures.downClean)),
      row('down after a fault', st(figures.downAfterFault)),
      row('faults fired / planned', `${figures.faultsFired} / ${figures.faultCycles}`),
      ...cycles
        .filter((c) => c.fault)
        .map((c) =>
          row(
            `  cycle ${c.index}: ${c.fault!.component} ${c.fault!.phase === 'up' ? `at '${c.fault!.step}'` : 'mid-suite'}`,
            `${c.fault!.fired ? 'killed' : 'not fired'}; ${c.suite ? `suite exit ${c.suite.exitCode ?? c.suite.signal}` : `up exit ${c.up.exitCode ?? c.up.signal}`}; ${c.leftovers.length ? `${c.leftovers.length} left` : 'clean after down'}`,
          ),
        ),
      row('cycles with leftovers after down', String(figures.cyclesWithLeftovers)),
      row('ups that failed without a fault', String(figures.failedUps)),
      row(
        'Ctrl-C: sent / exit 130 / left something',
        `${figures.interruptsSent} / ${figures.interruptsExit130} / ${figures.interruptsWithLeftovers} (of ${figures.interrupts})`,
      ),
      row('Ctrl-C to exit', st(figures.interruptExit)),
      row('default runs: all passed / runs', `${figures.runsAllPassed} / ${figures.runs}`),
      row('run time', st(figures.runTime)),
      row(
        'flaky checks',
        v.flaky.length ? v.flaky.map((f) => `${f.id} (${f.failed} of ${f.passed + f.failed} failed)`).join(', ') : '0',
      ),
      row('checks failing in every run', v.alwaysFailed.length ? v.alwaysFailed.join(', ') : '0'),
      `summary: ${join(REPORT_DIR, 'soak.json')}`,
      '',
    ].join('\n'),
  );
  const bad =
    figures.cyclesWithLeftovers +
    figures.failedUps +
    figures.interruptsWithLeftovers +
    (figures.interruptsSent - figures.interruptsExit130) +
    figures.flakyChecks +
    figures.alwaysFailingChecks +
    (figures.runs - figures.runsAllPassed) +
    (figures.faultCycles - figures.faultsFired);
  return bad === 0 ? 0 : 1;
}

// Ctrl-C of the soak itself: stop the CLI it is running (which cleans up after itself), then down.
let stopping = false;
process.on('SIGINT', () => {
  if (stopping) process.exit(130);
  stopping = true;
  progress('interrupted: stopping the current command and tearing the environment down');
  current?.kill('SIGINT');
  void (async () => {
    await current?.catch(() => {});
    await execa(process.execPath, [CLI, 'down', '--name', NAME], { reject: false, stdio: 'inherit' });
    process.exit(130);
  })();
});

process.exitCode = await main().catch((err: unknown) => {
  progress(`error: ${(err as Error).message}`);
  return 3;
});
