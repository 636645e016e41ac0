// credprov's model of when the kubelet's exec of a credential provider plugin
// returns, and with what, given when the plugin exits and when the last
// process holding its stdout or stderr lets go. Built from reading
// kubelet v1.37.1 pkg/credentialprovider/plugin/plugin.go and Go's os/exec
// (go1.26, the kubelet's toolchain):
//   - ExecPlugin: ctx, cancel := context.WithTimeout(ctx, 1*time.Minute);
//     cmd := exec.CommandContext(ctx, …); cmd.Stdout, cmd.Stderr are
//     bytes.Buffers (so os/exec copies from pipes in goroutines); no WaitDelay.
//   - runPlugin: err := cmd.Run(); if ctx.Err() != nil → an error
//     ("… for image …: context deadline exceeded") and the plugin error counter
//     +1, whatever the plugin printed; the pull goes on without its credentials.
//   - Cmd.Wait: Process.Wait, then the ctx watcher's result (once the plugin
//     has exited, the watcher stops watching ctx), then awaitGoroutines: with
//     WaitDelay 0 and no timer it blocks until every copy goroutine ends, i.e.
//     until every holder of the pipes' write ends has closed them.
//   - Cancel (Process.Kill) only ever targets the plugin's own pid, and only
//     while Process.Wait is pending: a holder the plugin left is never killed.

import { KUBELET_PLUGIN_TIMEOUT_MS } from '../plugin/kubelet-exec.ts';

export interface PluginRunShape {
  /** When the plugin process exits, ms after the kubelet started it (Infinity: never, on its own). */
  exitsAtMs: number;
  /** When the last process holding its stdout or stderr closes them (a daemon's exit); absent: they close with the plugin. */
  outputsCloseAtMs?: number;
}

export interface KubeletExecPrediction {
  /** When the exec (and with it the image pull, which waits for the credentials) goes on, ms after the start. */
  returnsAtMs: number;
  /** The plugin's answer is used, or the exec fails with the context's error and the pull goes on without its credentials. */
  result: 'answer-used' | 'deadline-exceeded';
  /** Whether the kubelet kills the plugin (at the timeout), and whether it ever kills a holder it left. */
  killsPlugin: boolean;
  killsHolder: false;
  /** kubelet_credential_provider_plugin_errors_total rises by one. */
  errorCounted: boolean;
  because: string;
}

export function kubeletExec(shape: PluginRunShape, timeoutMs = KUBELET_PLUGIN_TIMEOUT_MS): KubeletExecPrediction {
  const s = (ms: number) => `${Math.round(ms / 100) / 10}s`;
  const killsPlugin = shape.exitsAtMs >= timeoutMs;
  const processDone = Math.min(shape.exitsAtMs, timeoutMs);
  // awaitGoroutines without WaitDelay: the pipes are read to their end, however long the holder keeps them.
  const returnsAtMs = Math.max(processDone, shape.outputsCloseAtMs ?? processDone);
  const late = returnsAtMs >= timeoutMs;
  const held = shape.outputsCloseAtMs !== undefined && shape.outputsCloseAtMs > processDone;
  const because = [
    killsPlugin
      ? `the plugin outlives the ${s(timeoutMs)} timeout and is killed (exec.CommandContext → Process.Kill)`
      : `the plugin exits at ${s(shape.exitsAtMs)}`,
    held
      ? `a holder keeps its output open until ${s(shape.outputsCloseAtMs!)}: Cmd.Wait (no WaitDelay) reads stdout/stderr to their end, and nothing kills the holder`
      : 'its outputs close with it',
    late
      ? "Run returns after the deadline, so runPlugin reports ctx.Err() (context deadline exceeded), counts an error, and the pull goes on without the plugin's credentials"
      : 'Run returns before the deadline and the answer is decoded and used',
  ].join('; ');
  return {
    returnsAtMs,
    result: late ? 'deadline-exceeded' : 'answer-used',
    killsPlugin,
    killsHolder: false,
    errorCounted: late,
    because,
  };
}
