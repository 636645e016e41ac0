// How a harness registry's distribution process is run: as a child process
// (process.ts) or in a container (container.ts). The registry's config,
// files and state are the same either way (started.ts).
import type { ReadyCheck, ReadyTarget } from './ready.ts';
import type { OwnedProcess } from '../src/core/pids.ts';

/** distribution's line once it has bound its address: proof that this run, not another, serves the port. */
export const LISTENING = /listening on/;

export interface RunRequest {
  /** distribution's config.yml; every path in it is under `dir`. */
  configPath: string;
  /** Where distribution's stdout and stderr go. */
  logFile: string;
  dir: string;
  /** Outlive this process (`credprov registry up`). */
  detached: boolean;
  /** When the registry serves its clients (by default GET /v2/ answers as its auth mode should). The runner also waits for LISTENING. */
  ready: ReadyCheck;
  /** Where `ready` asks: the registry's own URL, with its CA. */
  target: Pick<ReadyTarget, 'url' | 'ca'>;
  /**
   * Called as soon as there is something to clean up (a pid, a container id),
   * before readiness, and again when that changes: teardown from state must
   * find it even when readiness never comes or Ctrl-C arrives meanwhile.
   */
  record(h: RunHandle): Promise<void>;
}

export interface RunHandle {
  /** A host process to stop at teardown (the registry, or a detached container's log follower). */
  process?: OwnedProcess;
  containerId?: string;
  /** The daemon that runs `containerId` (saved in state for `registry down`). */
  docker?: { host: string };
}

export interface RegistryRunner {
  readonly kind: 'process' | 'container';
  /** Starts distribution on req.configPath and resolves once it is ready. On failure, teardown from state removes what was recorded. */
  run(req: RunRequest): Promise<RunHandle>;
  /** Stops one run (a restart after an htpasswd change); teardown from state does the rest. */
  stop(h: RunHandle): Promise<void>;
  /** Removes a container named in state (teardown, `registry down`). */
  removeContainer?(id: string): Promise<void>;
}
