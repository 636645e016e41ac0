// The exec plugin contract, one Check per requirement. `source` names where
// the requirement is written down (KEP-541, the client-go exec design
// proposal it grew from, or client-go's behaviour that makes it binding).
import type { Check } from '../../report/model.ts';

const check = (id: string, level: Check['level'], title: string, source: string): Check => ({
  id,
  level,
  title,
  source,
});

export const EP_EXEC = check(
  'EP-EXEC',
  'MUST',
  'client-go can start the plugin, and a plain run exits 0',
  'client-go exec.go starts the plugin with os/exec, a bare execve with no shell: a file the kernel has no loader for (a script without a #! line, an empty file) fails every run with "exec: fork/exec <path>: exec format error"; a non-zero exit fails the request ("exec: executable <path> failed with exit code N")',
);
export const EP_APIVERSION = check(
  'EP-APIVERSION',
  'MUST',
  'The answer uses the ExecCredential apiVersion the plugin is configured with',
  'KEP-541 Provider configuration: "The returned ExecCredentials MUST use the same encoding version as the input"; Version Skew Strategy: the client must validate the matching API version',
);
export const EP_KIND = check(
  'EP-KIND',
  'MUST',
  "The answer's kind, when given, is ExecCredential",
  'KEP-541 Provider output format: an ExecCredential object (client-go refuses another kind and fills in a missing one)',
);
export const EP_STATUS = check(
  'EP-STATUS',
  'MUST',
  'The answer has a status',
  'KEP-541 Provider output format: status is filled in by the plugin and holds the credentials (client-go: "exec plugin didn\'t return a status field")',
);
export const EP_CREDENTIAL_SHAPE = check(
  'EP-CREDENTIAL-SHAPE',
  'MUST',
  'status holds a token, or a client certificate together with its key',
  'KEP-541 Provider output format: token for bearer auth, clientCertificateData and clientKeyData for mTLS (client-go: "returned only certificate or key, not both")',
);
export const EP_TOKEN_HEADER_VALUE = check(
  'EP-TOKEN-HEADER-VALUE',
  'MUST',
  'A returned token can be sent as an HTTP header value by every client',
  'KEP-541 Provider output format: "token is a bearer token used by the client for request authentication", which clients send as "Authorization: Bearer <token>" (RFC 6750 §2.1); a header field value holds no control characters (RFC 9110 §5.5, RFC 7230 §3.2) and each client enforces its own rule: Go net/http httpguts.ValidHeaderFieldValue, undici (client-node) ByteString and header characters, Python http.client Latin-1 and line breaks',
);
export const EP_CERT_VALID = check(
  'EP-CERT-VALID',
  'MUST',
  'A returned client certificate and key are PEM, belong together and are valid at execution time',
  'KEP-541 Provider output format: "clientKeyData and clientCertificateData contain client TLS credentials in PEM format. The certificate must be valid at the time of execution."',
);
export const EP_EXPIRY_FORMAT = check(
  'EP-EXPIRY-FORMAT',
  'MUST',
  'expirationTimestamp, when set, is RFC 3339 and in the future',
  'KEP-541 Provider output format: "expirationTimestamp specifies the RFC3339 timestamp with credential expiry"; Risks: the provider "should ensure validity of the credentials it returns"',
);
export const EP_STDOUT_ONLY_JSON = check(
  'EP-STDOUT-ONLY-JSON',
  'MUST',
  'stdout holds the ExecCredential JSON and nothing else',
  'Exec design proposal: plugins "print credentials to stdout" as a structured ExecCredential; client-go decodes all of stdout ("decoding stdout: …")',
);
export const EP_FAILURE_EXPLAINED = check(
  'EP-FAILURE-EXPLAINED',
  'MUST',
  'A failing run exits non-zero and says why on stderr',
  'Exec design proposal: "Errors are surfaced through stderr and a non-zero exit code" (client-go itself reports only "failed with exit code N")',
);
export const EP_NONINTERACTIVE_NO_BLOCK = check(
  'EP-NONINTERACTIVE-NO-BLOCK',
  'MUST',
  'Told spec.interactive=false, the plugin does not read stdin or wait for a user',
  'KEP-541 Provider input format: standard input is reserved for interactive flows; Test Plan: "Executables requiring interactive prompts fail gracefully"',
);
export const EP_TIMEOUT = check(
  'EP-TIMEOUT',
  'MUST',
  'The plugin answers within the timeout',
  'KEP-541 Test Plan: "Reasonable timeout to executable calls so clients do not hang indefinitely" (client-go has none, so a hang blocks every request)',
);
export const EP_NO_STDOUT_HOLDER = check(
  'EP-NO-STDOUT-HOLDER',
  'MUST',
  'The plugin leaves no process holding its stdout once it exits',
  'client-go exec.go runs the plugin with exec.Command and a bytes.Buffer as stdout: cmd.Run reads stdout to its end, so a process the plugin leaves holding it (a daemon, even one in its own session) blocks the client until it exits (there is no timeout)',
);
export const EP_NO_LEFTOVER_PROCESSES = check(
  'EP-NO-LEFTOVER-PROCESSES',
  'SHOULD',
  'The plugin leaves no process running once it exits',
  "KEP-541 Proposal: no caching across client executions, so every kubectl process runs the plugin; processes it leaves behind pile up on the user's machine and CI runners",
);
export const EP_REPEAT = check(
  'EP-REPEAT',
  'MUST',
  'A second run returns a usable credential too',
  'KEP-541 Goals: credential rotation without client restart; the client re-executes the provider after expiry or a 401',
);
export const EP_CONCURRENCY = check(
  'EP-CONCURRENCY',
  'MUST',
  'Concurrent runs all return usable credentials',
  'KEP-541 Proposal: no caching across client executions, so every client process runs the plugin (parallel kubectl, CI jobs)',
);
export const EP_FOLLOWS_EXEC_INFO_VERSION = check(
  'EP-FOLLOWS-EXEC-INFO-VERSION',
  'SHOULD',
  'The plugin answers in the apiVersion KUBERNETES_EXEC_INFO asks for (v1 and v1beta1)',
  'KEP-541 Provider configuration: apiVersion is the "preferred input version of the ExecInfo"; the input arrives in KUBERNETES_EXEC_INFO',
);
export const EP_SETS_EXPIRY = check(
  'EP-SETS-EXPIRY',
  'SHOULD',
  'The plugin says when its credential expires',
  'KEP-541 Provider output format: without expirationTimestamp the client caches the credential for its whole runtime',
);
export const EP_NO_SECRETS_ON_STDERR = check(
  'EP-NO-SECRETS-ON-STDERR',
  'SHOULD',
  'The plugin does not print its token or key on stderr',
  'KEP-541 ExecCredentialStatus: "Token and ClientKeyData are sensitive fields. This data should only be transmitted in-memory between client and exec plugin process" (client-go copies stderr to the terminal and CI logs)',
);

