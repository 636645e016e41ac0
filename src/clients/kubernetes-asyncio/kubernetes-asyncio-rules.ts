// Draft rows: how kubernetes_asyncio 36.1.0 (PyPI) runs an exec plugin and
// what it makes of the answer. Read from the wheel
// (kubernetes_asyncio/config/exec_provider.py, kube_config.py).
import type { FieldClientRules } from '../field-rules.ts';

const EXEC = 'kubernetes_asyncio/config/exec_provider.py';
const KC = 'kubernetes_asyncio/config/kube_config.py';

export const KUBERNETES_ASYNCIO_RULES: FieldClientRules = {
  client: 'kubernetes-asyncio',
  version: '36.1.0',
  source: 'PyPI kubernetes_asyncio 36.1.0 wheel',
  decoding: {
    'no-answer': {
      verdict: 'refuses',
      says: 'no answer within',
      note: 'it awaits EOF on stdout with no timeout',
      why: `${EXEC}:85-93`,
      scenario: { delayMs: 60_000 },
    },
    'exit-nonzero': {
      verdict: 'refuses',
      says: 'exec: process returned',
      why: `${EXEC}:95-100; ${KC}:390-392 (logged, then raised from load_kube_config)`,
      scenario: { exitCode: 3 },
    },
    'not-json': {
      verdict: 'refuses',
      says: 'exec: failed to decode process output',
      why: `${EXEC}:101-106`,
      scenario: { stdoutBefore: 'hello\n' },
    },
    yaml: {
      verdict: 'refuses',
      says: 'exec: failed to decode process output',
      why: `${EXEC}:102 json.loads`,
      scenario: { yaml: true },
    },
    'apiVersion-missing': {
      verdict: 'refuses',
      says: "missing key 'apiVersion'",
      why: `${EXEC}:107-109`,
      scenario: { omitApiVersion: true },
    },
    'apiVersion-other': {
      verdict: 'refuses',
      says: 'does not match',
      why: `${EXEC}:110-113`,
      scenario: { apiVersion: 'client.authentication.k8s.io/v1' },
    },
    'kind-missing': {
      verdict: 'refuses',
      says: "missing key 'kind'",
      why: `${EXEC}:107-109`,
      scenario: { omitKind: true },
    },
    'status-missing': {
      verdict: 'refuses',
      says: "missing key 'status'",
      why: `${EXEC}:107-109`,
      scenario: { omitStatus: true },
    },
    'no-credential': {
      verdict: 'sends-no-credential',
      says: 'exec: missing token or clientCertificateData field in plugin output',
      why: `${KC}:386-390 (logger.error, then return True)`,
      scenario: { omitCredential: true },
    },
    'timestamp-not-rfc3339': {
      verdict: 'refuses',
      says: 'Unable to parse datetime',
      why: `${KC}:360-363 parse_rfc3339`,
      scenario: { expirationTimestamp: 'tomorrow' },
    },
    expired: {
      verdict: 'accepts',
      note: 'the token is sent as long as the ApiClient lives; only a refresh_token() task the program starts looks at the expiry',
      why: `${KC}:348-364, 732-754`,
      scenario: { expiresInSeconds: -60 },
    },
    'token-and-cert': {
      verdict: 'accepts',
      note: 'the token wins: the certificate is only read when there is no token',
      why: `${KC}:358-366`,
      scenario: { credential: 'both' },
    },
    'token-not-string': {
      verdict: 'accepts',
      note: 'f"Bearer {token}" turns a number into text',
      why: `${KC}:359`,
      scenario: { tokenJson: 12345 },
    },
    'apiVersion-unknown': {
      verdict: 'refuses',
      says: 'does not match',
      why: `${EXEC}:110-113`,
      scenario: { apiVersion: 'client.authentication.k8s.io/v1alpha1' },
    },
    'token-leading-space': {
      verdict: 'sends-no-credential',
      note: 'it sends "Bearer  <token>"; the API server reads no token',
      why: `${KC}:359`,
      scenario: { token: ' credprov-fake-token' },
    },
    'token-empty-with-cert': {
      verdict: 'sends-no-credential',
      note: 'silently: \'token\' in status wins, so it sends "Bearer " and never loads the certificate',
      why: `${KC}:358-366`,
      scenario: { credential: 'both', token: '' },
    },
    'token-ends-in-line-break': {
      verdict: 'refuses',
      says: 'Forbidden control character detected in headers',
      why: "aiohttp's header check (a ValueError before sending)",
      scenario: { token: 'credprov-fake-token\n' },
    },
    'token-line-break': {
      verdict: 'refuses',
      says: 'Forbidden control character detected in headers',
      why: "aiohttp's header check",
      scenario: { token: 'credprov-fake\ntoken' },
    },
    'token-control-char': {
      verdict: 'refuses',
      says: 'Forbidden control character detected in headers',
      note: 'unlike the Python client, which sends it and gets a 400',
      why: "aiohttp's header check",
      scenario: { token: 'credprov-fake\u007ftoken' },
    },
    'token-over-1mib': {
      verdict: 'server-refuses',
      note: 'it sends it; kube-apiserver answers 431',
      why: 'no size limit in the client',
      scenario: { tokenBytes: 1024 * 1024 + 64 * 1024 },
    },
    'cert-without-key': {
      verdict: 'sends-no-credential',
      says: 'exec: missing clientKeyData field in plugin output',
      why: `${KC}:366-390 (logged, no credential)`,
      scenario: { credential: 'cert', cert: { omitKey: true } },
    },
    'key-without-cert': {
      verdict: 'sends-no-credential',
      says: 'exec: missing token or clientCertificateData field in plugin output',
      why: `${KC}:386-390`,
      scenario: { credential: 'cert', cert: { omitCert: true } },
    },
    'cert-key-mismatch': {
      verdict: 'refuses',
      says: 'key values mismatch',
      why: 'ssl.SSLContext.load_cert_chain while the client is built',
      scenario: { credential: 'cert', cert: { mismatchedKey: true } },
    },
    'stderr-output': {
      verdict: 'accepts',
      note: 'stderr is captured and dropped on success; it reads stdout to EOF before stderr, so a plugin that writes more than a pipe holds (64 KiB) to stderr before closing stdout deadlocks',
      why: `${EXEC}:85-92`,
      scenario: { stderr: 'a log line a plugin prints' },
    },
  },
  behaviour: {
    reExecOn401: 'no: a 401 is an ApiException for the program; the token stays',
    cache:
      "the plugin runs once, in load_kube_config; the token is then a fixed api_key for the Configuration's life. Only the program's own refresh_token(loader, configuration) task (every 60 s) runs it again, when the expiry is within 5 minutes",
    execInfo:
      'set: {"apiVersion": exec.apiVersion, "kind": "ExecCredential", "spec": {"interactive": sys.stdout.isatty()}}; no cluster info',
    interactive: 'interactiveMode is not read; stdin is inherited (stdin=None) whatever spec.interactive says',
    runsAtStart: 'once, in load_kube_config (the probe calls it on its first request)',
    why: `${EXEC}:38-114; ${KC}:57-60 (5-minute skew), 348-395, 732-754`,
  },
};
