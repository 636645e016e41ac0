// Where heavy artefacts and per-run state live. Caches sit outside the repo so
// a fresh clone reuses them; everything is overridable for tests and CI.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CREDPROV_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'credprov');
}

/** Live state of running environments and registries (pids, configs), one dir per name. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CREDPROV_STATE_DIR ?? join(env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'credprov');
}

/**
 * Files plugins read and write while a suite runs (fake scenarios, request
 * logs). A node of a container provider (kind) mounts it at the same path,
 * so a plugin running in a node sees the paths the harness wrote.
 */
export function exchangeDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), 'exchange');
}

export function timestampDirName(d = new Date()): string {
  return d.toISOString().replace(/[:]/g, '').replace(/\..*$/, 'Z');
}

export function defaultReportDir(cwd = process.cwd(), d = new Date()): string {
  return join(cwd, 'reports', timestampDirName(d));
}
