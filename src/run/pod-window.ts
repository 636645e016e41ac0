// A pod run with what each log gained while it ran: a vendor plugin's execs
// (its recording wrapper's log), a fake cloud's requests. One window per pod,
// which is why cases that read them run one at a time.
import type { Environment } from '../cluster/provider.ts';
import { systemClock, type Clock } from '../core/time.ts';
import { runPod, type PodRun } from './lab.ts';
import type { PodOptions } from './pods.ts';
import { since } from './window.ts';

type Logs = Record<string, () => Promise<readonly unknown[]> | readonly unknown[]>;

export interface PodWindow<L extends Logs> {
  run: PodRun;
  /** When the pod was created and when its outcome was in (ms since the epoch, on the case's clock). */
  createdAt: number;
  doneAt: number;
  /** What each log gained meanwhile. */
  added: { [K in keyof L]: Array<Awaited<ReturnType<L[K]>>[number]> };
}

/** Runs the pod to its outcome (deleted after) and reads what each of `logs` gained meanwhile. */
export async function runPodWatching<L extends Logs>(
  env: Environment,
  pod: PodOptions & { timeoutMs?: number },
  logs: L,
  clock: Clock = systemClock,
): Promise<PodWindow<L>> {
  const windows = await Promise.all(Object.entries(logs).map(async ([k, read]) => [k, await since(read)] as const));
  const createdAt = clock.now();
  const run = await runPod(env, pod);
  const doneAt = clock.now();
  const added = Object.fromEntries(await Promise.all(windows.map(async ([k, w]) => [k, await w.added()] as const)));
  return { run, createdAt, doneAt, added: added as PodWindow<L>['added'] };
}

/** How many times `provider` ran among `execs` (a window's). */
export const execsOf = (execs: ReadonlyArray<{ provider: string }>, provider: string): number =>
  execs.filter((i) => i.provider === provider).length;
