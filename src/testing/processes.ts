// Finds the processes a test started through the plugins it ran: each test
// gives its plugins a unique NAME=VALUE in their environment, which every
// descendant inherits, setsid or not. Used to prove nothing was left behind,
// and to clean up by pid when a test failed before the runner could.
import { readdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { sleep } from '../core/time.ts';

export const TEST_MARKER_ENV = 'CREDPROV_TEST_MARKER';

export function newMarker(): string {
  return `m-${randomUUID()}`;
}

/** Pids of live (not zombie) processes whose environment holds TEST_MARKER_ENV=marker. */
export function markedProcesses(marker: string): number[] {
  const needle = Buffer.from(`${TEST_MARKER_ENV}=${marker}\0`);
  const pids: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${p}/environ`).includes(needle)) continue;
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && state !== 'X') pids.push(Number(p));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** SIGKILLs what markedProcesses finds (test cleanup only). */
export function killMarked(marker: string): void {
  for (const pid of markedProcesses(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/** Waits up to `ms` for every marked process to be gone; returns those still alive. */
export async function markedAfter(marker: string, ms = 1000): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const alive = markedProcesses(marker);
    if (alive.length === 0 || Date.now() >= deadline) return alive;
    await sleep(25);
  }
}
