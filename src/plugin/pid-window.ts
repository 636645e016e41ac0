// Which pids the processes of one plugin run can have, so that looking for
// what the run left behind reads a handful of /proc entries instead of every
// process on the host.
//
// Why this and not another design:
//   - Every process a run starts is forked after the plugin, and Linux hands
//     out pids in one cyclic order (idr_alloc_cyclic: the next free pid after
//     the last one given, wrapping at pid_max). So until the counter has gone
//     once round, the run's descendants have pids in [plugin's pid, last pid
//     given], whatever they did to their parentage or session (double fork,
//     setsid: reparented to init, not in the plugin's group). Each one is still
//     judged by its environment marker (strays.ts); the window only says which
//     /proc entries can hold one.
//   - Reading /proc/<pid>/environ of another process costs about 20 µs (the
//     kernel maps its memory); the whole scan cost 2 ms a run on a 100-process
//     machine and grows with the host. The window is usually the plugin, its
//     own children and whatever else the host forked meanwhile.
//   - A per-certification scan would report a helper only if it still lived
//     at the end, and kill it late; cgroups need root and a delegated
//     hierarchy, and Node cannot spawn into one or make itself a subreaper.
//   - A wrap cannot be seen afterwards (the counter of forks in /proc/stat
//     misses forks that fail after taking a pid). So the window is used only
//     while a wrap was impossible: fewer ms elapsed than free pids at
//     MAX_PIDS_PER_MS. Past that (about 30 ms with pid_max 32768; about 4 s
//     with systemd's 4194304), every process is looked at, as before.
//   - Not covered: a process that picks its own pid (clone3's set_tid, or a
//     write to ns_last_pid; both need CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE),
//     i.e. a plugin hiding on purpose rather than a careless one.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
/** Up to this many pids in the window are checked one by one; a wider one reads the /proc directory. */
const PROBE_MAX = 64;

/** Opened just before the spawn, completed with the plugin's pid once it has one. */
export interface PidWindow {
  /** performance.now() before the spawn. */
  openedAt: number;
  /** The plugin's pid: the first one the run holds. */
  first: number;
}

export function openPidWindow(): { openedAt: number } {
  return { openedAt: performance.now() };
}

/**
 * The live pids in the window (every process started since it opened, and
 * possibly some threads of them: /proc/<tid> exists though /proc lists only
 * processes), or undefined when the window cannot be trusted (no /proc, or a
 * wrap was possible): then every process must be looked at.
 */
export function pidsInWindow(w: PidWindow): number[] | undefined {
  const now = readLoadavg();
  const max = pidMax();
  if (!now || max === undefined) return undefined;
  const free = max - RESERVED_PIDS - now.tasks;
  if ((performance.now() - w.openedAt) * MAX_PIDS_PER_MS >= free) return undefined;
  const { first } = w;
  const last = now.lastPid;
  if (last >= first && last - first < PROBE_MAX) {
    const pids: number[] = [];
    for (let pid = first; pid <= last; pid++) if (existsSync(`/proc/${pid}`)) pids.push(pid);
    return pids;
  }
  // Wrapped once since the plugin's pid: the window is [first, pid_max) and [1, last].
  const inside =
    last >= first ? (pid: number) => pid >= first && pid <= last : (pid: number) => pid >= first || pid <= last;
  try {
    return readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .map(Number)
      .filter(inside);
  } catch {
    return undefined;
  }
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