export const EP_ALLOWLIST_FORM = check(
  'EP-ALLOWLIST-FORM',
  'SHOULD',
  "The plugin's kubeconfig form survives a kubectl credentialPluginAllowlist that names the plugin",
  "KEP-3104 (kuberc) credential plugin allowlist: entries are matched against exec.command, resolved with exec.LookPath (client-go exec.go v0.37.1:577-659); kubelogin's form `kubectl oidc-login get-token` is checked as kubectl (credprov finding 18)",
);

export const EXEC_PLUGIN_CHECKS: Check[] = [
  EP_EXEC,
  EP_APIVERSION,
  EP_KIND,
  EP_STATUS,
  EP_CREDENTIAL_SHAPE,
  EP_TOKEN_HEADER_VALUE,
  EP_CERT_VALID,
  EP_EXPIRY_FORMAT,
  EP_STDOUT_ONLY_JSON,
  EP_FAILURE_EXPLAINED,
  EP_NONINTERACTIVE_NO_BLOCK,
  EP_TIMEOUT,
  EP_NO_STDOUT_HOLDER,
  EP_NO_LEFTOVER_PROCESSES,
  EP_REPEAT,
  EP_CONCURRENCY,
  EP_FOLLOWS_EXEC_INFO_VERSION,
  EP_SETS_EXPIRY,
  EP_NO_SECRETS_ON_STDERR,
  EP_ALLOWLIST_FORM,
];
