// Draft rows: how the fabric8 kubernetes-client 8.0.0 runs an exec plugin and
// what it makes of the answer. Read from fabric8io/kubernetes-client at
// ceb9218101 (2026-08-11; 8.0.0 is not tagged in the snapshot) and checked
// against the 8.0.0 jar's bytecode (javap: redirectErrorStream(true), "Wrong
// apiVersion {} vs. {}", ExecCredentialStatus has no expirationTimestamp,
// TokenRefreshInterceptor's 1-minute interval and 401 branch).
import { KUBE_APISERVER_MAX_HEADER_BYTES } from '../scripted-endpoint.ts';
import { kinds, type FieldClientRules } from '../field-rules.ts';

const KCU = 'kubernetes-client-api/src/main/java/io/fabric8/kubernetes/client/internal/KubeConfigUtils.java';
const TRI = 'kubernetes-client-api/src/main/java/io/fabric8/kubernetes/client/utils/TokenRefreshInterceptor.java';
const CFG = 'kubernetes-client-api/src/main/java/io/fabric8/kubernetes/client/Config.java';
const PARSE = `${KCU}:335-376 getExecCredentialFromExecConfig`;
const SER = 'kubernetes-client-api/src/main/java/io/fabric8/kubernetes/client/utils/KubernetesSerialization.java';
const TOKEN = `${KCU}:321-323 (ec.status.token != null wins) and ${TRI}:66-75 ("Bearer " + token, only when not empty)`;
/**
 * How the header goes out: the vert.x 5 client (kubernetes-httpclient-vertx-5, vert.x 5.2.0) adds it to an
 * Http1xHeaders, whose HttpUtils.validateHeaderValue refuses DEL and control characters but HTAB, a CR not followed
 * by LF, a LF not followed by SP/HTAB and a value ending in CR or LF (Netty's rule: obs-fold passes); it then writes
 * the value as US-ASCII through Netty's AsciiString.c2b, a character above U+00FF becoming '?'. Nothing is trimmed.
 * Read in eclipse-vertx/vert.x d9e1080b4b (5.2.0-SNAPSHOT; Maven Central serves no sources jar for vert.x 5.2.0 or
 * fabric8 8.0.0), and each verdict checked on the 8.0.0 probe (field-probes.test.ts, the token-* rows).
 */
const VERTX_HEADER =
  'vert.x 5.2.0 vertx-core http/impl/HttpUtils.java:614-790 validateHeaderValue; http/impl/headers/Http1xHeaders.java:846-869 writeAscii (US-ASCII: c > 0xFF → ?)';

/** Jackson into a String field: a number or a boolean is coerced to its text; an object or an array fails. */
const JACKSON_STRING = kinds(
  { string: 'value', number: 'text', bool: 'text', null: 'absent', missing: 'absent' },
  'refused',
);
/** Into a class (@JsonIgnoreProperties(ignoreUnknown)): only an object; a scalar or an array fails. */
const JACKSON_CLASS = kinds({ object: 'value', null: 'absent', missing: 'absent' }, 'refused');

