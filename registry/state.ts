// What a started registry leaves on disk so another credprov process can list
// or stop it: <dir>/state.json. Teardown from state kills only processes whose
// command line still is the one we started (pids get reused), removes the
// /etc/hosts lines and the dir.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stateDir } from '../src/core/paths.ts';
import { HostsFile } from '../src/core/hosts.ts';
import { isOurs, pidExists, terminate, type OwnedProcess } from '../src/core/pids.ts';
import { noopLogger, type Logger } from '../src/core/logger.ts';
import type { AuthMode } from './auth.ts';
import { containerRunning, dockerHost, removeContainer } from '../src/engine/docker-runtime.ts';

export interface RegistryState {
  name: string;
  provider: 'process' | 'container';
  processes: OwnedProcess[];
  containerId?: string;
  /** The Docker daemon that runs `containerId` (no host: the default daemon of whoever reads the state). */
  docker?: { host?: string };
  host: string;
  hostname: string;
  address: string;
  port: number;
  url: string;
  auth: AuthMode;
  realm?: string;
  caFile?: string;
  credentialsFile?: string;
  dir: string;
  /** stop()/down removes `dir` (a temp dir, or the CLI's state dir). */
  ownsDir: boolean;
  hostsOwner?: string;
  hostsFile?: string;
  /** The process a non-detached registry belongs to: once it is gone, the registry is a crashed run's leftover. */
  ownerPid?: number;
  createdAt: string;
  images?: string[];
}

export function registriesDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'registries');
}

export async function writeState(s: RegistryState): Promise<void> {
  await writeFile(join(s.dir, 'state.json'), `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
}

export async function readState(dir: string): Promise<RegistryState | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as RegistryState;
  } catch {
    return undefined;
  }
}

/** Registries under the CLI's state dir, with whether their processes still run. */
export async function listStates(
  env: NodeJS.ProcessEnv = process.env,
): Promise<Array<{ dir: string; state?: RegistryState; running: boolean }>> {
  const root = registriesDir(env);
  const names = await readdir(root).catch(() => [] as string[]);
  const out = [];
  for (const n of names.sort()) {
    const dir = join(root, n);
    const state = await readState(dir);
    const running = !!state && (await isRunning(state));
    out.push({ dir, ...(state ? { state } : {}), running });
  }
  return out;
}

/** Every recorded process is alive and, for the container provider, the container runs. */
export async function isRunning(s: RegistryState): Promise<boolean> {
  if (s.processes.length === 0 && !s.containerId) return false;
  if (!(await Promise.all(s.processes.map(isOurs))).every(Boolean)) return false;
  if (s.containerId) return containerRunning(dockerHost(s.docker?.host), s.containerId);
  return true;
}

/**
 * Stops what a state file describes; every step runs even when one fails, the
 * first error is rethrown. A container is removed through `removeContainer`,
 * else through the daemon the state names (`registry down`, Ctrl-C in `up`).
 */
export async function teardown(
  s: RegistryState,
  o: { logger?: Logger; removeContainer?: (id: string) => Promise<void> } = {},
): Promise<void> {
  const log = o.logger ?? noopLogger;
  const errors: unknown[] = [];
  const attempt = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (err) {
      log.warn(`${what}: ${(err as Error).message}`);
      errors.push(err);
    }
  };
  for (const p of s.processes) await attempt(`stopping pid ${p.pid}`, () => terminate(p));
  const remove = o.removeContainer ?? ((id: string) => removeContainer(s.docker ?? {}, id));
  if (s.containerId) await attempt(`removing container ${s.containerId.slice(0, 12)}`, () => remove(s.containerId!));
  if (s.hostsOwner)
    await attempt('removing /etc/hosts entries', () => new HostsFile(s.hostsFile).remove(s.hostsOwner!));
  if (s.ownsDir) await attempt(`removing ${s.dir}`, () => rm(s.dir, { recursive: true, force: true }));
  if (errors.length > 0) throw errors[0];
}

/** /etc/hosts owner of a registry: CLI registries by name; in-process ones also by pid, so a crashed run's lines can be told apart and pruned. */
export function hostsOwner(name: string, detached: boolean, pid = process.pid): string {
  return detached ? `registry/${name}` : `registry/${name}:pid${pid}`;
}

/**
 * Removes registry lines whose owner is gone: an in-process registry whose
 * process died, and (when `cliNames` is given) a CLI registry without state,
 * limited to `only` when set. Returns the owners removed.
 */
export async function pruneRegistryHosts(
  hosts: HostsFile,
  o: { cliNames?: Set<string>; only?: string } = {},
): Promise<string[]> {
  return hosts.prune((owner) => {
    const m = /^registry\/([a-z0-9-]+)(?::pid(\d+))?$/.exec(owner);
    if (!m) return false;
    if (m[2]) return !pidExists(Number(m[2]));
    if (!o.cliNames || (o.only && m[1] !== o.only)) return false;
    return !o.cliNames.has(m[1]!);
  });
}

/** Where in-process registries make their dirs (mkdtemp), so a later process can find a dead run's. */
export const IN_PROCESS_DIR_PREFIX = 'credprov-registry-';

/** The pid an in-process registry belongs to (older states only say it in their /etc/hosts owner); undefined for detached ones. */
export function ownerPidOf(s: RegistryState): number | undefined {
  if (s.ownerPid !== undefined) return s.ownerPid;
  const m = /:pid(\d+)$/.exec(s.hostsOwner ?? '');
  return m ? Number(m[1]) : undefined;
}

/** In-process registries under `dir` (default the temp dir) whose owning process matches `ended` (default: is gone). */
export async function orphanedRegistries(
  o: { dir?: string; ended?: (pid: number) => boolean } = {},
): Promise<RegistryState[]> {
  const dir = o.dir ?? tmpdir();
  const ended = o.ended ?? ((pid: number) => !pidExists(pid));
  const out: RegistryState[] = [];
  for (const n of await readdir(dir).catch(() => [] as string[])) {
    if (!n.startsWith(IN_PROCESS_DIR_PREFIX)) continue;
    const s = await readState(join(dir, n));
    const owner = s ? ownerPidOf(s) : undefined;
    if (s && s.dir === join(dir, n) && s.ownsDir && owner !== undefined && ended(owner)) out.push(s);
  }
  return out;
}

/**
 * Stops the registries of runs that died without stopping them (a SIGKILLed
 * CLI or test worker): their processes, /etc/hosts lines and dirs. Only ever
 * touches registries whose owner is gone. Returns the dirs removed.
 */
export async function pruneOrphanedRegistries(o: { dir?: string; logger?: Logger } = {}): Promise<string[]> {
  const removed: string[] = [];
  for (const s of await orphanedRegistries(o.dir ? { dir: o.dir } : {})) {
    await teardown(s, o.logger ? { logger: o.logger } : {}).then(
      () => removed.push(s.dir),
      () => {},
    );
  }
  return removed;
}
