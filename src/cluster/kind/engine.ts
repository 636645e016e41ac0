// The Docker engine kind runs on. An engine that already answers (DOCKER_HOST,
// or /var/run/docker.sock on an ordinary CI runner) is used as it is. Where
// none answers, credprov starts its own dockerd, detached so it outlives `up`
// and serves `run` and `down` from other processes:
// - its data root lives in the cache dir, so node images built once stay;
// - exec root, socket and pidfile live under /run/credprov-kind (a unix
//   socket path must stay under 108 bytes);
// - no iptables rules, no masquerading, no ip_forward change: nodes reach each
//   other on their bridge and this host on the bridge's gateway, nothing else;
// - where this host's capability bounding set lacks CAP_SYS_RESOURCE, runc
//   refuses every --privileged container ("unable to apply caps"), and kind
//   runs its nodes privileged: the default runtime is then a wrapper that
//   drops that one capability from the OCI spec before it calls runc.
// stopOwnEngine() ends it (down does when no kind cluster is left); its data
// root stays, as a cache.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pingDocker, DEFAULT_DOCKER_HOST } from '../../engine/docker-runtime.ts';
import { dockerdArgs, findDockerd, findExecutable } from '../../engine/dockerd.ts';
import { PrerequisiteError, TimeoutError, tail } from '../../core/errors.ts';
import { cacheDir } from '../../core/paths.ts';
import { isOurs, terminate } from '../../core/pids.ts';

export const OWN_ENGINE_RUN_DIR = '/run/credprov-kind';
// The names dockerdArgs gives them under the run dir.
const OWN_ENGINE_SOCKET = join(OWN_ENGINE_RUN_DIR, 'docker.sock');
const OWN_ENGINE_PIDFILE = join(OWN_ENGINE_RUN_DIR, 'docker.pid');
const WRAPPER_RUNTIME = 'credprov-runc';
/** CAP_SYS_RESOURCE's bit in /proc/<pid>/status Cap* masks (linux/capability.h). */
const CAP_SYS_RESOURCE_BIT = 24n;

export interface Engine {
  /** DOCKER_HOST for the docker and kind CLIs. */
  host: string;
  /** `system`: an engine that was already there; `own`: the dockerd credprov started. */
  kind: 'system' | 'own';
  version: string;
}

/** Whether this process's capability bounding set has CAP_SYS_RESOURCE (false: privileged containers need the runc wrapper). */
export async function boundingSetHasSysResource(statusFile = '/proc/self/status'): Promise<boolean> {
  const text = await readFile(statusFile, 'utf8');
  const m = /^CapBnd:\s*([0-9a-f]+)$/m.exec(text);
  if (!m) return true;
  return ((BigInt(`0x${m[1]}`) >> CAP_SYS_RESOURCE_BIT) & 1n) === 1n;
}

export function ownEngineDataRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'kind', 'docker');
}

/** dockerd's flags for credprov's own engine: confined like the registry tier's private daemon, its data root in the cache. */
export function ownEngineArgs(dataRoot: string, withWrapper: boolean): string[] {
  return [
    ...dockerdArgs(OWN_ENGINE_RUN_DIR, { dataRoot }),
    ...(withWrapper
      ? ['--add-runtime', `${WRAPPER_RUNTIME}=${wrapperPath()}`, '--default-runtime', WRAPPER_RUNTIME]
      : []),
  ];
}

function wrapperPath(): string {
  return join(OWN_ENGINE_RUN_DIR, 'runc-without-sys-resource');
}

/**
 * The runtime wrapper: runc with CAP_SYS_RESOURCE taken out of the bundle's
 * config.json (create/run) or the exec's process.json (docker exec
 * --privileged), which docker writes as compact JSON.
 */
