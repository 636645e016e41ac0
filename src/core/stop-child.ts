// Stopping a process the harness spawned and still holds as its child (a test
// containerd, a private dockerd, a vendor's server in a lab). A daemon gets
// `graceMs` to clean up its mounts and shims on SIGTERM; SIGKILL only after
// that, since a killed daemon leaves them behind. (A process found again by
// pid, not held as a child: pids.ts.)
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export async function stopChild(c: ChildProcess | undefined, graceMs: number): Promise<void> {
  if (!c || c.exitCode !== null) return;
  const gone = new Promise((r) => c.once('exit', r));
  c.kill('SIGTERM');
  // ref:false: a daemon that ignores SIGTERM must not keep the test process alive by the timer alone.
  await Promise.race([gone, sleep(graceMs, undefined, { ref: false })]);
  if (c.exitCode === null) c.kill('SIGKILL');
}
