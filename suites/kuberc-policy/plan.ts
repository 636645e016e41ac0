// The kuberc-policy suite's data: the kubectl releases it runs, and each run
// as a kuberc document, where kubectl finds it, and the kubeconfig's exec form.
// No I/O: the files are written by cases.ts, the outcomes predicted by predict.ts.
import type { KubercPolicyDoc } from '../../src/model/kuberc-policy.ts';
import { DEFAULT_KUBE_VERSION } from '../../src/versions/table.ts';
import { ALLOW_DENY, DEFAULT_PATH_FAILS_OPEN, ENTRY_FIELD, LAUNCHER_FORM, LOOKPATH, VALIDATION } from './checks.ts';

/**
 * The kubectl of each minor that has the policy (1.35 `name`, 1.36+ `command`), as credprov resolves a minor
 * (v1.35.4, v1.36.5 today; the test builds make them with the version-skew kubelets), and the default version's.
 */
export const KUBECTL_VERSIONS = ['1.35', '1.36', DEFAULT_KUBE_VERSION];

/** The fake exec plugin's file name; a kubectl plugin of the same program is `kubectl-fake_login`. */
export const PLUGIN = 'credprov-kuberc-plugin';
export const KUBECTL_PLUGIN = 'kubectl-fake_login';

/**
 * How the kubeconfig runs the plugin: its bare name (found through PATH), its
 * absolute path, or kubelogin's form (`kubectl fake-login get-token`).
 */
export type ExecForm = 'bare' | 'absolute' | 'launcher';

/** An allowlist entry as written: `{ name: '@plugin' }`; `@plugin`/`@plugin-abs` stand for the plugin's name and path. */
export type Entry = Record<string, string>;

export interface KubercRunPlan {
  label: string;
  /** The kuberc as written; undefined: no kuberc at all. Entries name the plugin through the placeholders. */
  policy?: string;
  allowlist?: Entry[];
  /** explicit: named by $KUBERC; default: at $HOME/.kube/kuberc. */
  where: 'explicit' | 'default';
  exec: ExecForm;
  /** A copy of the plugin in a PATH directory before the real one. */
  shadow?: boolean;
}

const ABS = '@plugin-abs';
const BARE = '@plugin';

export const RUNS: Record<string, KubercRunPlan[]> = {
  [ALLOW_DENY.id]: [
    { label: 'AllowAll', policy: 'AllowAll', where: 'explicit', exec: 'bare' },
    { label: 'DenyAll', policy: 'DenyAll', where: 'explicit', exec: 'bare' },
    {
      label: 'Allowlist naming its path',
      policy: 'Allowlist',
      allowlist: [{ name: ABS, command: ABS }],
      where: 'explicit',
      exec: 'absolute',
    },
  ],
  [ENTRY_FIELD.id]: [
    { label: '{name}', policy: 'Allowlist', allowlist: [{ name: BARE }], where: 'explicit', exec: 'bare' },
    { label: '{command}', policy: 'Allowlist', allowlist: [{ command: BARE }], where: 'explicit', exec: 'bare' },
    {
      label: '{name: other, command: plugin}',
      policy: 'Allowlist',
      allowlist: [{ name: 'other', command: BARE }],
      where: 'explicit',
      exec: 'bare',
    },
  ],
  [DEFAULT_PATH_FAILS_OPEN.id]: [
    {
      label: '~/.kube/kuberc with {name: other, command: plugin}',
      policy: 'Allowlist',
      allowlist: [{ name: 'other', command: BARE }],
      where: 'default',
      exec: 'bare',
    },
  ],
  [VALIDATION.id]: [
    { label: 'empty allowlist', policy: 'Allowlist', allowlist: [], where: 'explicit', exec: 'bare' },
    { label: 'no allowlist', policy: 'Allowlist', where: 'explicit', exec: 'bare' },
    { label: 'empty entry', policy: 'Allowlist', allowlist: [{ name: '' }], where: 'explicit', exec: 'bare' },
    { label: 'relative entry', policy: 'Allowlist', allowlist: [{ name: './bin/x' }], where: 'explicit', exec: 'bare' },
    { label: 'unknown policy', policy: 'Sometimes', where: 'explicit', exec: 'bare' },
  ],
  [LOOKPATH.id]: [
    {
      label: 'bare entry, shadow first in PATH',
      policy: 'Allowlist',
      allowlist: [{ name: BARE }],
      where: 'explicit',
      exec: 'bare',
      shadow: true,
    },
    {
      label: 'absolute entry, shadow first in PATH',
      policy: 'Allowlist',
      allowlist: [{ name: ABS }],
      where: 'explicit',
      exec: 'bare',
      shadow: true,
    },
    {
      label: 'absolute entry, no shadow',
      policy: 'Allowlist',
      allowlist: [{ name: ABS }],
      where: 'explicit',
      exec: 'bare',
    },
  ],
  [LAUNCHER_FORM.id]: [
    {
      label: 'entry naming the kubectl plugin',
      policy: 'Allowlist',
      allowlist: [{ name: KUBECTL_PLUGIN }],
      where: 'explicit',
      exec: 'launcher',
    },
    {
      label: 'entry naming kubectl',
      policy: 'Allowlist',
      allowlist: [{ name: 'kubectl' }],
      where: 'explicit',
      exec: 'launcher',
    },
  ],
};

/** Where a case's files are: the plugin's dir (with kubectl and the kubectl plugin), the shadow's dir. */
export interface CaseDirs {
  bin: string;
  shadowBin: string;
  /** PATH after the case's own dirs (the system's, for /bin/sh). */
  systemPath: string[];
}

export const pluginPath = (d: CaseDirs): string => `${d.bin}/${PLUGIN}`;
export const shadowPath = (d: CaseDirs): string => `${d.shadowBin}/${PLUGIN}`;
export const kubectlPluginPath = (d: CaseDirs): string => `${d.bin}/${KUBECTL_PLUGIN}`;

/** PATH for a run: the shadow's dir first when it has one. */
export function runPath(r: KubercRunPlan, d: CaseDirs): string[] {
  return [...(r.shadow ? [d.shadowBin] : []), d.bin, ...d.systemPath];
}

/** The kuberc document of a run, placeholders replaced (what is written, and what the model reads). */
export function kubercDoc(r: KubercRunPlan, d: CaseDirs): KubercPolicyDoc {
  const fill = (v: string): string => (v === ABS ? pluginPath(d) : v === BARE ? PLUGIN : v);
  return {
    ...(r.policy !== undefined ? { credentialPluginPolicy: r.policy } : {}),
    ...(r.allowlist
      ? {
          credentialPluginAllowlist: r.allowlist.map((e) =>
            Object.fromEntries(Object.entries(e).map(([k, v]) => [k, fill(v)])),
          ),
        }
      : {}),
  };
}

/** The kubeconfig's exec stanza for a form. */
export function execOf(form: ExecForm, d: CaseDirs): { command: string; args: string[] } {
  if (form === 'launcher') return { command: 'kubectl', args: ['fake-login', 'get-token'] };
  return { command: form === 'absolute' ? pluginPath(d) : PLUGIN, args: [] };
}
