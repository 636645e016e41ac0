// The Docker daemon the container tier talks to, through testcontainers.
// testcontainers picks its daemon once per process (DOCKER_HOST, then
// ~/.testcontainers.properties, then /var/run/docker.sock) and keeps it, so
// credprov names the daemon before the first call and refuses a second one.
// Ryuk, testcontainers' reaper, stays off: its image cannot be pulled here,
// and a registry's lifetime is credprov's (its state file, or an owner label
// on in-process containers; see container.ts). Read-only questions (is a
// daemon there, does a container run) are plain GETs on the Engine API;
// removing a registry container (teardown from state) goes through testcontainers.
import { request } from 'node:http';
import type { ContainerRuntimeClient } from 'testcontainers';
import { PrerequisiteError } from '../core/errors.ts';

export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';

/** The daemon to use: the one named, else $DOCKER_HOST, else the default socket. */
export function dockerHost(named?: string, env: NodeJS.ProcessEnv = process.env): string {
  return named || env.DOCKER_HOST || DEFAULT_DOCKER_HOST;
}

export type Testcontainers = typeof import('testcontainers');
export interface DockerRuntime {
  tc: Testcontainers;
  client: ContainerRuntimeClient;
  host: string;
}

let boundHost: string | undefined;

/** Points this process's testcontainers at `host` (once; a second host is refused). Exported for tests. */
export function bindDockerHost(host: string, env: NodeJS.ProcessEnv = process.env): void {
  if (boundHost !== undefined && boundHost !== host) {
    throw new PrerequisiteError(
      `this process already talks to the Docker daemon at ${boundHost}; testcontainers serves one daemon per process, so ${host} cannot be used too`,
      {
        hint: 'use registries of another daemon from another process',
      },
    );
  }
  if (boundHost !== undefined) return;
  env.DOCKER_HOST = host;
  env.TESTCONTAINERS_RYUK_DISABLED = 'true';
  // Inside a container (/.dockerenv, as on this CI machine) testcontainers would look for the
  // bridge network's gateway, or run alpine to find one. The registry uses host networking and
  // its own loopback address, so that answer would go unused, and alpine cannot be pulled here.
  env.TESTCONTAINERS_HOST_OVERRIDE ??= 'localhost';
  boundHost = host;
}

/** testcontainers, bound to `host`. Loaded on first use: importing it costs 0.3–2 s, which no other command should pay. */
export async function dockerRuntime(host: string): Promise<DockerRuntime> {
  bindDockerHost(host);
  const tc = await import('testcontainers');
  try {
    return { tc, client: await tc.getContainerRuntimeClient(), host };
  } catch (err) {
    const ping = await pingDocker(host);
    throw new PrerequisiteError(
      `testcontainers cannot use the Docker daemon at ${host}: ${ping.ok ? (err as Error).message : ping.reason}`,
      { cause: err },
    );
  }
}

export type Ping = { ok: true; version: string } | { ok: false; reason: string };

/** GET /version from the daemon: is it there, and is it Docker? */
export async function pingDocker(host: string, timeoutMs = 5000): Promise<Ping> {
  const r = await dockerGet(host, '/version', timeoutMs);
  if (!r.ok) return r;
  const version = (r.json as { Version?: unknown } | undefined)?.Version;
  if (r.status === 200 && typeof version === 'string') return { ok: true, version };
  return {
    ok: false,
    reason: `${host} answered GET /version with HTTP ${r.status}${typeof version === 'string' ? '' : ', not a Docker daemon'}`,
  };
}

/** Whether a container runs; false when the daemon does not know it (removed) or does not answer. */
export async function containerRunning(host: string, id: string, timeoutMs = 5000): Promise<boolean> {
  const r = await dockerGet(host, `/containers/${encodeURIComponent(id)}/json`, timeoutMs);
  return r.ok && r.status === 200 && (r.json as { State?: { Running?: unknown } } | undefined)?.State?.Running === true;
}

/**
 * A read-only Engine API call without testcontainers: availability probes and
 * `registry ls` stay cheap (no 0.3–2 s import) and may ask any number of
 * daemons. Whatever changes a container goes through testcontainers.
 * unix:// and plain tcp:// only.
 */
export function dockerGet(
  host: string,
  path: string,
  timeoutMs = 5000,
): Promise<{ ok: true; status: number; json: unknown } | { ok: false; reason: string }> {
  let target: { socketPath: string } | { host: string; port: number };
  try {
    const u = new URL(host);
    if (u.protocol === 'unix:') target = { socketPath: u.pathname };
    else if (u.protocol === 'tcp:' || u.protocol === 'http:')
      target = { host: u.hostname, port: Number(u.port || 2375) };
    else
      return Promise.resolve({
        ok: false,
        reason: `DOCKER_HOST ${host}: credprov reaches Docker over unix:// or plain tcp:// only`,
      });
  } catch {
    return Promise.resolve({
      ok: false,
      reason: `DOCKER_HOST ${host} is not a URL (e.g. unix:///var/run/docker.sock)`,
    });
  }
  return new Promise((resolve) => {
    const req = request({ ...target, path, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          // not JSON: the caller judges by status
        }
        resolve({ ok: true, status: res.statusCode ?? 0, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'ENOENT' ? 'no such socket' : err.code === 'ECONNREFUSED' ? 'connection refused' : err.message;
      resolve({ ok: false, reason: `no Docker daemon answers at ${host} (${why})` });
    });
    req.end();
  });
}

/** distribution exits at once on SIGTERM; SIGKILL after this. */
const STOP_GRACE_MS = 2_000;

/** Stops and removes a registry container; one already gone is no error. */
export async function removeById(rt: DockerRuntime, id: string): Promise<void> {
  const c = rt.client.container.getById(id);
  try {
    await rt.client.container.stop(c, { timeout: STOP_GRACE_MS });
    await rt.client.container.remove(c, { removeVolumes: true });
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return;
    throw new PrerequisiteError(
      `removing registry container ${id.slice(0, 12)} from ${rt.host} failed: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

/** Removes a container recorded in state (`registry down` from another process). */
export async function removeContainer(docker: { host?: string }, id: string): Promise<void> {
  await removeById(await dockerRuntime(dockerHost(docker.host)), id);
}
