// Stopping a process we started but no longer hold as a child: a detached
// daemon found again through a pid file or a state file, possibly by another
// credprov process. Pids get reused, so the caller proves the pid is still
// ours before and while it waits.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 20;

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Does any process have this pid, ours or another user's? EPERM means it
 * exists: a lock or /etc/hosts entry whose holder runs as someone else is
 * still held, so it must not be taken over.
 */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Our own detached children linger as zombies until reaped; they hold nothing, so they count as gone. */
export function isZombie(pid: number): boolean {
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

export interface TerminateOptions {
  /** Time to exit cleanly after SIGTERM (daemons unmount and flush state) before SIGKILL. */
  graceMs: number;
  /** How long to wait for the process to go after SIGKILL; 0 returns at once. */
  killWaitMs?: number;
  /** False once the pid no longer is the process we started (exited, or reused): stop waiting. */
  stillOurs?: () => Promise<boolean>;
}

/** SIGTERM, then SIGKILL if it outlives `graceMs`. Resolves true once the process is gone. */
export async function terminatePid(pid: number, o: TerminateOptions): Promise<boolean> {
  const gone = async () => !isAlive(pid) || isZombie(pid) || (o.stillOurs !== undefined && !(await o.stillOurs()));
  if (!signal(pid, 'SIGTERM')) return true;
  if (await waitUntil(gone, o.graceMs)) return true;
  signal(pid, 'SIGKILL');
  return waitUntil(gone, o.killWaitMs ?? 0);
}

/** A process we started, as a state file records it: its pid, and what its command line must hold to still be ours. */
export interface OwnedProcess {
  pid: number;
  /** A substring of /proc/<pid>/cmdline proving the pid is still ours. */
  match: string;
}

export async function isOurs(p: OwnedProcess): Promise<boolean> {
  try {
    const cmdline = (await readFile(`/proc/${p.pid}/cmdline`, 'utf8')).split('\0').join(' ');
    return cmdline.includes(p.match);
  } catch {
    return false;
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone (or no longer ours). */
export async function terminate(p: OwnedProcess, graceMs = 5000): Promise<void> {
  if (!(await isOurs(p))) return;
  await terminatePid(p.pid, { graceMs, stillOurs: () => isOurs(p) });
}

function signal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false; // already gone
  }
}

async function waitUntil(done: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await done()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
}
