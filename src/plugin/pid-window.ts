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
//   - The pid counter is read every few ms while runs are in flight
//     (pid-odometer.ts), so a wrap since the window opened is ruled out; when
//     it cannot be (readings too far apart: a stalled event loop), every
//     process is looked at, as before.
//   - Not covered: a process that picks its own pid (clone3's set_tid, or a
//     write to ns_last_pid; both need CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE),
//     i.e. a plugin hiding on purpose rather than a careless one.
import { existsSync, readdirSync } from 'node:fs';
import { keepReading, readOdometer, type OdometerReading } from './pid-odometer.ts';

/** Up to this many pids in the window are checked one by one; a wider one reads the /proc directory. */
const PROBE_MAX = 64;

/** Opened just before the spawn, completed with the plugin's pid once it has one. */
export interface PidWindow {
  /** The pid counter just before the spawn (undefined without /proc). */
  opened: OdometerReading | undefined;
  /** The plugin's pid: the first one the run holds. */
  first: number;
}

export function openPidWindow(): { opened: OdometerReading | undefined } {
  keepReading();
  return { opened: readOdometer() };
}

/**
 * The live pids in the window (every process started since it opened, and
 * possibly some threads of them: /proc/<tid> exists though /proc lists only
 * processes), or undefined when the window cannot be trusted (no /proc, or a
 * wrap was possible): then every process must be looked at.
 */
export function pidsInWindow(w: PidWindow): number[] | undefined {
  const now = readOdometer();
  if (!now || !w.opened || now.chain !== w.opened.chain || now.travel - w.opened.travel >= now.free) return undefined;
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
