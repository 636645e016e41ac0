// Draft rows: how kube-rs (kube 5.0.0, kube-client 5.0.0 from crates.io) runs
// an exec plugin and what it makes of the answer. Read from the crate source
// cargo fetched (kube-client-5.0.0/src/client/auth/mod.rs, config_ext.rs,
// builder.rs).
import { kinds, type FieldClientRules } from '../field-rules.ts';

const AUTH = 'kube-client-5.0.0/src/client/auth/mod.rs';
const EXT = 'kube-client-5.0.0/src/client/config_ext.rs';
const SAPHYR = 'serde-saphyr-2.2.0/src/de/deserializer.rs';

/**
 * serde_saphyr (YAML 1.2, JSON being YAML) into Option<String>: deserialize_option takes a plain null, ~ or
 * nothing as None (1478-1516); otherwise deserialize_string takes any scalar's text, a number or a boolean
 * included (1359-1401: 0 → "0"), and a mapping or a sequence fails with "expected string scalar" (take_string_scalar).
 */
const OPTION_STRING = kinds(
  { string: 'value', number: 'text', bool: 'text', null: 'absent', missing: 'absent' },
  'refused',
);
/** Into Option<struct>: deserialize_struct reads only a mapping (expect_map_start, 687-693: "expected mapping start"). */
const OPTION_STRUCT = kinds({ object: 'value', null: 'absent', missing: 'absent' }, 'refused');

