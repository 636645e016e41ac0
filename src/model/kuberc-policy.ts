// credprov's model of kubectl's credential-plugin policy (KEP-3104 kuberc,
// `credentialPluginPolicy` and `credentialPluginAllowlist`; k/k PRs #134870,
// #137272), read in k8s.io/kubectl v0.35.6, v0.36.5, v0.37.1 and client-go's
// plugin/pkg/client/auth/exec/exec.go of the same versions. What differs by
// kubectl minor is the version table's kubercPluginPolicy.
//
// 1. Loading (kuberc/kuberc.go DefaultGetPreferences, marshal.go decodePreference):
//    the kuberc is "explicit" when named by --kuberc or $KUBERC, otherwise
//    ~/.kube/kuberc; KUBERC=off (or KUBECTL_KUBERC=false) turns it off. A
//    strict-decoding error (an unknown field) is a warning and the leniently
//    decoded preference is used. A document that does not decode at all (1.36+:
//    an entry whose `name` and `command` differ fails conversion) is fatal when
//    explicit, but at the default path only warns and loads NO preferences: the
//    policy is then AllowAll.
// 2. Validation (exec.go ValidatePluginPolicy, run at startup by Apply, v0.35.6
//    kuberc.go:533 and cmd.go:372): errors are fatal wherever the file came from
//    ("error occurred while applying preferences …", exit 1).
// 3. kubectl sets ExecProvider.PluginPolicy on its rest config (applyPluginPolicy,
//    kuberc.go:151-163); client-go enforces it only where a program sets that
//    field (it has no kubeconfig form: `json:"-"`). So client-go programs that do
//    not, client-node and the Python client run every plugin.
// 4. Enforcement before each run (exec.go:577-659): DenyAll refuses; Allowlist
//    first compares the configured command (filepath.Clean) and cmd.Path (what
//    exec.Command resolved through PATH) verbatim with the entries, then the
//    resolved path with each entry that exec.LookPath resolves (entries whose
//    basename differs are skipped). A bare entry therefore allows whatever PATH
//    finds first, a shadow included; an absolute entry allows that file only.
//    A relative command with a slash is made absolute against the kubeconfig's
//    directory when the kubeconfig is loaded (clientcmd loader.go:612-615).
import { posix } from 'node:path';
import type { ClientName } from '../clients/probe.ts';
import { behaviourFor, type KubeBehaviour } from '../versions/table.ts';

export type PolicyType = '' | 'AllowAll' | 'DenyAll' | 'Allowlist';

/** The kuberc document's policy fields as written (YAML parsed): entries keep whatever keys they have. */
export interface KubercPolicyDoc {
  credentialPluginPolicy?: string;
  /** undefined: the field is absent (nil); []: present and empty. */
  credentialPluginAllowlist?: Array<Record<string, unknown>>;
  /** Other top-level keys (a typo such as credentialPluginAllowList lands here). */
  other?: string[];
}

export interface KubercLoad {
  /** How kubectl ends up: a policy it enforces, no policy (AllowAll), or refusing to start. */
  outcome: 'policy' | 'no-policy' | 'fatal';
  policy?: { type: PolicyType; allowlist?: string[] };
  /** stderr kubectl prints: a strict-decoding warning, a load warning, or the fatal error. */
  messages: string[];
  because: string;
}

