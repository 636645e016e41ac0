// Runs a client-go exec credential plugin exactly as client-go's exec
// authenticator does (plugin/pkg/client/auth/exec/exec.go refreshCredsLocked):
//   argv     command (relative to the kubeconfig dir when it has a path separator, else PATH) + args
//   env      the client's environment, then exec.env, then KUBERNETES_EXEC_INFO last
//   stdin    only in interactive mode; otherwise /dev/null (Go's exec with a nil Stdin)
//   stdout   captured whole, then decoded; stderr captured here (client-go streams it to the user)
// and adds what client-go lacks: a timeout, so a hung plugin is a result rather than a hang, and
// a bounded wait for stdout, so a process the plugin leaves holding it is reported, not waited on (spawn.ts).
// A misbehaving plugin is data: every run returns an Invocation and lands in the InvocationLog.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';
import { decodeExecCredential } from '../api/exec/credential.ts';
import type { ExecCluster, ExecConfig, ExecCredential, InteractiveMode } from '../api/exec/types.ts';
import type { Redactor } from '../core/redact.ts';
import { cutResponse, type Invocation, type InvocationLog } from './invocation.ts';
import { goExitCode, goForkExecError } from './go-exec.ts';
import { abortRunningPlugins, MAX_OUTPUT_BYTES, runPluginProcess, type StdinMode } from './spawn.ts';

export const EXEC_INFO_ENV = 'KUBERNETES_EXEC_INFO';

/** client-go's installHintVerboseHelp, shown after "exec: executable X not found". */
export const INSTALL_HINT_HELP =
  '\n\nIt looks like you are trying to use a client-go credential plugin that is not installed.\n\n' +
  'To learn more about this feature, consult the documentation available at:\n' +
  '      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins';

/** An exec stanza ready to run: the config plus where it came from. */
export interface ExecPlugin {
  config: ExecConfig;
  /** Directory a command with a path separator is resolved against (the kubeconfig's; the cwd for --command). */
  baseDir: string;
  /** The cluster spec.cluster describes when provideClusterInfo is set. */
  cluster?: ExecCluster;
}

/**
 * How stdin is handled for one run:
 * - client-go: decide like client-go from interactiveMode and whether our stdin is a terminal; hand it over when interactive.
 * - none: not interactive, stdin is /dev/null (what client-go does when not interactive).
 * - silent-pipe: not interactive, stdin is a pipe nobody writes to or closes (what @kubernetes/client-node gives a
 *   plugin; a plugin that reads stdin while told it is not interactive blocks here, which is how the harness detects it).
 * - input: interactive, `data` then end of file (a scripted user at the prompt).
 */
export type StdinPlan =
  | { kind: 'client-go'; isTerminal: boolean; unavailableMessage?: string }
  | { kind: 'none' }
  | { kind: 'silent-pipe' }
  | { kind: 'input'; data: string };

export interface RunExecOptions {
  log: InvocationLog;
  timeoutMs: number;
  stdin?: StdinPlan;
  /** Overrides the ExecCredential apiVersion sent in KUBERNETES_EXEC_INFO and expected back. */
  apiVersion?: string;
  /** Sends this text as KUBERNETES_EXEC_INFO instead of the encoded request (to provoke a failure). */
  rawExecInfo?: string;
  /** Leaves KUBERNETES_EXEC_INFO out of the environment altogether, as @kubernetes/client-node runs plugins. */
  omitExecInfo?: boolean;
  /** The client's environment (default process.env). */
  parentEnv?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Secrets the plugin returns are registered here before the record is logged. */
  redactor?: Redactor;
  /** Label prefix for the invocation id (main, repeat, concurrent …). */
  label?: string;
}

export interface ExecInvocation extends Invocation {
  protocol: 'client-exec';
  /** The ExecCredential client-go accepted; absent when it would refuse it (decodeError says why). */
  response?: ExecCredential;
  /** The apiVersion this run was configured with. */
  configuredApiVersion: string;
  /** The spec.interactive the plugin was told. */
  interactive: boolean;
}

