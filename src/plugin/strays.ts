// Finds the processes a plugin left behind once it exited. Process groups are
// not enough: a child that called setsid() is in a session and group of its
// own, and once the plugin exits it is reparented to init, so neither the
// group nor the process tree leads to it. Two things still do:
//   - the environment: every plugin run gets a unique MARKER_ENV value, which
//     its descendants inherit whatever they do to their session;
//   - the output socket: a process still holding the plugin's stdout or stderr
//     holds the far end of a socket (or pipe) whose near end is ours.
// What this finds is SIGKILLed, so it must never find anyone else's process:
// an unmarked process is reported only when it holds the plugin's own output
// end, established from our end (never read from the plugin, which may have
// pointed its fd 1 at /dev/null for a moment).
// After a run whose outputs closed with the plugin, only the processes born
// since its spawn are read (pid-window.ts): the environment marker survives
// what breaks parentage (double fork, setsid), and a pid cannot change.
// Linux only (it reads /proc); elsewhere nothing is found and the runner still
// ends at its deadline.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { pidsInWindow, type PidWindow } from './pid-window.ts';
import { cmdlineOf, fdTarget, isProcess, readProcFile, statOf } from './proc-files.ts';

/** Set in every plugin's environment; its value is unique to one run. Not shown in envKeys. */
export const MARKER_ENV = 'CREDPROV_PLUGIN_RUN';

/**
 * A MARKER_ENV value for one run: `<our pid>.<uuid>`. The pid lets a later
 * credprov tell a run whose credprov died (SIGKILL: no cleanup ran) from one
 * still going.
 */
export function newRunMarker(): string {
  return `${process.pid}.${randomUUID()}`;
}

/**
 * SIGKILLs the marked processes whose credprov is gone: what plugin runs left
 * behind when their credprov was killed before it could clean up (a hung
 * plugin, a daemonised child). Returns them, for a note.
 */
export function sweepOrphanedRuns(): StrayProcess[] {
  const needle = Buffer.from(`${MARKER_ENV}=`);
  const orphans: StrayProcess[] = [];
  for (const pid of otherProcesses()) {
    const environ = readProcFile(`/proc/${pid}/environ`);
    if (!environ) continue;
    const at = environ.indexOf(needle);
    if (at < 0) continue;
    const end = environ.indexOf(0, at);
    const owner = /^(\d+)\./.exec(
      environ.subarray(at + needle.length, end < 0 ? undefined : end).toString('utf8'),
    )?.[1];
    // Markers without an owner pid (an older credprov) are left alone: nothing says their run ended.
    if (owner === undefined || isRunning(Number(owner))) continue;
    const stat = statOf(pid);
    if (!stat || stat.dead) continue;
    orphans.push({ pid, cmdline: cmdlineOf(pid), holds: [] });
  }
  killStrays(orphans);
  return orphans;
}

/** One warning per process a sweep killed, naming only its executable (its arguments may carry secrets). */
export function warnOfOrphans(log: { warn(message: string): void }, orphans: StrayProcess[]): void {
  for (const o of orphans)
    log.warn(
      `killed pid ${o.pid} (${basename(o.cmdline.split(' ')[0] ?? '')}): left running by a plugin run whose credprov died before it could clean up`,
    );
}

/** Every process but this one (none where there is no /proc). */
function otherProcesses(): number[] {
  try {
    return readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .map(Number)
      .filter((pid) => pid !== process.pid);
  } catch {
    return [];
  }
}

function isRunning(pid: number): boolean {
  const stat = statOf(pid);
  return stat !== undefined && !stat.dead;
}

export type OutputName = 'stdout' | 'stderr';

export interface StrayProcess {
  pid: number;
  /** Its command line, NUL-separated words joined by spaces (clipped). */
  cmdline: string;
  /** Which of the plugin's outputs it still holds open. */
  holds: OutputName[];
}

export interface FoundProcess extends StrayProcess {
  /** Its process group when it was found. */
  pgid?: number;
}

/** An anonymous pipe or socket: unlike a path (/dev/null, a log file), it names one channel. */
const ANONYMOUS = /^(socket|pipe):\[\d+\]$/;

/**
 * The targets a holder of the plugin's outputs has open, from the targets of
 * our ends: a pipe is one inode for both ends; a socket pair is two, so the
 * peer is looked up with ss(8). An output whose far end cannot be established
 * is left out (then only marked processes are judged).
 */
export async function farEnds(ours: Map<string, OutputName>): Promise<Map<string, OutputName>> {
  const out = new Map<string, OutputName>();
  const sockets = new Map<string, OutputName>();
  for (const [target, name] of ours) {
    if (!ANONYMOUS.test(target)) continue;
    if (target.startsWith('pipe:')) out.set(target, name);
    else sockets.set(target.slice('socket:['.length, -1), name);
  }
  if (sockets.size === 0) return out;
  const table = await new Promise<string>((resolve) => {
    execFile('ss', ['-x', '-a', '-n'], { timeout: 2000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) =>
      resolve(err ? '' : stdout),
    );
  });
  // Netid State Recv-Q Send-Q Local-Address Local-Port(inode) Peer-Address Peer-Port(inode) …
  for (const line of table.split('\n')) {
    const f = line.trim().split(/\s+/);
    const name = f[5] !== undefined ? sockets.get(f[5]) : undefined;
    if (name && f[7] && f[7] !== '0') out.set(`socket:[${f[7]}]`, name);
  }
  return out;
}

