// The kuberc-policy suite's checks: kubectl's credential-plugin policy
// (KEP-3104 kuberc: credentialPluginPolicy, credentialPluginAllowlist), run on
// the real kubectl of each minor against the environment's real API server.
import type { Check } from '../../src/run/kit.ts';

export const ALLOW_DENY: Check = {
  id: 'KRC-ALLOW-DENY',
  title: 'AllowAll runs the exec plugin, DenyAll refuses it, an Allowlist naming it runs it',
  level: 'MUST',
  source:
    'KEP-3104 (kuberc) credential plugin policy: AllowAll | DenyAll | Allowlist; client-go plugin/pkg/client/auth/exec/exec.go (v0.37.1:577-659)',
};

export const ENTRY_FIELD: Check = {
  id: 'KRC-ENTRY-FIELD',
  title:
    "An allowlist entry's field is the minor's (`name` in 1.35, `command` from 1.36 with `name` as an alias); different `name` and `command` in an explicit kuberc stop kubectl",
  level: 'MUST',
  source:
    'k/k #137272 (`name` became `command` in 1.36), kubectl pkg/config/v1beta1 conversion.go; version table kubercPluginPolicy',
};

export const DEFAULT_PATH_FAILS_OPEN: Check = {
  id: 'KRC-DEFAULT-PATH-FAILS-OPEN',
  title:
    'An Allowlist kuberc at ~/.kube/kuberc that does not decode should refuse plugins, not drop the policy and run every plugin',
  level: 'SHOULD',
  source:
    'KEP-3104 allowlist design ("a security knob: fail immediately rather than proceed when the user has made a mistake"); kubectl pkg/kuberc/kuberc.go DefaultGetPreferences; credprov finding 17',
};

export const VALIDATION: Check = {
  id: 'KRC-VALIDATION',
  title:
    "A malformed policy (empty or missing allowlist, empty entry, non-normalised path, unknown policy) stops kubectl before any request, in client-go's words",
  level: 'MUST',
  source: 'client-go exec.go ValidatePluginPolicy, applied at startup by kubectl (kuberc.go Apply, cmd.go)',
};

export const LOOKPATH: Check = {
  id: 'KRC-LOOKPATH',
  title:
    'Entries match through exec.LookPath: a bare entry admits a shadow earlier in PATH, an absolute entry refuses it and admits its own file',
  level: 'MUST',
  source:
    'KEP-3104: allowlist entries are resolved with exec.LookPath; client-go exec.go (v0.37.1:577-659); credprov finding 18',
};

export const LAUNCHER_FORM: Check = {
  id: 'KRC-LAUNCHER-FORM',
  title:
    "A kubeconfig that runs `kubectl <plugin> …` (kubelogin's form) is checked as `kubectl`: an entry naming the plugin refuses it, an entry naming kubectl runs it",
  level: 'MUST',
  source:
    'client-go exec.go: the policy checks exec.command; kubelogin setup docs (command: kubectl, args: [oidc-login, get-token]); credprov finding 18',
};

export const OTHER_CLIENTS: Check = {
  id: 'KRC-OTHER-CLIENTS',
  title:
    'Only kubectl applies the kuberc policy: client-go programs that set no PluginPolicy, client-node and the Python client run the plugin under a DenyAll kuberc',
  level: 'MUST',
  source:
    'client-go exec.go: ExecProvider.PluginPolicy is set by the program (json:"-", no kubeconfig field); KEP-3104 scopes kuberc to kubectl',
};

/** The checks run on each minor's kubectl (cases.ts); OTHER_CLIENTS runs the other clients (clients.ts). */
export const KUBECTL_CHECKS = [ALLOW_DENY, ENTRY_FIELD, DEFAULT_PATH_FAILS_OPEN, VALIDATION, LOOKPATH, LAUNCHER_FORM];

export const KUBERC_CHECKS = [...KUBECTL_CHECKS, OTHER_CLIENTS];