/** client-go's isInteractive: whether stdin is handed over, or why the plugin cannot run at all. */
export function decideInteractive(
  mode: InteractiveMode,
  stdin: { isTerminal: boolean; unavailableMessage?: string },
): { interactive: boolean } | { error: string } {
  if (mode === 'Never') return { interactive: false };
  if (mode === 'IfAvailable') return { interactive: stdin.unavailableMessage === undefined && stdin.isTerminal };
  if (stdin.unavailableMessage !== undefined) {
    return {
      error: `exec plugin cannot support interactive mode: standard input is unavailable${stdin.unavailableMessage ? `: ${stdin.unavailableMessage}` : ''}`,
    };
  }
  if (!stdin.isTerminal)
    return { error: 'exec plugin cannot support interactive mode: standard input is not a terminal' };
  return { interactive: true };
}

/** The ExecCredential client-go encodes into KUBERNETES_EXEC_INFO for this run. */
export function execInfoFor(plugin: ExecPlugin, apiVersion: string, interactive: boolean): ExecCredential {
  // Field order as client-go encodes it (cluster before interactive), so the bytes match kubectl's.
  const spec: ExecCredential['spec'] =
    plugin.config.provideClusterInfo && plugin.cluster ? { cluster: plugin.cluster, interactive } : { interactive };
  return { kind: 'ExecCredential', apiVersion, spec };
}

export type ResolvedCommand =
  { ok: true; path: string; display: string } | { ok: false; error: string; notFound: boolean };

/**
 * Where client-go finds the binary: a command with a path separator is made
 * absolute against the kubeconfig's directory at load time; a bare name is
 * looked up on the client's PATH (not the PATH in exec.env). Synchronous stat and access: a
 * few microseconds each, where a thread-pool round trip cost a tenth of a millisecond per run.
 */
export async function resolveExecCommand(
  plugin: ExecPlugin,
  parentEnv: NodeJS.ProcessEnv = process.env,
): Promise<ResolvedCommand> {
  const { command, installHint } = plugin.config;
  const notFound = (display: string): ResolvedCommand => ({
    ok: false,
    notFound: true,
    error: notFoundMessage(display, installHint),
  });
  if (command.includes('/') || command.includes(sep)) {
    const path = isAbsolute(command) ? command : resolve(plugin.baseDir, command);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st || st.isDirectory()) return notFound(path);
    try {
      accessSync(path, constants.X_OK);
    } catch {
      return { ok: false, notFound: false, error: `exec: fork/exec ${path}: permission denied` };
    }
    return { ok: true, path, display: path };
  }
  for (const dir of (parentEnv.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    const st = statSync(candidate, { throwIfNoEntry: false });
    if (!st || !st.isFile()) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return { ok: true, path: candidate, display: command };
    } catch {
      // Go's LookPath skips non-executable matches and keeps looking.
    }
  }
  return notFound(command);
}

/** client-go's message for a missing binary, with its help text and the stanza's installHint (ANSI codes stripped). */
export function notFoundMessage(display: string, installHint?: string): string {
  const hint = installHint ? `\n\n${stripAnsi(installHint)}` : '';
  return `exec: executable ${display} not found${INSTALL_HINT_HELP}${hint}`;
}

export function stripAnsi(s: string): string {
  return s.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\u001b\][^\u0007]*\u0007/g, '');
}

/** Kills every plugin run in flight and what it started (the CLI's SIGINT/SIGTERM handler); each run then returns. */
export function killRunningExecPlugins(): void {
  abortRunningPlugins();
}

