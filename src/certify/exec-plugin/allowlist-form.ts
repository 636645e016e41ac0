// EP-ALLOWLIST-FORM: does the kubeconfig form a vendor ships survive kubectl's
// credential-plugin allowlist (KEP-3104 kuberc) when the user names the
// plugin in it? client-go checks exec.command, so kubelogin's form (`command:
// kubectl, args: [oidc-login, get-token]`) is checked as `kubectl` and an
// entry naming the plugin refuses it (finding 18). Judged from the kubeconfig
// by the kuberc model (allowlistNamingPlugin), as the kuberc-policy suite saw
// it on kubectl 1.35-1.37.
import { posix } from 'node:path';
import { allowlistNamingPlugin } from '../../model/kuberc-policy.ts';
import { fail, pass, type Outcome } from '../../report/checks.ts';
import type { ExecConfig } from '../../api/exec/types.ts';

/** The plugin binary a kubeconfig runs: `kubectl-<sub>` for `kubectl <sub> …` (kubectl's plugin naming), else the command. */
export function pluginBinaryOf(exec: Pick<ExecConfig, 'command' | 'args'>): string {
  const base = posix.basename(exec.command);
  const sub = exec.args[0];
  return (base === 'kubectl' || base === 'oc') && sub !== undefined && !sub.startsWith('-')
    ? `${base}-${sub.replace(/-/g, '_')}`
    : base;
}

const ENTRY_FIELD =
  "the entry's field is `command` from kubectl 1.36 (`name` in 1.35); `{name: X, command: X}` works on both";

export function judgeAllowlistForm(exec: Pick<ExecConfig, 'command' | 'args'>): Outcome {
  const plugin = pluginBinaryOf(exec);
  const r = allowlistNamingPlugin(exec, plugin);
  if (r.survives)
    return pass(
      `the kubeconfig runs ${exec.command} itself: a credentialPluginAllowlist entry naming ${plugin} admits it (write it as an absolute path to refuse a shadow earlier in PATH); ${ENTRY_FIELD}`,
    );
  return fail(
    r.launcher
      ? `the kubeconfig runs ${exec.command} ${exec.args[0]} …, so kubectl's allowlist checks ${posix.basename(exec.command)}, not ${plugin}: users who name ${plugin} in credentialPluginAllowlist are refused ("plugin path …/${posix.basename(exec.command)} is not permitted by the credential plugin allowlist"); ship a kubeconfig whose command is ${plugin} itself, or tell users to allow ${posix.basename(exec.command)}, which admits every ${posix.basename(exec.command)} plugin (credprov finding 18); ${ENTRY_FIELD}`
      : r.because,
  );
}
