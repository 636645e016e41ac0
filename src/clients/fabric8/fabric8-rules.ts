// Draft rows: how the fabric8 kubernetes-client 8.0.0 runs an exec plugin and
// what it makes of the answer. Read from fabric8io/kubernetes-client at
// ceb9218101 (2026-08-11; 8.0.0 is not tagged in the snapshot) and checked
// against the 8.0.0 jar's bytecode (javap: redirectErrorStream(true), "Wrong
// apiVersion {} vs. {}", ExecCredentialStatus has no expirationTimestamp,
// TokenRefreshInterceptor's 1-minute interval and 401 branch).
import type { FieldClientRules } from '../field-rules.ts';

const KCU = 'kubernetes-client-api/src/main/java/io/fabric8/kubernetes/client/internal/KubeConfigUtils.java';
const TRI = 'kubernetes-client-api/src/main/java/io/fabric8/kubernetes/client/utils/TokenRefreshInterceptor.java';
const CFG = 'kubernetes-client-api/src/main/java/io/fabric8/kubernetes/client/Config.java';
const PARSE = `${KCU}:335-376 getExecCredentialFromExecConfig`;

export const FABRIC8_RULES: FieldClientRules = {
  client: 'fabric8',
  version: '8.0.0',
  source: 'fabric8io/kubernetes-client ceb9218101 (master, 2026-08-11), checked against the 8.0.0 jar',
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