export async function runExecPlugin(plugin: ExecPlugin, opts: RunExecOptions): Promise<ExecInvocation> {
  const parentEnv = opts.parentEnv ?? process.env;
  const apiVersion = opts.apiVersion ?? plugin.config.apiVersion;
  const plan: StdinPlan = opts.stdin ?? { kind: 'client-go', isTerminal: Boolean(process.stdin.isTTY) };
  const startedAt = new Date();
  const t0 = performance.now();
  const base = {
    id: opts.log.nextId(opts.label ?? 'exec'),
    protocol: 'client-exec' as const,
    startedAt: startedAt.toISOString(),
    configuredApiVersion: apiVersion,
    envKeys: [...plugin.config.env.map((e) => e.name), ...(opts.omitExecInfo ? [] : [EXEC_INFO_ENV])],
    stdout: '',
    stderr: '',
    timedOut: false,
  };
  const finish = async (inv: ExecInvocation): Promise<ExecInvocation> => {
    inv.durationMs = Math.round((performance.now() - t0) * 10) / 10;
    await opts.log.append(inv);
    return inv;
  };

  let interactive: boolean;
  let stdinMode: StdinMode;
  switch (plan.kind) {
    case 'client-go': {
      const d = decideInteractive(plugin.config.interactiveMode, plan);
      if ('error' in d) {
        return finish({
          ...base,
          argv: [plugin.config.command, ...plugin.config.args],
          request: null,
          interactive: false,
          durationMs: 0,
          spawnError: d.error,
          decodeError: d.error,
        });
      }
      interactive = d.interactive;
      stdinMode = { kind: interactive ? 'inherit' : 'ignore' };
      break;
    }
    case 'none':
      interactive = false;
      stdinMode = { kind: 'ignore' };
      break;
    case 'silent-pipe':
      interactive = false;
      stdinMode = { kind: 'open' };
      break;
    case 'input':
      interactive = true;
      stdinMode = { kind: 'data', data: plan.data };
      break;
  }

  const request = execInfoFor(plugin, apiVersion, interactive);
  // Go's JSON encoder ends its output with a newline, and client-go passes it on (seen with kubectl 1.32).
  const execInfo = opts.rawExecInfo ?? `${JSON.stringify(request)}\n`;
  let parsedRequest: unknown = execInfo;
  try {
    parsedRequest = JSON.parse(execInfo);
  } catch {
    // a deliberately malformed KUBERNETES_EXEC_INFO is recorded as text
  }
  if (opts.omitExecInfo) parsedRequest = null;

  const resolved = await resolveExecCommand(plugin, parentEnv);
  const argv = [resolved.ok ? resolved.path : plugin.config.command, ...plugin.config.args];
  if (!resolved.ok) {
    return finish({
      ...base,
      argv,
      request: parsedRequest,
      interactive,
      durationMs: 0,
      spawnError: resolved.error,
      decodeError: resolved.error,
    });
  }

  // Later entries win, as with Go's exec: exec.env over the client's, KUBERNETES_EXEC_INFO over both.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(parentEnv)) if (v !== undefined) env[k] = v;
  for (const e of plugin.config.env) env[e.name] = e.value;
  if (opts.omitExecInfo) delete env[EXEC_INFO_ENV];
  else env[EXEC_INFO_ENV] = execInfo;

  const result = await runPluginProcess({
    file: resolved.path,
    args: plugin.config.args,
    env,
    cwd: opts.cwd ?? process.cwd(),
    stdin: stdinMode,
    timeoutMs: opts.timeoutMs,
  });
  const timedOut = result.timedOut;
  const inv: ExecInvocation = {
    ...base,
    argv,
    request: parsedRequest,
    interactive,
    durationMs: 0,
    stdout: result.stdout,
    stderr: result.stderr,
    timedOut,
  };
  if (result.exitCode !== undefined) inv.exitCode = result.exitCode;
  if (result.signal) inv.signal = result.signal;
  if (result.outputBytes.stdout > MAX_OUTPUT_BYTES || result.outputBytes.stderr > MAX_OUTPUT_BYTES)
    inv.outputBytes = result.outputBytes;
  if (result.strays.length > 0) inv.strays = result.strays;
  // The token and key it printed, even in output client-go refuses (YAML, noise around JSON), so no report shows them.
  opts.redactor?.learn(inv.stdout).learn(inv.stderr);

  if (timedOut) {
    inv.decodeError = `exec: executable ${resolved.display} did not finish within ${opts.timeoutMs} ms (killed)`;
  } else if (result.spawnErrorCode) {
    // client-go's wrapCmdRunErrorLocked: not an *exec.Error nor an *exec.ExitError, so "exec: " + the error.
    inv.spawnError = `exec: ${goForkExecError(resolved.path, result.spawnErrorCode)}`;
    inv.decodeError = inv.spawnError;
  } else if (result.exitCode !== 0) {
    // *exec.ExitError: ProcessState.ExitCode(), which is -1 when a signal ended the plugin.
    inv.decodeError = `exec: executable ${resolved.display} failed with exit code ${goExitCode(result)}`;
  } else if (cutResponse(inv)) {
    // Not decoded: its errors would be about the cut at MAX_OUTPUT_BYTES, not the plugin.
    inv.decodeError = cutResponse(inv);
  } else {
    const decoded = decodeExecCredential(inv.stdout, apiVersion);
    if (decoded.ok) inv.response = decoded.credential;
    else inv.decodeError = decoded.error;
  }
  return finish(inv);
}