/** What kubectl of `kubectlMinor` makes of a kuberc holding `doc` (explicit: --kuberc or $KUBERC). */
export function loadKuberc(kubectlMinor: number, doc: KubercPolicyDoc, explicit: boolean): KubercLoad {
  const form = behaviourFor(`1.${kubectlMinor}`).kubercPluginPolicy;
  const unknown: string[] = [...(doc.other ?? [])];
  if (form === 'absent') {
    if (doc.credentialPluginPolicy !== undefined) unknown.unshift('credentialPluginPolicy');
    if (doc.credentialPluginAllowlist !== undefined) unknown.push('credentialPluginAllowlist');
    return {
      outcome: 'no-policy',
      messages: unknown.length ? [strictWarning(unknown)] : [],
      because: `kubectl 1.${kubectlMinor} has no credential-plugin policy: the fields are unknown (a warning) and every plugin runs`,
    };
  }
  const entries: string[] | undefined = doc.credentialPluginAllowlist?.map((e, i) => {
    const name = typeof e.name === 'string' ? e.name : '';
    const command = typeof e.command === 'string' ? e.command : '';
    for (const k of Object.keys(e))
      if (!(form === 'name' ? ['name'] : ['name', 'command']).includes(k))
        unknown.push(`credentialPluginAllowlist[${i}].${k}`);
    if (form === 'name') return name;
    if (name && command && name !== command) return conversionError;
    return command || name;
  });
  if (entries?.includes(conversionError)) {
    const found = 'no valid preferences found in <kuberc>, use --v=5 to see details';
    return explicit
      ? {
          outcome: 'fatal',
          messages: [`error occurred while applying preferences kuberc error kuberc: ${found}`],
          because:
            'an entry names different `name` and `command`: conversion fails, the kuberc does not decode, and an explicit kuberc is fatal',
        }
      : {
          outcome: 'no-policy',
          messages: [`kuberc: no preferences loaded from <kuberc>: ${found}`],
          because:
            'an entry names different `name` and `command`: conversion fails, and a kuberc at the default path that does not decode is only a warning, so no policy applies (every plugin runs)',
        };
  }
  const messages = unknown.length ? [strictWarning(unknown)] : [];
  const type = (doc.credentialPluginPolicy ?? '') as PolicyType;
  const invalid = validatePolicy(doc.credentialPluginPolicy ?? '', entries);
  if (invalid)
    return {
      outcome: 'fatal',
      messages: [...messages, `error occurred while applying preferences ${invalid}`],
      because: `ValidatePluginPolicy at startup: ${invalid}`,
    };
  return {
    outcome: 'policy',
    policy: { type, ...(entries ? { allowlist: entries } : {}) },
    messages,
    because: `${type || 'no policy (AllowAll)'}${entries ? ` with ${entries.map((e) => JSON.stringify(e)).join(', ')}` : ''}${unknown.length ? `; ${unknown.join(', ')} ignored with a warning` : ''}`,
  };
}

const conversionError = '\u0000conversion';

function strictWarning(fields: string[]): string {
  return `kuberc: ignoring strict decoding error in <kuberc>: strict decoding error: ${fields.map((f) => `unknown field "${f}"`).join(', ')}`;
}

/** exec.go ValidatePluginPolicy: undefined when valid, else client-go's message. */
export function validatePolicy(type: string, allowlist: string[] | undefined): string | undefined {
  switch (type) {
    case '':
    case 'AllowAll':
    case 'DenyAll':
      return allowlist !== undefined
        ? `misconfigured credential plugin allowlist: plugin policy is "${type}" but allowlist is non-nil`
        : undefined;
    case 'Allowlist':
      if (allowlist === undefined) return 'credential plugin policy set to "Allowlist", but allowlist is unspecified';
      if (allowlist.length === 0)
        return 'credential plugin policy set to "Allowlist", but allowlist is empty; use "DenyAll" policy instead';
      for (const [i, e] of allowlist.entries()) {
        if (e === '') return `misconfigured credential plugin allowlist: empty allowlist entry #${i + 1}`;
        const cleaned = posix.normalize(e).replace(/(.)\/$/, '$1');
        if (cleaned !== e) return `non-normalized file path: "${e}" vs "${cleaned}"`;
      }
      return undefined;
    default:
      return `unknown plugin policy: "${type}"`;
  }
}

/** The files a LookPath sees: PATH in order, and which paths are executable files. */
export interface PathWorld {
  path: string[];
  executables: ReadonlySet<string>;
}

/** Go's exec.LookPath on Linux (go1.26): a name with a slash is checked as is; else the first PATH hit; a relative hit is ErrDot. */
export function lookPath(name: string, w: PathWorld): { path: string } | { error: string } {
  if (name.includes('/'))
    return w.executables.has(name)
      ? { path: name }
      : { error: `exec: "${name}": stat ${name}: no such file or directory` };
  for (const dir of w.path) {
    const p = posix.join(dir === '' ? '.' : dir, name);
    if (w.executables.has(p)) {
      if (!posix.isAbsolute(p))
        return { error: `exec: "${name}": cannot run executable found relative to current directory` };
      return { path: p };
    }
  }
  return { error: `exec: "${name}": executable file not found in $PATH` };
}

export interface PluginRun {
  /** The file client-go runs, or undefined when the policy (or a missing file) stops it. */
  runs?: string;
  /** client-go's error ("getting credentials: " precedes it in kubectl's output). */
  error?: string;
  because: string;
}

