// What every client probe shares: which Kubernetes version the clients are
// taken at, where their builds are cached, and the environment they (and so
// the plugins they run) get by default.
import { isSecretKey } from '../core/redact.ts';
import { cacheDir as defaultCacheDir } from '../core/paths.ts';
import { DEFAULT_KUBE_VERSION } from '../versions/table.ts';

export interface ProbeOptions {
  /** The cluster's Kubernetes version: kubectl and client-go are taken at it (v1.37.1 → client-go v0.37.1). */
  kubeVersion?: string;
  cacheDir?: string;
  /** Where to look for prerequisites (CREDPROV_KUBECTL, PATH); default process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface ResolvedProbeOptions {
  kubeVersion: string;
  cacheDir: string;
  env: NodeJS.ProcessEnv;
}

export function resolveProbeOptions(o: ProbeOptions = {}): ResolvedProbeOptions {
  const env = o.env ?? process.env;
  return { kubeVersion: o.kubeVersion ?? DEFAULT_KUBE_VERSION, cacheDir: o.cacheDir ?? defaultCacheDir(env), env };
}

/** An exact release (v1.37.1) or pre-release (v1.38.0-alpha.0), with or without the v. */
const EXACT = /^v?(1\.(\d+)\.(\d+)(?:-((?:alpha|beta|rc)\.\d+))?)$/;

/**
 * client-go's module version for a Kubernetes release or pre-release: v1.37.1 → v0.37.1, v1.38.0-alpha.0 →
 * v0.38.0-alpha.0 (staging modules are tagged v0.<minor>.<patch>[-<pre>] with the release).
 */
export function clientGoVersionFor(kubeVersion: string): string {
  const m = EXACT.exec(kubeVersion.trim());
  if (!m) throw new Error(`'${kubeVersion}' is not an exact Kubernetes version (like v1.37.1 or v1.38.0-alpha.0)`);
  return `v0.${m[2]}.${m[3]}${m[4] ? `-${m[4]}` : ''}`;
}

/**
 * The environment a client gets when the caller gives none: credprov's own,
 * minus variables whose name says they hold a secret (a token, a password),
 * which the plugin has no business seeing.
 */
export function defaultClientEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !isSecretKey(k)) out[k] = v;
  return out;
}

/** An exact Kubernetes version as the caches name it (v1.37.1, v1.38.0-alpha.0), or undefined when `s` is not one. */
export function exactKubeVersion(s: string): string | undefined {
  const m = EXACT.exec(s.trim());
  return m ? `v${m[1]}` : undefined;
}
