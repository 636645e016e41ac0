// Runs a kubelet image credential provider plugin the way the kubelet does
// (pkg/credentialprovider/plugin/plugin.go, reference §2.3):
//   argv   <binDir>/<name> args…   (exec.CommandContext: argv[0] is that path)
//   env    the parent's environment, then the config's `env` (later wins)
//   stdin  the JSON-encoded CredentialProviderRequest
//   stdout captured whole and decoded strictly against the provider's apiVersion
//   stderr kept (the kubelet adds it to the error only when exec fails)
//   1 minute timeout, then the plugin is killed.
// Unlike the kubelet, the run ends by its deadline even when a process the
// plugin left keeps stdout open (which hangs the kubelet's exec): such
// processes are killed and listed in the Invocation (spawn.ts).
// Whatever the plugin does, the result is an Invocation: a misbehaving plugin
// is data for a check, never an exception.
import { join } from 'node:path';
import { decodeResponse, encodeRequest } from '../api/credentialprovider/response.ts';
import type { CredentialProviderRequest, ExecEnvVar } from '../api/credentialprovider/types.ts';
import type { Redactor } from '../core/redact.ts';
import { cutResponse, type Invocation, type InvocationLog } from './invocation.ts';
import { goForkExecError } from './go-exec.ts';
import { abortRunningPlugins, runPluginProcess } from './spawn.ts';

/** The kubelet's hard-coded plugin exec timeout. */
export const KUBELET_PLUGIN_TIMEOUT_MS = 60_000;

export interface KubeletPluginRun {
  /** Either the executable path itself… */
  path?: string;
  /** …or the kubelet's way: `<binDir>/<name>` (name = the provider entry's name). */
  binDir?: string;
  name?: string;
  args?: string[];
  /** The provider's `env` entries, appended to the parent environment. */
  env?: ExecEnvVar[];
  /** The kubelet's own environment; defaults to this process's. */
  parentEnv?: NodeJS.ProcessEnv;
  /** The request object, or raw stdin text (to provoke a plugin with a malformed request). */
  request: CredentialProviderRequest | { raw: string };
  /** The provider's configured protocol apiVersion; defaults to the request's. */
  apiVersion?: string;
  timeoutMs?: number;
  log?: InvocationLog;
  /** Secrets found in the output (passwords, tokens, in JSON or YAML) are learnt here before the invocation is logged. */
  redactor?: Redactor;
}

export function pluginPath(run: Pick<KubeletPluginRun, 'path' | 'binDir' | 'name'>): string {
  if (run.path) return run.path;
  if (run.binDir && run.name) return join(run.binDir, run.name);
  throw new TypeError('runKubeletPlugin needs either path or binDir and name');
}

/** The environment the kubelet hands a plugin: os.Environ() then config env, later entries winning. */
export function pluginEnv(parent: NodeJS.ProcessEnv, extra: ExecEnvVar[] = []): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(parent)) if (v !== undefined) env[k] = v;
  for (const e of extra) env[e.name] = e.value;
  return env;
}

/** Kills every plugin run in flight and what it started (for SIGINT/SIGTERM handlers); each run then returns. */
export function killRunningPlugins(): void {
  abortRunningPlugins();
}

let idCounter = 0;

export async function runKubeletPlugin(run: KubeletPluginRun): Promise<Invocation> {
  const file = pluginPath(run);
  const args = run.args ?? [];
  const env = pluginEnv(run.parentEnv ?? process.env, run.env);
  const isRaw = 'raw' in run.request;
  const stdin = isRaw ? (run.request as { raw: string }).raw : encodeRequest(run.request as CredentialProviderRequest);
  const request: unknown = isRaw ? (run.request as { raw: string }).raw : run.request;
  const apiVersion = run.apiVersion ?? (isRaw ? '' : (run.request as CredentialProviderRequest).apiVersion);
  const timeoutMs = run.timeoutMs ?? KUBELET_PLUGIN_TIMEOUT_MS;

  const startedAt = new Date();
  const t0 = performance.now();
  const result = await runPluginProcess({
    file,
    args,
    env,
    stdin: { kind: 'data', data: stdin },
    timeoutMs,
    stdoutReader: 'json',
  });
  const durationMs = Math.round((performance.now() - t0) * 100) / 100;

  const inv: Invocation = {
    id: run.log ? run.log.nextId('kp') : `kp-${String(++idCounter).padStart(4, '0')}`,
    protocol: 'kubelet-credential-provider',
    startedAt: startedAt.toISOString(),
    durationMs,
    argv: [file, ...args],
    envKeys: [...new Set((run.env ?? []).map((e) => e.name))],
    inheritedEnv: Object.keys(env).filter((k) => !(run.env ?? []).some((e) => e.name === k)).length,
    request,
    stdout: result.stdout,
    stderr: result.stderr,
    timedOut: result.timedOut,
  };
  if (
    result.outputBytes.stdout > Buffer.byteLength(result.stdout) ||
    result.outputBytes.stderr > Buffer.byteLength(result.stderr)
  )
    inv.outputBytes = result.outputBytes;
  if (result.strays.length > 0) inv.strays = result.strays;
  const spawnError = result.spawnErrorCode ? goForkExecError(file, result.spawnErrorCode) : undefined;
  if (spawnError) {
    inv.spawnError = spawnError;
    if (result.spawnErrorWhy) inv.spawnErrorWhy = result.spawnErrorWhy;
  } else {
    if (result.exitCode !== undefined) inv.exitCode = result.exitCode;
    if (result.signal) inv.signal = result.signal;
  }
  if (!spawnError && !result.timedOut && inv.exitCode === 0) {
    // A response cut at credprov's limit is not decoded: its errors would be about the cut, not the plugin.
    const cut = cutResponse(inv);
    const decoded = cut ? undefined : decodeResponse(inv.stdout, apiVersion);
    if (decoded?.ok) inv.response = decoded.response;
    else inv.decodeError = cut ?? decoded!.error;
  }
  // Whatever the encoding (JSON, YAML, noise around it) or the type of the password.
  run.redactor?.learn(inv.stdout).learn(inv.stderr);
  if (run.log) await run.log.append(inv);
  return inv;
}