/** Whether client-go runs the kubeconfig's exec command under a policy, and which file it runs. */
export function enforcePolicy(
  policy: { type: PolicyType; allowlist?: string[] },
  command: string,
  w: PathWorld,
): PluginRun {
  const cmd = posix.normalize(command);
  // exec.Command resolves a bare name through PATH now; a failure leaves Path as the name.
  const resolved = cmd.includes('/') ? { path: cmd } : lookPath(cmd, w);
  const cmdPath = 'path' in resolved ? resolved.path : cmd;
  const runsIfFound = (because: string): PluginRun =>
    w.executables.has(cmdPath) && posix.isAbsolute(cmdPath)
      ? { runs: cmdPath, because }
      : {
          error: `exec: "${cmd}": executable file not found in $PATH`,
          because: `${because}; but nothing runs: ${cmd} is not found`,
        };
  switch (policy.type) {
    case '':
    case 'AllowAll':
      return runsIfFound(`${policy.type || 'no policy'}: every plugin runs`);
    case 'DenyAll':
      return { error: `plugin "${cmd}" not allowed: policy set to "DenyAll"`, because: 'DenyAll refuses every plugin' };
    case 'Allowlist': {
      const list = policy.allowlist ?? [];
      if (list.includes(cmd) || list.includes(cmdPath))
        return runsIfFound(
          `an entry equals the ${list.includes(cmd) ? `configured command ${cmd}` : `resolved path ${cmdPath}`} verbatim (no resolution of the entry)`,
        );
      const self = cmdPath === cmd ? lookPath(cmd, w) : resolved;
      if ('error' in self)
        return {
          error: `plugin path "${cmdPath}" cannot be resolved for credential plugin allowlist check: ${self.error}`,
          because: `${cmd} does not resolve`,
        };
      const hint = posix.basename(self.path);
      const matched = list
        .filter((e) => posix.basename(e) === hint)
        .find((e) => {
          const r = lookPath(e, w);
          return 'path' in r && r.path === self.path;
        });
      if (matched !== undefined)
        return runsIfFound(`entry ${JSON.stringify(matched)} resolves through LookPath to ${self.path}`);
      return {
        error: `plugin path "${self.path}" is not permitted by the credential plugin allowlist`,
        because: `${cmd} resolves to ${self.path}, and no entry equals it or resolves to it (entries with another basename than ${hint} are not even resolved)`,
      };
    }
  }
}

/** Does this client enforce the kuberc policy at all? */
export function clientEnforcesKuberc(
  client: ClientName,
  kubectl?: Pick<KubeBehaviour, 'kubercPluginPolicy' | 'minor'>,
): { enforces: boolean; because: string } {
  switch (client) {
    case 'kubectl':
      return kubectl?.kubercPluginPolicy === 'absent'
        ? { enforces: false, because: `kubectl 1.${kubectl.minor} has no credential-plugin policy` }
        : { enforces: true, because: 'kubectl reads kuberc and sets ExecProvider.PluginPolicy on its rest config' };
    case 'client-go':
      return {
        enforces: false,
        because:
          'client-go enforces only an ExecProvider.PluginPolicy the program sets (no kubeconfig field holds one); the client-go probe, like most programs, sets none',
      };
    case 'client-node':
      return { enforces: false, because: '@kubernetes/client-node has no credential-plugin policy' };
    case 'python':
      return { enforces: false, because: 'the Python client has no credential-plugin policy' };
  }
}

/**
 * For certify exec-plugin: does the kubeconfig's exec form survive an allowlist that names the plugin?
 * kubelogin's form runs `kubectl oidc-login …`: client-go checks `kubectl`, not the plugin, so an entry
 * naming kubectl-oidc_login refuses it, and the entry that admits it (`kubectl`) admits every kubectl plugin.
 */
export function allowlistNamingPlugin(
  exec: { command: string; args?: string[] },
  pluginBinary: string,
): { survives: boolean; launcher?: string; entryNeeded: string; because: string } {
  const base = posix.basename(exec.command);
  if (base === posix.basename(pluginBinary))
    return {
      survives: true,
      entryNeeded: exec.command,
      because: `the kubeconfig runs ${exec.command} itself: an entry naming it (bare, or its absolute path) allows it`,
    };
  const sub = exec.args?.[0];
  const viaKubectl =
    (base === 'kubectl' || base === 'oc') && sub !== undefined && pluginBinary.endsWith(`-${sub.replace(/-/g, '_')}`);
  return {
    survives: false,
    ...(viaKubectl ? { launcher: exec.command } : {}),
    entryNeeded: exec.command,
    because: viaKubectl
      ? `the kubeconfig runs ${exec.command} ${sub} …, so client-go checks ${exec.command}: an allowlist naming ${posix.basename(pluginBinary)} refuses it ("plugin path …/${base} is not permitted"); it needs an entry for ${base}, which admits every ${base} plugin, or a kubeconfig whose command is ${posix.basename(pluginBinary)}`
      : `the kubeconfig runs ${exec.command}, not ${posix.basename(pluginBinary)}: an allowlist naming the plugin refuses it`,
  };
}
