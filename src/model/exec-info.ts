// credprov's model of what each real client tells an exec plugin when it runs
// it: the KUBERNETES_EXEC_INFO variable (apiVersion, spec.interactive,
// spec.cluster) and whether the plugin's stdin is the user's terminal; or that
// it refuses to run the plugin at all (client-go's interactiveMode Always
// without a terminal). Read from the sources each client is taken at:
//
// client-go v0.37.1 (kubectl and the client-go probe), plugin/pkg/client/auth/exec/exec.go:
// - 234-259 isInteractive: Never → false; IfAvailable → stdin is a terminal
//   (term.IsTerminal(os.Stdin.Fd())); Always → true with a terminal, else
//   the error "standard input is not a terminal".
// - 436-439: that error ends the refresh as "exec plugin cannot support
//   interactive mode: …" before the plugin runs; the round tripper
//   (367-370) wraps it as "getting credentials: …" and sends nothing.
// - 441-455: KUBERNETES_EXEC_INFO is the ExecCredential in the configured
//   apiVersion with spec.interactive, and spec.cluster only with
//   provideClusterInfo.
// - 462-464: stdin is the client's own only when interactive (otherwise
//   os/exec gives /dev/null).
// - rest/exec.go ConfigToExecCluster: spec.cluster is {server,
//   certificate-authority-data: the CA file's bytes, config: the cluster's
//   client.authentication.k8s.io/exec extension (tools/clientcmd/
//   client_config.go:313)}; empty fields are left out (omitempty).
//
// @kubernetes/client-node 2.0.1, dist/exec_auth.js:
// - 60-83: spawn(command, args, {env}) with no KUBERNETES_EXEC_INFO, whatever
//   apiVersion, interactiveMode or provideClusterInfo say; stdin is a pipe.
//
// kubernetes (Python) 37.0.2, config/exec_provider.py:
// - 72: interactive is sys.stdout.isatty(): interactiveMode is never read.
// - 73-79: {apiVersion (configured), kind: ExecCredential, spec: {interactive}}.
// - 82-88: with provideClusterInfo, spec.cluster is the kubeconfig's cluster
//   mapping as written (server, certificate-authority path, extensions …)
//   plus `config`, the client.authentication.k8s.io/exec extension.
// - 91-99: stdin is sys.stdin when interactive, else inherited (None): a
//   terminal the process has reaches the plugin either way.
//
// fabric8 kubernetes-client 8.0.0, KubeConfigUtils.java:335-405: no
//   KUBERNETES_EXEC_INFO whatever the kubeconfig says; interactiveMode is not
//   read; the plugin runs through `sh -c` with a stdin pipe never written.
// kube-rs (kube-client 5.0.0) auth/mod.rs:565-613: interactive is
//   interactiveMode != Never (IfAvailable and Always alike, terminal or not);
//   then stdin (and stderr) are the caller's, else a pipe;
//   KUBERNETES_EXEC_INFO {apiVersion, kind, spec: {interactive, cluster with
//   provideClusterInfo}}; spec.cluster is config/file_config.rs:718-735
//   ExecAuthCluster: server, certificate-authority-data (the CA's bytes),
//   config (the exec extension); empty fields left out.
// kubernetes_asyncio 36.1.0 config/exec_provider.py:38-93: as the Python
//   client (interactive = sys.stdout.isatty(), stdin inherited), but
//   provideClusterInfo is not read: spec holds interactive only.
import { EXEC_CLUSTER_EXTENSION, type ExecApiVersion, type InteractiveMode } from '../api/exec/types.ts';
import type { ExecClientName } from '../clients/probe.ts';

export interface ExecUserModel {
  apiVersion: ExecApiVersion;
  interactiveMode: InteractiveMode;
  provideClusterInfo: boolean;
}

export interface ClusterModel {
  /** The kubeconfig's cluster mapping exactly as written (server, certificate-authority, extensions …). */
  raw: Record<string, unknown>;
  /** The server URL as written. */
  server: string;
  /** base64 of the CA file's bytes (client-go inlines the file). */
  caData: string;
}

export interface ClientSetting {
  user: ExecUserModel;
  cluster: ClusterModel;
  /** The client process has a terminal (the probe's `terminal`: stdin, and for Python stdout too). */
  terminal: boolean;
}

export type PluginLaunch =
  | { runs: true; execInfo: Record<string, unknown> | null; stdinIsTerminal: boolean; because: string }
  | { runs: false; error: string; because: string };