export function runcWrapperScript(runc: string): string {
  return `#!/bin/sh
# credprov: runc without CAP_SYS_RESOURCE, which this host's capability bounding set lacks.
prev=
for a in "$@"; do
  f=
  case "$prev" in --bundle|-b) f="$a/config.json" ;; --process|-p) f="$a" ;; esac
  case "$a" in --bundle=*) f="\${a#--bundle=}/config.json" ;; --process=*) f="\${a#--process=}" ;; esac
  if [ -n "$f" ] && [ -f "$f" ]; then
    sed -i -e 's/"CAP_SYS_RESOURCE",//g' -e 's/,"CAP_SYS_RESOURCE"//g' -e 's/"CAP_SYS_RESOURCE"//g' "$f"
  fi
  prev="$a"
done
exec ${runc} "$@"
`;
}

/** The engine to use: one that answers already, else credprov's own (started when `start`). */
export async function resolveEngine(
  o: { env?: NodeJS.ProcessEnv; start?: boolean; onProgress?: (line: string) => void } = {},
): Promise<Engine | undefined> {
  const env = o.env ?? process.env;
  const own = `unix://${OWN_ENGINE_SOCKET}`;
  const candidates = env.DOCKER_HOST ? [env.DOCKER_HOST] : [DEFAULT_DOCKER_HOST, own];
  for (const host of candidates) {
    const ping = await pingDocker(host, 3000);
    if (ping.ok) return { host, kind: host === own ? 'own' : 'system', version: ping.version };
  }
  if (!o.start || env.DOCKER_HOST) return undefined;
  o.onProgress?.('starting credprov’s own Docker engine for kind');
  return startOwnEngine(env);
}

async function startOwnEngine(env: NodeJS.ProcessEnv): Promise<Engine> {
  const dockerd = await findDockerd(env);
  if (!dockerd)
    throw new PrerequisiteError('kind needs a Docker engine and none answers; dockerd is not installed either', {
      hint: 'apt-get install docker.io (scripts/setup.sh --kind does), or point DOCKER_HOST at an engine',
    });
  if (process.getuid?.() !== 0) throw new PrerequisiteError('credprov can start its own Docker engine only as root');
  const withWrapper = !(await boundingSetHasSysResource());
  await mkdir(OWN_ENGINE_RUN_DIR, { recursive: true, mode: 0o700 });
  await writeFile(join(OWN_ENGINE_RUN_DIR, 'daemon.json'), '{}\n');
  if (withWrapper) {
    await writeFile(
      wrapperPath(),
      runcWrapperScript(
        (await findExecutable('runc', [...(env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/bin'])) ?? 'runc',
      ),
    );
    await chmod(wrapperPath(), 0o755);
  }
  const dataRoot = ownEngineDataRoot(env);
  await mkdir(dataRoot, { recursive: true });
  const logFile = join(OWN_ENGINE_RUN_DIR, 'dockerd.log');
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(dockerd, ownEngineArgs(dataRoot, withWrapper), {
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    child.unref();
  } finally {
    closeSync(fd);
  }
  const host = `unix://${OWN_ENGINE_SOCKET}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const ping = await pingDocker(host, 2000);
    if (ping.ok) return { host, kind: 'own', version: ping.version };
    await sleep(200);
  }
  const text = await readFile(logFile, 'utf8').catch(() => '');
  await stopOwnEngine();
  throw new TimeoutError(`credprov's own dockerd did not answer on ${host} within 60 s`, { detail: tail(text, 20) });
}

/** Stops credprov's own engine (its containers stop with it) and removes its run dir; the data root stays. Idempotent. */
export async function stopOwnEngine(): Promise<void> {
  const pid = Number((await readFile(OWN_ENGINE_PIDFILE, 'utf8').catch(() => '')).trim());
  if (pid > 0 && (await isOurs({ pid, match: OWN_ENGINE_SOCKET })))
    await terminate({ pid, match: OWN_ENGINE_SOCKET }, 30_000);
  await rm(OWN_ENGINE_RUN_DIR, { recursive: true, force: true }).catch(() => undefined);
}