export const FABRIC8_RULES: FieldClientRules = {
  client: 'fabric8',
  version: '8.0.0',
  source: 'fabric8io/kubernetes-client ceb9218101 (master, 2026-08-11), checked against the 8.0.0 jar',
  fieldKinds: {
    kinds: {
      apiVersion: JACKSON_STRING,
      kind: JACKSON_STRING,
      spec: JACKSON_CLASS,
      status: JACKSON_CLASS,
      'status.token': JACKSON_STRING,
      'status.expirationTimestamp': kinds({}, 'ignored'),
      'status.clientCertificateData': JACKSON_STRING,
      'status.clientKeyData': JACKSON_STRING,
    },
    why: `${CFG}:739-757 (ExecCredential, ExecCredentialStatus: String fields, no expirationTimestamp); ${SER}:260-279 (Jackson for '{' or '[', else SnakeYAML then convertValue)`,
  },
  decoding: {
    'no-answer': {
      verdict: 'refuses',
      says: 'no answer within',
      note: 'it reads the output to EOF with no timeout: the request never starts',
      why: `${KCU}:349-352 IOHelpers.readFully(p.getInputStream())`,
      scenario: { delayMs: 60_000 },
    },
    'exit-nonzero': {
      verdict: 'sends-no-credential',
      says: 'Wrong apiVersion null vs.',
      note: "the exit code only logs the output as a warning, then the output is parsed anyway: the plugin's error line (stderr, merged) reads as a YAML scalar without apiVersion; an answer printed before a non-zero exit would be used",
      why: `${KCU}:353-355 (logger.warn(output)), then ${KCU}:363-366`,
      scenario: { exitCode: 3 },
    },
    'stderr-output': {
      verdict: 'sends-no-credential',
      says: 'Error unmarshalling ExecCredential',
      note: "stderr is merged into stdout (redirectErrorStream), so any plugin log line breaks the answer: klog -v, oci-cli's key-label warning",
      why: `${KCU}:342 pb.redirectErrorStream(true)`,
      scenario: { stderr: 'a log line a plugin prints' },
    },
    'not-json': {
      verdict: 'sends-no-credential',
      says: 'Error unmarshalling ExecCredential',
      why: `${PARSE}: Serialization.unmarshal; the exception is logged, null returned`,
      scenario: { stdoutBefore: 'hello\n' },
    },
    yaml: {
      verdict: 'accepts',
      note: 'Serialization.unmarshal reads YAML as well as JSON',
      why: `${PARSE}: Serialization.unmarshal`,
      scenario: { yaml: true },
    },
    'apiVersion-missing': {
      verdict: 'sends-no-credential',
      says: 'Wrong apiVersion null vs.',
      why: `${KCU}:365-366 !Objects.equals(apiVersion, ec.apiVersion)`,
      scenario: { omitApiVersion: true },
    },
    'apiVersion-other': {
      verdict: 'sends-no-credential',
      says: 'Wrong apiVersion',
      why: `${KCU}:365-366`,
      scenario: { apiVersion: 'client.authentication.k8s.io/v1' },
    },
    'apiVersion-unknown': {
      verdict: 'sends-no-credential',
      says: 'Wrong apiVersion',
      why: `${KCU}:365-366`,
      scenario: { apiVersion: 'client.authentication.k8s.io/v1alpha1' },
    },
    'exec-info-default-under-v1': {
      verdict: 'sends-no-credential',
      says: 'Wrong apiVersion client.authentication.k8s.io/v1beta1 vs. client.authentication.k8s.io/v1',
      note: 'it never sets KUBERNETES_EXEC_INFO, so a plugin that follows it answers its default, v1beta1 (Azure kubelogin, awscli, int128 kubelogin do): under an apiVersion v1 kubeconfig fabric8 then refuses every answer of a well-behaved plugin',
      why: `${KCU}:335-376 (no KUBERNETES_EXEC_INFO in the environment; the apiVersion must equal the kubeconfig's)`,
      scenario: {},
      execApiVersion: 'client.authentication.k8s.io/v1',
    },
    'kind-missing': {
      verdict: 'accepts',
      note: 'kind is never read',
      why: `${CFG}:740-745 ExecCredential`,
      scenario: { omitKind: true },
    },
    'status-missing': {
      verdict: 'sends-no-credential',
      note: 'silently: ec.status == null sets nothing and logs nothing',
      why: `${KCU}:321 if (ec != null && ec.status != null)`,
      scenario: { omitStatus: true },
    },
    'no-credential': {
      verdict: 'sends-no-credential',
      says: 'No token or certificate returned',
      why: `${KCU}:322-330`,
      scenario: { omitCredential: true },
    },
    'timestamp-not-rfc3339': {
      verdict: 'accepts',
      note: 'expirationTimestamp is not read at all (@JsonIgnoreProperties(ignoreUnknown), "TODO expirationTimestamp")',
      why: `${CFG}:752-757 ExecCredentialStatus`,
      scenario: { expirationTimestamp: 'tomorrow' },
    },
    expired: {
      verdict: 'accepts',
      note: 'the expiry is never read; an expired token is sent until a 401 or the 1-minute refresh',
      why: `${CFG}:756; ${TRI}:44,76`,
      scenario: { expiresInSeconds: -60 },
    },
    'token-and-cert': {
      verdict: 'accepts',
      note: 'the token wins: the certificate is ignored when status.token is set',
      why: `${KCU}:322-327`,
      scenario: { credential: 'both' },
    },
    bom: {
      verdict: 'accepts',
      note: 'the first byte is not { or [, so it is read as YAML, which skips the mark',
      why: `${SER}:260-279`,
      scenario: { bom: true },
    },
    'field-wrong-type': {
      verdict: 'sends-no-credential',
      says: 'Error unmarshalling ExecCredential',
      note: 'Jackson cannot put an object or an array into a String field (token, apiVersion, kind, the certificate or key), nor a scalar into status or spec; expirationTimestamp is not a field, so any value passes',
      why: `${PARSE} (fieldKinds)`,
      scenario: { tokenJson: { a: 1 } },
    },
    'token-not-string': {
      verdict: 'accepts',
      note: 'Jackson coerces a number or a boolean to its text: 0 is the token "0"',
      why: `${PARSE} (fieldKinds)`,
      scenario: { tokenJson: 0 },
    },
    'token-falsy': {
      verdict: 'sends-no-credential',
      says: 'No token or certificate returned',
      note: 'null is no token (0 and false are tokens: their text)',
      why: `${KCU}:321-330`,
      scenario: { tokenJson: null },
    },
    'token-empty-with-cert': {
      verdict: 'sends-no-credential',
      note: 'silently: a token that is there, even "", wins over the certificate, and an empty token sends no Authorization header',
      why: TOKEN,
      scenario: { credential: 'both', token: '' },
    },
    'token-leading-space': {
      verdict: 'sends-no-credential',
      note: 'it sends "Bearer  <token>" untrimmed, which the API server reads as no token',
      why: TOKEN,
      scenario: { token: ' credprov-fake-token' },
    },
    'token-ends-in-line-break': {
      verdict: 'refuses',
      says: "a header value must not end with '\\r' or '\\n'",
      note: 'vert.x refuses the header before anything is sent (its error quotes the whole value, token included)',
      why: VERTX_HEADER,
      scenario: { token: 'credprov-fake-token\n' },
    },
    'token-line-break': {
      verdict: 'refuses',
      says: "only ' ' and '\\t' are allowed after '\\n'",
      note: 'a line break followed by a space or a tab (obs-fold) would pass',
      why: VERTX_HEADER,
      scenario: { token: 'credprov-fake\ntoken' },
    },
    'token-control-char': {
      verdict: 'refuses',
      says: 'a header value contains a prohibited character',
      why: VERTX_HEADER,
      scenario: { token: 'credprov-fake\u007ftoken' },
    },
    'token-not-latin1': {
      verdict: 'accepts',
      note: "it sends each character above U+00FF as '?': the API server gets another token than the plugin's",
      why: VERTX_HEADER,
      scenario: { token: 'credprov-fake-\u20ac-token' },
    },
    'token-non-ascii': {
      verdict: 'accepts',
      note: 'sends é as one Latin-1 byte (0xE9), as client-node and Python do, not the UTF-8 Go sends',
      why: VERTX_HEADER,
      scenario: { token: 'credprov-fake-\u00e9-token' },
    },
    'token-over-16kib': {
      verdict: 'accepts',
      why: 'no header size limit in the client',
      scenario: { tokenBytes: 64 * 1024 },
    },
    'token-over-1mib': {
      verdict: 'server-refuses',
      note: 'it sends it; kube-apiserver answers 431',
      why: 'no header size limit in the client',
      scenario: { tokenBytes: KUBE_APISERVER_MAX_HEADER_BYTES + 64 * 1024 },
    },
    'kind-wrong': {
      verdict: 'accepts',
      note: 'kind is never read',
      why: `${CFG}:740-745 ExecCredential`,
      scenario: { kind: 'Credential' },
    },
    'cert-without-key': {
      verdict: 'sends-no-credential',
      says: 'No token or certificate returned',
      why: `${KCU}:324-330 (both must be non-empty)`,
      scenario: { credential: 'cert', cert: { omitKey: true } },
    },
    'key-without-cert': {
      verdict: 'sends-no-credential',
      says: 'No token or certificate returned',
      why: `${KCU}:324-330`,
      scenario: { credential: 'cert', cert: { omitCert: true } },
    },
    'reads-stdin': {
      verdict: 'refuses',
      says: 'no answer within',
      note: "the plugin's stdin is a pipe the JVM never writes or closes: a plugin that reads it (a prompt) waits for ever",
      why: `${KCU}:341-349 ProcessBuilder without redirectInput`,
      scenario: { readsStdinAlways: true },
    },
  },
  behaviour: {
    reExecOn401:
      'yes, and it retries the request: afterFailure on a 401 re-reads the kubeconfig (Config.refresh → autoConfigure → the plugin runs again) and, when that gives a non-empty token, sends the request once more with it (even the same token)',
    cache:
      'the credential lives in the Config; before a request, once a minute has passed since the last refresh, it refreshes (the plugin runs again) whatever the expiry: one run per minute of activity, and an expired token is used for up to a minute (fabric8io/kubernetes-client#3998 was the run-once form of this)',
    execInfo: "never set: the plugin gets the JVM's environment plus exec.env only",
    interactive:
      'interactiveMode is not read; the plugin runs through `sh -c "<command> <args>"` (args quoted only when they hold a space or a quote, so $ and backticks are expanded by the shell) with a stdin pipe never written',
    runsAtStart: 'once, while Config.autoConfigure reads the kubeconfig (before any request)',
    why: `${TRI}:44,70-78,104-130; StandardHttpClient.java:118-135 (the retry); ${KCU}:378-405 (sh -c and shellQuote)`,
  },
};