/** What `client` hands the plugin on a run, or why it does not run it. */
export function pluginLaunch(client: ExecClientName, s: ClientSetting): PluginLaunch {
  switch (client) {
    case 'kubectl':
    case 'client-go': {
      const mode = s.user.interactiveMode;
      if (mode === 'Always' && !s.terminal) {
        return {
          runs: false,
          error: 'getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal',
          because: 'client-go exec.go:242: interactiveMode Always needs stdin to be a terminal',
        };
      }
      const interactive = mode === 'Always' || (mode === 'IfAvailable' && s.terminal);
      const spec: Record<string, unknown> = { interactive };
      if (s.user.provideClusterInfo) spec.cluster = clientGoCluster(s.cluster);
      return {
        runs: true,
        execInfo: { apiVersion: s.user.apiVersion, kind: 'ExecCredential', spec },
        stdinIsTerminal: interactive && s.terminal,
        because: `client-go exec.go:234-259,441-464: ${mode}${s.terminal ? ' with' : ' without'} a terminal → interactive ${interactive}; spec.cluster ${s.user.provideClusterInfo ? 'from the kubeconfig (CA inlined)' : 'left out'}`,
      };
    }
    case 'client-node':
      return {
        runs: true,
        execInfo: null,
        stdinIsTerminal: false,
        because: 'client-node exec_auth.js:83: spawn without KUBERNETES_EXEC_INFO, stdin a pipe',
      };
    case 'python': {
      const spec: Record<string, unknown> = { interactive: s.terminal };
      if (s.user.provideClusterInfo) spec.cluster = pythonCluster(s.cluster);
      return {
        runs: true,
        execInfo: { apiVersion: s.user.apiVersion, kind: 'ExecCredential', spec },
        stdinIsTerminal: s.terminal,
        because: `python exec_provider.py:72-99: interactive = stdout is a terminal (${s.terminal}), interactiveMode ignored; stdin ${s.terminal ? 'the terminal' : 'inherited'}; spec.cluster ${s.user.provideClusterInfo ? 'the kubeconfig mapping plus config' : 'left out'}`,
      };
    }
    case 'fabric8':
      return {
        runs: true,
        execInfo: null,
        stdinIsTerminal: false,
        because:
          'fabric8 KubeConfigUtils.java:335-405: no KUBERNETES_EXEC_INFO, interactiveMode not read, `sh -c` with a stdin pipe',
      };
    case 'kube-rs': {
      const interactive = s.user.interactiveMode !== 'Never';
      if (interactive && !s.terminal)
        return {
          runs: false,
          error: "no answer: the plugin, told interactive, prompts on the caller's stdin, which is no terminal",
          because: `kube-rs auth/mod.rs:584-590: ${s.user.interactiveMode} → interactive true with no terminal, the caller's stdin handed over: the scripted plugin prompts (reads stdin to its end, as a plugin told interactive may), and the program's stdin, an open pipe, never ends`,
        };
      const spec: Record<string, unknown> = { interactive };
      if (s.user.provideClusterInfo) spec.cluster = clientGoCluster(s.cluster);
      return {
        runs: true,
        execInfo: { apiVersion: s.user.apiVersion, kind: 'ExecCredential', spec },
        stdinIsTerminal: interactive && s.terminal,
        because: `kube-rs auth/mod.rs:584-605: ${s.user.interactiveMode} → interactive ${interactive} whatever the terminal; stdin ${interactive ? "the caller's" : 'a pipe'}; spec.cluster ${s.user.provideClusterInfo ? 'server, CA data, config' : 'left out'}`,
      };
    }
    case 'kubernetes-asyncio':
      return {
        runs: true,
        execInfo: { apiVersion: s.user.apiVersion, kind: 'ExecCredential', spec: { interactive: s.terminal } },
        stdinIsTerminal: s.terminal,
        because: `kubernetes_asyncio exec_provider.py:38-93: interactive = stdout is a terminal (${s.terminal}), interactiveMode and provideClusterInfo not read; stdin inherited`,
      };
  }
}

function extensionOf(raw: Record<string, unknown>): unknown {
  const list = Array.isArray(raw.extensions) ? (raw.extensions as Array<{ name?: unknown; extension?: unknown }>) : [];
  return list.find((e) => e.name === EXEC_CLUSTER_EXTENSION)?.extension;
}

function clientGoCluster(c: ClusterModel): Record<string, unknown> {
  const config = extensionOf(c.raw);
  return { server: c.server, 'certificate-authority-data': c.caData, ...(config !== undefined ? { config } : {}) };
}

function pythonCluster(c: ClusterModel): Record<string, unknown> {
  const config = extensionOf(c.raw);
  return { ...c.raw, ...(config !== undefined ? { config } : {}) };
}
