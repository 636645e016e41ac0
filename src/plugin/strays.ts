// Finds the processes a plugin left behind once it exited. Process groups are
// not enough: a child that called setsid() is in a session and group of its
// own, and once the plugin exits it is reparented to init, so neither the
// group nor the process tree leads to it. Two things still do:
//   - the environment: every plugin run gets a unique MARKER_ENV value, which
//     its descendants inherit whatever they do to their session;
//   - the output socket: a process still holding the plugin's stdout or stderr
//     keeps the end the plugin was given open (found through /proc/*/fd).
// Linux only (it reads /proc); elsewhere nothing is found and the runner still
// ends at its deadline.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Set in every plugin's environment; its value is unique to one run. Not shown in envKeys. */
export const MARKER_ENV = 'CREDPROV_PLUGIN_RUN';

export type OutputName = 'stdout' | 'stderr';

export interface StrayProcess {
  pid: number;
  /** Its command line, NUL-separated words joined by spaces (clipped). */
  cmdline: string;
  /** Which of the plugin's outputs it still holds open. */
  holds: OutputName[];
}

/** The link text of a descriptor, e.g. "socket:[1234]" or "pipe:[99]"; undefined once it is gone. */
export function fdTarget(pid: number, fd: number | string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return undefined;
  }
}

export interface FindOptions {
  /** The MARKER_ENV value of this run. */
  marker: string;
  /** The targets (see fdTarget) of the ends of stdout/stderr the plugin was given. */
  outputs: Map<string, OutputName>;
  /**
   * Also look at every process's descriptors, not only the marked ones: for an
   * output still open although no marked process holds it (the holder cleared
   * its environment). Costs a readlink per descriptor on the machine.
   */
  scanAll?: boolean;
}

export interface FoundProcess extends StrayProcess {
  /** Its process group when it was found. */
  pgid?: number;
}

/** The live processes of this run (and any other process holding its outputs), except this one. */
export function findStrays(o: FindOptions): FoundProcess[] {
  const needle = Buffer.from(`${MARKER_ENV}=${o.marker}\0`);
  // Only an anonymous pipe or socket identifies the plugin's output: a path
  // (/dev/null, a log file) is shared with unrelated processes.
  const outputs = new Map([...o.outputs].filter(([target]) => ANONYMOUS.test(target)));
  const found: FoundProcess[] = [];
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return found;
  }
  for (const p of pids) {
    const pid = Number(p);
    if (pid === process.pid) continue; // we hold the other end of every output
    let marked = false;
    try {
      marked = readFileSync(`/proc/${p}/environ`).includes(needle);
    } catch {
      // gone, or not ours to read
    }
    if (!marked && !o.scanAll) continue;
    // An unmarked process counts only when it holds one of the plugin's own
    // output ends, never by a guess: it may be anyone's.
    const holds = marked ? outputsHeld(pid, outputs, true) : outputsHeld(pid, outputs, false);
    if (!marked && holds.length === 0) continue;
    const stat = statOf(pid);
    if (!stat || stat.dead) continue;
    found.push({ pid, cmdline: cmdlineOf(pid), holds, ...(stat.pgid !== undefined ? { pgid: stat.pgid } : {}) });
  }
  return found;
}

const ANONYMOUS = /^(socket|pipe):\[\d+\]$/;

function outputsHeld(pid: number, outputs: Map<string, OutputName>, mayGuess: boolean): OutputName[] {
  if (outputs.size === 0) {
    if (!mayGuess) return [];
    // The plugin was gone before its ends could be read: its own stdout and
    // stderr are the best guess at what a marked process inherited from it.
    const guess: OutputName[] = [];
    if (ANONYMOUS.test(fdTarget(pid, 1) ?? '')) guess.push('stdout');
    if (ANONYMOUS.test(fdTarget(pid, 2) ?? '')) guess.push('stderr');
    return guess;
  }
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

/** State and process group from /proc/<pid>/stat; a zombie (or a process being torn down) is dead: it holds and runs nothing. */
function statOf(pid: number): { dead: boolean; pgid?: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // After "pid (comm) ": state ppid pgrp …; comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0] ?? '';
  const pgid = Number(fields[2]);
  return { dead: state === 'Z' || state === 'X' || state === 'x', ...(Number.isInteger(pgid) ? { pgid } : {}) };
}

const MAX_CMDLINE = 300;

function cmdlineOf(pid: number): string {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`).toString('utf8').split('\0').filter((w) => w !== '');
    const text = words.join(' ');
    return text.length > MAX_CMDLINE ? `${text.slice(0, MAX_CMDLINE)}…` : text;
  } catch {
    return '';
  }
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
