// How far the kernel's pid counter has moved, for pid-window.ts: a window of
// pids can be trusted only while the counter has not gone once round since
// the window opened, and a wrap cannot be seen afterwards (/proc/stat counts
// forks but not those that fail after taking a pid). So the counter (the last
// pid given, from /proc/loadavg) is read often enough that it cannot have
// gone round between two readings: each step is then the plain distance, and
// the sum is exact. A gap too long to say (no reading for
// free pids / MAX_PIDS_PER_MS ms, about 30 ms with pid_max 32768) breaks the
// chain: windows opened before it are not trusted.
import { readFileSync } from 'node:fs';
import { readProcFile } from './proc-files.ts';

/**
 * More pids than any Linux host hands out per millisecond: each fork or
 * clone takes the global pidmap_lock and tasklist_lock, and measured rates
 * are about 10 per ms per core (80-150 µs for a thread's create and join on
 * the project's machine). A margin of one to two orders of magnitude.
 */
const MAX_PIDS_PER_MS = 1000;
/** After a wrap the kernel starts again above this (RESERVED_PIDS). */
const RESERVED_PIDS = 300;
/** While windows are in use, the counter is read this often: well inside the gap a wrap needs. */
const SAMPLE_MS = 10;
/** Reading stops this long after the last window opened (a window still open then is not trusted). */
const IDLE_MS = 5000;

export interface OdometerReading {
  /** Pids the counter has moved since `chain` began. */
  travel: number;
  /** When the current unbroken chain of readings began: two readings compare only within one chain. */
  chain: number;
  /** The last pid given in our pid namespace. */
  lastPid: number;
  /** Pids not in use: how far the counter may move before it reaches one it gave before. */
  free: number;
}

let state: { at: number; last: number; travel: number; chain: number } | undefined;

/** Reads the counter now; undefined without /proc. */
export function readOdometer(): OdometerReading | undefined {
  const now = readLoadavg();
  const max = pidMax();
  if (!now || max === undefined) return undefined;
  const at = performance.now();
  const free = max - RESERVED_PIDS - now.tasks;
  if (!state || (at - state.at) * MAX_PIDS_PER_MS >= free) {
    state = { at, last: now.lastPid, travel: 0, chain: at };
  } else {
    // At most one wrap since the previous reading: past pid_max it went on from the bottom.
    state.travel += now.lastPid >= state.last ? now.lastPid - state.last : max - state.last + now.lastPid;
    state.at = at;
    state.last = now.lastPid;
  }
  return { travel: state.travel, chain: state.chain, lastPid: now.lastPid, free };
}

let timer: NodeJS.Timeout | undefined;
let wantedUntil = 0;

/** Keeps reading the counter every SAMPLE_MS for the next IDLE_MS (an unref'd timer: it holds no process open). */
export function keepReading(): void {
  wantedUntil = performance.now() + IDLE_MS;
  if (timer) return;
  timer = setInterval(() => {
    if (performance.now() > wantedUntil) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    readOdometer();
  }, SAMPLE_MS);
  timer.unref();
}

/** The last pid given in our pid namespace, and how many tasks (threads) hold one, from /proc/loadavg. */
function readLoadavg(): { lastPid: number; tasks: number } | undefined {
  const text = readProcFile('/proc/loadavg')?.toString('latin1');
  if (text === undefined) return undefined;
  // "0.20 0.18 0.12 1/80 11206": load averages, running/tasks, last pid.
  const f = text.trim().split(' ');
  const tasks = Number(f[3]?.split('/')[1]);
  const lastPid = Number(f[4]);
  return Number.isInteger(tasks) && Number.isInteger(lastPid) ? { lastPid, tasks } : undefined;
}

let cachedPidMax: number | undefined;

/** /proc/sys/kernel/pid_max, read once: changing it while credprov runs is not supported. */
function pidMax(): number | undefined {
  if (cachedPidMax === undefined) {
    try {
      const n = Number(readFileSync('/proc/sys/kernel/pid_max', 'latin1').trim());
      if (Number.isInteger(n) && n > 0) cachedPidMax = n;
    } catch {
      // not Linux
    }
  }
  return cachedPidMax;
}
