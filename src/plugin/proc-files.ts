// Reading one process's entries in /proc, as cheaply as Node allows: the
// stray search (strays.ts) reads these for every candidate process after
// every plugin run. Each reader returns undefined (or '') once the process is
// gone or not ours to read.
import { closeSync, openSync, readlinkSync, readSync } from 'node:fs';

// One buffer for every read: readFileSync's fstat and fresh buffers cost
// about 3x the read itself on a /proc file.
let shared = Buffer.allocUnsafe(64 * 1024);

/**
 * The whole content of a /proc file. The Buffer is a view of a shared one:
 * valid until the next call, so use it at once.
 */
export function readProcFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    let size = 0;
    for (;;) {
      if (size === shared.length) {
        // An environment can be up to ARG_MAX (2 MiB and more): grow, keeping what was read.
        const bigger = Buffer.allocUnsafe(shared.length * 2);
        shared.copy(bigger, 0, 0, size);
        shared = bigger;
      }
      const n = readSync(fd, shared, size, shared.length - size, null);
      if (n === 0) return shared.subarray(0, size);
      size += n;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The link text of a descriptor, e.g. "socket:[1234]" or "pipe:[99]"; undefined once it is gone. */
export function fdTarget(pid: number, fd: number | string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** State and process group from /proc/<pid>/stat; a zombie (or a process being torn down) is dead: it holds and runs nothing. */
export function statOf(pid: number): { dead: boolean; pgid?: number } | undefined {
  const stat = readProcFile(`/proc/${pid}/stat`)?.toString('utf8');
  if (stat === undefined) return undefined;
  // After "pid (comm) ": state ppid pgrp …; comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0] ?? '';
  const pgid = Number(fields[2]);
  return { dead: state === 'Z' || state === 'X' || state === 'x', ...(Number.isInteger(pgid) ? { pgid } : {}) };
}

/**
 * Whether the pid is a process rather than one of its threads: /proc/<tid>
 * answers for every thread, though listing /proc shows only processes.
 */
export function isProcess(pid: number): boolean {
  const status = readProcFile(`/proc/${pid}/status`)?.toString('latin1');
  return status !== undefined && new RegExp(`^Tgid:\\s*${pid}$`, 'm').test(status);
}

const MAX_CMDLINE = 300;

/** Its command line, NUL-separated words joined by spaces, clipped; '' once it is gone. */
export function cmdlineOf(pid: number): string {
  const words = (readProcFile(`/proc/${pid}/cmdline`)?.toString('utf8') ?? '').split('\0').filter((w) => w !== '');
  const text = words.join(' ');
  return text.length > MAX_CMDLINE ? `${text.slice(0, MAX_CMDLINE)}…` : text;
}