export const KUBE_RS_RULES: FieldClientRules = {
  client: 'kube-rs',
  version: '5.0.0',
  source: 'crates.io kube-client 5.0.0',
  fieldKinds: {
    kinds: {
      apiVersion: OPTION_STRING,
      kind: OPTION_STRING,
      spec: OPTION_STRUCT,
      status: OPTION_STRUCT,
      'status.token': OPTION_STRING,
      'status.expirationTimestamp': OPTION_STRING,
      'status.clientCertificateData': OPTION_STRING,
      'status.clientKeyData': OPTION_STRING,
    },
    why: `${AUTH}:530-563 (ExecCredential, ExecCredentialStatus: every field an Option, no deserialize_with); ${SAPHYR}:1359-1516,2658-2667`,
  },
  decoding: {
    'no-answer': {
      verdict: 'refuses',
      says: 'no answer within',
      note: 'Command::output() with no timeout; at client build it blocks the caller, on refresh a blocking-pool thread',
      why: `${AUTH}:631 cmd.output()`,
      scenario: { delayMs: 60_000 },
    },
    'exit-nonzero': {
      verdict: 'refuses',
      says: 'failed with status',
      note: "the error quotes the whole command: KUBERNETES_EXEC_INFO, every arg (a --client-secret that kubelogin convert-kubeconfig wrote there) and the plugin's stdout and stderr",
      why: `${AUTH}:632-637 AuthExecRun { cmd: format!("{cmd:?}"), out }`,
      scenario: { exitCode: 3 },
    },
    'not-json': {
      verdict: 'refuses',
      says: 'failed to parse auth exec output',
      why: `${AUTH}:644-646 serde_saphyr::from_slice`,
      scenario: { stdoutBefore: 'hello\n' },
    },
    yaml: {
      verdict: 'accepts',
      note: 'YAML on purpose (client-go decodes YAML too)',
      why: `${AUTH}:641-646`,
      scenario: { yaml: true },
    },
    'apiVersion-missing': {
      verdict: 'accepts',
      note: 'apiVersion and kind are never checked',
      why: `${AUTH}:340-372`,
      scenario: { omitApiVersion: true },
    },
    'apiVersion-other': {
      verdict: 'accepts',
      note: 'apiVersion is never checked',
      why: `${AUTH}:340-372`,
      scenario: { apiVersion: 'client.authentication.k8s.io/v1' },
    },
    'kind-missing': { verdict: 'accepts', why: `${AUTH}:340-372`, scenario: { omitKind: true } },
    'kind-wrong': {
      verdict: 'accepts',
      note: 'kind is never checked',
      why: `${AUTH}:340-372`,
      scenario: { kind: 'Credential' },
    },
    'status-missing': {
      verdict: 'refuses',
      says: 'exec-plugin response did not contain a status',
      why: `${AUTH}:345 ok_or(Error::ExecPluginFailed)`,
      scenario: { omitStatus: true },
    },
    'no-credential': {
      verdict: 'sends-no-credential',
      note: 'silently: neither token nor certificate is Auth::None, no auth layer at all',
      why: `${AUTH}:362-370 (_ => Ok(Self::None)); ${EXT}:353-354`,
      scenario: { omitCredential: true },
    },
    'timestamp-not-rfc3339': {
      verdict: 'refuses',
      says: 'malformed token expiration date',
      why: `${AUTH}:346-350 MalformedTokenExpirationDate`,
      scenario: { expirationTimestamp: 'tomorrow' },
    },
    expired: {
      verdict: 'accepts',
      note: 'each request sees now + 60 s >= expiry and runs the plugin again first; it then sends whatever it got, expired or not',
      why: `${AUTH}:207-236 to_header`,
      scenario: { expiresInSeconds: -60 },
    },
    'token-and-cert': {
      verdict: 'accepts',
      note: 'the certificate wins: with both certificate and key present the token is dropped',
      why: `${AUTH}:350-360`,
      scenario: { credential: 'both' },
    },
    'apiVersion-unknown': {
      verdict: 'accepts',
      note: 'apiVersion is never checked, even one no client knows',
      why: `${AUTH}:340-372`,
      scenario: { apiVersion: 'client.authentication.k8s.io/v1alpha1' },
    },
    'token-not-string': {
      verdict: 'accepts',
      note: 'a number or a boolean is read as its text (0 → "Bearer 0"); an object or a list is field-wrong-type',
      why: `${AUTH}:641-646 serde_saphyr into Option<String> (fieldKinds)`,
      scenario: { tokenJson: 0 },
    },
    'field-wrong-type': {
      verdict: 'refuses',
      says: 'expected string scalar',
      note: 'an object or a list where a string is (any status field, apiVersion, kind), or a scalar where status or spec is, fails the whole decode ("failed to parse auth exec output")',
      why: `${AUTH}:641-646 serde_saphyr (fieldKinds)`,
      scenario: { tokenJson: { a: 1 } },
    },
    bom: {
      verdict: 'accepts',
      note: 'a byte-order mark starts a YAML stream',
      why: `${AUTH}:641-646 serde_saphyr::from_slice`,
      scenario: { bom: true },
    },
    'token-falsy': {
      verdict: 'sends-no-credential',
      note: 'silently: null is no token, so Auth::None (0 and false are tokens: their text)',
      why: `${AUTH}:362-370`,
      scenario: { tokenJson: null },
    },
    'token-leading-space': {
      verdict: 'sends-no-credential',
      note: 'it sends "Bearer  <token>"; the API server reads no token',
      why: `${AUTH}:362-370 (the token as it is)`,
      scenario: { token: ' credprov-fake-token' },
    },
    'token-ends-in-line-break': {
      verdict: 'refuses',
      says: 'failed to parse header value',
      why: 'http::HeaderValue::from_str (bytes below 0x20 but tab, and DEL, are invalid) in the bearer auth layer',
      scenario: { token: 'credprov-fake-token\n' },
    },
    'token-line-break': {
      verdict: 'refuses',
      says: 'failed to parse header value',
      why: 'http::HeaderValue::from_str in the bearer auth layer',
      scenario: { token: 'credprov-fake\ntoken' },
    },
    'token-control-char': {
      verdict: 'refuses',
      says: 'failed to parse',
      note: 'DEL is refused earlier, by the YAML parser of the answer ("unexpected character"); NUL and SOH by the header',
      why: `${AUTH}:641-646 serde_saphyr; http::HeaderValue::from_str`,
      scenario: { token: 'credprov-fake\u007ftoken' },
    },
    'token-not-latin1': {
      verdict: 'accepts',
      note: 'sends the UTF-8 bytes as they are, as Go does: HeaderValue::from_str takes bytes from 0x80 up (obs-text)',
      why: 'http::HeaderValue::from_str in the bearer auth layer',
      scenario: { token: 'credprov-fake-\u20ac-token' },
    },
    'token-non-ascii': {
      verdict: 'accepts',
      note: 'sends é as its two UTF-8 bytes',
      why: 'http::HeaderValue::from_str in the bearer auth layer',
      scenario: { token: 'credprov-fake-\u00e9-token' },
    },
    'token-over-16kib': {
      verdict: 'accepts',
      why: 'no size limit in the client',
      scenario: { tokenBytes: 64 * 1024 },
    },
    'token-over-1mib': {
      verdict: 'server-refuses',
      note: 'it sends it; kube-apiserver answers 431',
      why: 'no size limit in the client',
      scenario: { tokenBytes: 1024 * 1024 + 64 * 1024 },
    },
    'cert-only': {
      verdict: 'accepts',
      note: 'the certificate is built into TLS once, when the client is built',
      why: `${AUTH}:350-360; ${EXT}:352-365`,
      scenario: { credential: 'cert' },
    },
    'cert-without-key': {
      verdict: 'sends-no-credential',
      note: 'silently: only a certificate and key together are a certificate; alone, with no token, Auth::None',
      why: `${AUTH}:350-370`,
      scenario: { credential: 'cert', cert: { omitKey: true } },
    },
    'key-without-cert': {
      verdict: 'sends-no-credential',
      note: 'silently, as cert-without-key',
      why: `${AUTH}:350-370`,
      scenario: { credential: 'cert', cert: { omitCert: true } },
    },
    'cert-key-mismatch': {
      verdict: 'refuses',
      says: 'key values mismatch',
      note: "OpenSSL checks the pair while the client is built (with rustls the check is rustls's)",
      why: 'config_ext.rs:472-483 openssl_ssl_connector_builder (X509_check_private_key)',
      scenario: { credential: 'cert', cert: { mismatchedKey: true } },
    },
    'stderr-output': {
      verdict: 'accepts',
      note: 'stderr is captured (non-interactive) or passed through (interactive), never parsed',
      why: `${AUTH}:584-590`,
      scenario: { stderr: 'a log line a plugin prints' },
    },
  },
  behaviour: {
    reExecOn401: 'no: nothing in the client looks at a 401; the request fails and the cached token stays',
    cache:
      "a token with an expiry is kept until 60 s before it (RefreshableToken::Exec; the refresh runs the plugin on the blocking pool); a token without expirationTimestamp is a static Bearer for the client's life; a certificate is built into TLS once (Client::valid_until tells the program to build a new client)",
    execInfo:
      'set: {"apiVersion": exec.apiVersion, "kind": "ExecCredential", "spec": {"interactive": …, "cluster": … with provideClusterInfo}}; exec.drop_env (a kube-rs extension) removes variables',
    interactive:
      "interactive = interactiveMode != Never: IfAvailable (the v1beta1 default) and Always give the plugin the caller's stdin and stderr and spec.interactive: true even when stdin is not a terminal; Never gives a closed pipe",
    runsAtStart:
      "three times while Client::try_from builds the client: rustls_client_config (exec_identity_pem), auth_layer and the builder's exec_identity_pem each call Auth::try_from, which runs the plugin",
    why: `${AUTH}:207-236, 340-372, 565-640; ${EXT}:352-365, 416, 549-560; builder.rs:411`,
  },
};