export interface FindOptions {
  /** The MARKER_ENV value of this run. */
  marker: string;
  /** The targets a holder of the plugin's outputs has open (see farEnds); may be empty. */
  outputs: Map<string, OutputName>;
  /**
   * Also look at every process's descriptors, not only the marked ones: for an
   * output still open although no marked process holds it (the holder cleared
   * its environment). Only `outputs` count there. Costs a readlink per descriptor.
   */
  scanAll?: boolean;
  /**
   * With no `outputs` known while they are still open: take a marked
   * process's own fd 1 and 2, when anonymous, as the outputs it inherited.
   */
  guess?: boolean;
  /**
   * Read only the processes born since the run's spawn (when the window can
   * be trusted; see pid-window.ts). Only with no `outputs` and no `scanAll`:
   * whoever holds an output may be older than the run (a descriptor passed
   * to another process).
   */
  window?: PidWindow;
}

/** The live processes of this run (and any other process holding its outputs), except this one. */
export function findStrays(o: FindOptions): FoundProcess[] {
  const needle = Buffer.from(`${MARKER_ENV}=${o.marker}\0`);
  const outputs = new Map([...o.outputs].filter(([target]) => ANONYMOUS.test(target)));
  const found: FoundProcess[] = [];
  const windowed = o.window && outputs.size === 0 && !o.scanAll ? pidsInWindow(o.window) : undefined;
  // Not this process: it holds the near end of every output.
  for (const pid of windowed?.filter((p) => p !== process.pid) ?? otherProcesses()) {
    // undefined when gone, or not ours to read. Read again while empty on the full scan too: it runs when the
    // window could not be trusted (a loaded machine), right after the plugin's exit as well, and a grandchild
    // still inside execve then showed no environment (1 miss in 60 runs under CI's load).
    const environ = settledEnviron(pid);
    const marked = environ?.includes(needle) ?? false;
    if (!marked && (!o.scanAll || outputs.size === 0)) continue;
    // A window is probed pid by pid, so it may name a marked process's threads.
    if (windowed && !isProcess(pid)) continue;
    const holds = outputs.size > 0 ? outputsHeld(pid, outputs) : marked && o.guess ? stdioGuess(pid) : [];
    // Anyone else's process is reported only for holding the plugin's own output.
    if (!marked && holds.length === 0) continue;
    const stat = statOf(pid);
    if (!stat || stat.dead) continue;
    found.push({ pid, cmdline: cmdlineOf(pid), holds, ...(stat.pgid !== undefined ? { pgid: stat.pgid } : {}) });
  }
  return found;
}

/**
 * How often, 1 ms apart, an empty environment is read again before it is believed: 20 was enough on a quiet
 * machine (0 misses in 300); an execve under CI's load can take longer, and only a process with an empty
 * environment that is not a kernel thread or zombie ever waits.
 */
const EXEC_RETRIES = 100;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * A process's environment, read again while it is empty: a process inside
 * execve shows none for a moment, and the window (or the full scan) is read right after the
 * plugin's exit, when its background job may be exec'ing (measured: 3-4 of
 * 100 runs of `setsid sleep 30 &` missed without this, 0 of 300 with it).
 * A zombie or a kernel thread (a child of kthreadd) never has one and is not
 * waited for.
 */
function settledEnviron(pid: number): Buffer | undefined {
  for (let attempt = 0; ; attempt++) {
    const environ = readProcFile(`/proc/${pid}/environ`);
    if (environ === undefined || environ.length > 0 || attempt === EXEC_RETRIES) return environ;
    if (neverHasEnviron(pid)) return Buffer.alloc(0);
    Atomics.wait(pause, 0, 0, 1);
  }
}

function neverHasEnviron(pid: number): boolean {
  const stat = readProcFile(`/proc/${pid}/stat`)?.toString('latin1');
  if (stat === undefined) return true;
  // After "pid (comm) ": state ppid …; kthreadd is pid 2 and every kernel thread's parent.
  const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return state === 'Z' || state === 'X' || pid === 2 || ppid === '2';
}

function outputsHeld(pid: number, outputs: Map<string, OutputName>): OutputName[] {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const held = new Set<OutputName>();
  for (const fd of fds) {
    const name = outputs.get(fdTarget(pid, fd) ?? '');
    if (name) held.add(name);
  }
  return (['stdout', 'stderr'] as const).filter((n) => held.has(n));
}

function stdioGuess(pid: number): OutputName[] {
  const guess: OutputName[] = [];
  if (ANONYMOUS.test(fdTarget(pid, 1) ?? '')) guess.push('stdout');
  if (ANONYMOUS.test(fdTarget(pid, 2) ?? '')) guess.push('stderr');
  return guess;
}

/** SIGKILL each one; those already gone are skipped. */
export function killStrays(strays: StrayProcess[]): void {
  for (const s of strays) {
    try {
      process.kill(s.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
