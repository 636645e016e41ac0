// Where the real clients of exec plugins differ, as data. Every row was found
// by running each client (kubectl v1.37.1, client-go v0.37.1,
// @kubernetes/client-node 2.0.1, kubernetes 37.0.2 for Python) against
// credprov's scripted endpoint with the fake plugin scripted to answer that
// way, and is re-checked the same way by decoding.test.ts on every test run;
// `why` points at the client code that explains each outcome.
//
// Two tables:
//   - DECODING: what each client makes of an answer (a trait of the plugin's
//     output). certify exec-plugin --clients predicts each client's verdict
//     from it (predictClient), before running the client. The rows about the
//     token (its type, its characters by each client's header rule, its size)
//     are in decoding-tokens.ts.
//   - INVOCATION: how each client runs the plugin (KUBERNETES_EXEC_INFO,
//     stdin, interactiveMode, provideClusterInfo). Facts for users; the client
//     matrix uses the exec-info row to choose which run predicts client-node.
// Caching, expiry and 401 re-exec per client are not here: that is the
// exec-plugin-401 suite's model.
import type { ClientName, ExecClientName } from './probe.ts';
import {
  CLIENT_GO_WHY,
  goClients,
  NODE_EXEC,
  PY_EXEC,
  PY_LOAD,
  type AnswerTrait,
  type ClientOutcome,
  type DecodingRow,
  type Verdict,
} from './decoding-model.ts';
import { TOKEN_ROWS } from './decoding-tokens.ts';
import { FIELD_CHECK_ORDER, withFieldRows } from './field-decoding.ts';
import type { Finding } from './findings.ts';

export type { AnswerTrait, ClientOutcome, DecodingRow, Verdict } from './decoding-model.ts';
export { answerFindings, answerTraits, clientFindings, type AnsweredRun, type Finding } from './findings.ts';

export const DECODING: readonly DecodingRow[] = withFieldRows([
  {
    trait: 'no-answer',
    answer: 'the plugin never answers (it hangs, or leaves a process holding its stdout)',
    contractCheck: 'EP-TIMEOUT, EP-NO-STDOUT-HOLDER',
    reproduce: { scenario: { delayMs: 60_000 }, timeoutMs: 2_000 },
    clients: {
      ...goClients({
        verdict: 'refuses',
        says: 'no answer within',
        note: "client-go has no timeout: it waits for ever (credprov's probe gave up)",
      }),
      'client-node': { verdict: 'refuses', says: 'no answer within', note: 'it has no timeout either' },
      python: { verdict: 'refuses', says: 'no answer within', note: 'subprocess communicate() has no timeout either' },
    },
    why: {
      'client-go': `${CLIENT_GO_WHY}: cmd.Run with no context or deadline`,
      'client-node': `${NODE_EXEC}: waits for 'close'`,
      python: `${PY_EXEC}: process.communicate()`,
    },
  },
  {
    trait: 'exit-nonzero',
    answer: 'the plugin exits non-zero (here 3, with a reason on stderr)',
    contractCheck: 'EP-FAILURE-EXPLAINED',
    reproduce: { scenario: { exitCode: 3 } },
    clients: {
      ...goClients({
        verdict: 'refuses',
        says: 'failed with exit code',
        note: "the plugin's stderr goes to the user's terminal, not into the error",
      }),
      'client-node': {
        verdict: 'refuses',
        note: "the error is the plugin's stderr alone, with no exit code (an empty error when the plugin says nothing)",
      },
      python: {
        verdict: 'sends-no-credential',
        says: 'exec: process returned',
        note: "the error carries the plugin's stderr",
      },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': CLIENT_GO_WHY,
      'client-node': `${NODE_EXEC}: reject(new Error(stderrData))`,
      python: `${PY_EXEC}: 'exec: process returned %d. %s'; ${PY_LOAD}`,
    },
  },
  {
    trait: 'not-json',
    answer: 'stdout holds more than one JSON object (a log line before or after it)',
    contractCheck: 'EP-STDOUT-ONLY-JSON',
    reproduce: { scenario: { stdoutBefore: 'Fetching token for cluster prod...\n' } },
    clients: {
      ...goClients({ verdict: 'refuses', says: "decoding stdout: couldn't get version/kind; json parse error" }),
      'client-node': { verdict: 'refuses', says: 'is not valid JSON' },
      python: { verdict: 'sends-no-credential', says: 'exec: failed to decode process output' },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': CLIENT_GO_WHY,
      'client-node': `${NODE_EXEC}: JSON.parse(stdoutData)`,
      python: `${PY_EXEC}: json.loads(stdout)`,
    },
  },
  {
    trait: 'bom',
    answer: 'stdout starts with a UTF-8 byte-order mark (as some Windows tools write)',
    contractCheck: 'EP-STDOUT-ONLY-JSON',
    reproduce: { scenario: { bom: true } },
    clients: {
      ...goClients({
        verdict: 'accepts',
        note: 'not JSON to its recognizer, so it decodes the answer as YAML, which skips the mark',
      }),
      'client-node': { verdict: 'refuses', says: 'is not valid JSON' },
      python: { verdict: 'sends-no-credential', says: 'exec: failed to decode process output: Unexpected UTF-8 BOM' },
    },
    why: {
      'client-go': `${CLIENT_GO_WHY}: the universal deserializer (JSON only when the data starts with '{')`,
      'client-node': `${NODE_EXEC}: JSON.parse(stdoutData)`,
      python: `${PY_EXEC}: json.loads(stdout)`,
    },
  },
  {
    trait: 'yaml',
    answer: 'the ExecCredential is printed as YAML',
    contractCheck: 'EP-STDOUT-ONLY-JSON',
    reproduce: { scenario: { yaml: true } },
    clients: {
      ...goClients({ verdict: 'accepts', note: "client-go's universal decoder reads YAML as well as JSON" }),
      'client-node': { verdict: 'refuses', says: 'is not valid JSON' },
      python: { verdict: 'sends-no-credential', says: 'exec: failed to decode process output' },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': `${CLIENT_GO_WHY}: runtime.Decode with the universal deserializer (YAML or JSON)`,
      'client-node': `${NODE_EXEC}: JSON.parse`,
      python: `${PY_EXEC}: json.loads`,
    },
  },
  {
    trait: 'apiVersion-missing',
    answer: 'the ExecCredential has no apiVersion',
    contractCheck: 'EP-APIVERSION',
    reproduce: { scenario: { omitApiVersion: true } },
    clients: {
      ...goClients({ verdict: 'refuses', says: 'plugin returned version client.authentication.k8s.io/__internal' }),
      'client-node': { verdict: 'accepts', note: 'it never looks at apiVersion or kind' },
      python: { verdict: 'sends-no-credential', says: "exec: malformed response. missing key 'apiVersion'" },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': CLIENT_GO_WHY,
      'client-node': NODE_EXEC,
      python: `${PY_EXEC}: for key in ('apiVersion', 'kind', 'status')`,
    },
  },
  {
    trait: 'apiVersion-unknown',
    answer: 'the ExecCredential says apiVersion client.authentication.k8s.io/v1alpha1 (removed in 1.24)',
    contractCheck: 'EP-APIVERSION',
    reproduce: { scenario: { apiVersion: 'client.authentication.k8s.io/v1alpha1' } },
    clients: {
      ...goClients({
        verdict: 'refuses',
        says: 'decoding stdout: no kind "ExecCredential" is registered for version',
      }),
      'client-node': { verdict: 'accepts', note: 'it never looks at apiVersion' },
      python: {
        verdict: 'sends-no-credential',
        says: 'exec: plugin api version',
      },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': CLIENT_GO_WHY,
      'client-node': NODE_EXEC,
      python: `${PY_EXEC}: data['apiVersion'] != self.api_version`,
    },
  },
  {
    trait: 'apiVersion-other',
    answer: 'the ExecCredential answers in v1beta1 when the kubeconfig says v1',
    contractCheck: 'EP-APIVERSION',
    reproduce: { scenario: { apiVersion: 'client.authentication.k8s.io/v1beta1' } },
    clients: {
      ...goClients({
        verdict: 'refuses',
        says: 'exec plugin is configured to use API version',
      }),
      'client-node': { verdict: 'accepts', note: 'it never looks at apiVersion' },
      python: {
        verdict: 'sends-no-credential',
        says: 'exec: plugin api version',
      },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': CLIENT_GO_WHY,
      'client-node': NODE_EXEC,
      python: `${PY_EXEC}: data['apiVersion'] != self.api_version`,
    },
  },
  {
    trait: 'kind-missing',
    answer: 'the ExecCredential has no kind',
    reproduce: { scenario: { omitKind: true } },
    clients: {
      ...goClients({ verdict: 'accepts', note: 'the decoder fills in the kind of the object it decodes into' }),
      'client-node': { verdict: 'accepts', note: 'it never looks at kind' },
      python: { verdict: 'sends-no-credential', says: "exec: malformed response. missing key 'kind'" },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': CLIENT_GO_WHY,
      'client-node': NODE_EXEC,
      python: `${PY_EXEC}: for key in ('apiVersion', 'kind', 'status')`,
    },
  },
  {
    trait: 'kind-wrong',
    answer: 'the ExecCredential says kind "Credential"',
    contractCheck: 'EP-KIND',
    reproduce: { scenario: { kind: 'Credential' } },
    clients: {
      ...goClients({ verdict: 'refuses', says: 'decoding stdout: no kind' }),
      'client-node': { verdict: 'accepts', note: 'it never looks at kind' },
      python: { verdict: 'accepts', note: 'it checks that kind is present, not its value' },
    },
    why: { kubectl: CLIENT_GO_WHY, 'client-go': CLIENT_GO_WHY, 'client-node': NODE_EXEC, python: PY_EXEC },
  },
  {
    trait: 'field-wrong-type',
    answer:
      'a field of the ExecCredential has a JSON type the Go struct does not have (here status.expirationTimestamp is an object)',
    contractCheck: 'EP-EXPIRY-FORMAT',
    reproduce: { scenario: { statusMerge: { expirationTimestamp: {} } } },
    clients: {
      ...goClients({ verdict: 'refuses', says: 'decoding stdout' }),
      'client-node': { verdict: 'accepts', note: 'it reads no field types (expirationTimestamp only for its cache)' },
      python: {
        verdict: 'accepts',
        note: 'it sets the token first, then fails to parse expirationTimestamp and logs it: the token goes out',
      },
    },
    why: {
      'client-go': `${CLIENT_GO_WHY}: the universal decoder into the typed ExecCredential (found by src/differential/exec.test.ts)`,
      'client-node': NODE_EXEC,
      python: `${PY_LOAD}: self.token is set before parse_rfc3339(status['expirationTimestamp'])`,
    },
  },
  {
    trait: 'answer-falsy',
    answer: 'the answer is JSON null (or false, 0, "")',
    reproduce: { scenario: { answerJson: null } },
    clients: {
      ...goClients({ verdict: 'refuses', says: 'plugin returned version client.authentication.k8s.io/__internal' }),
      'client-node': { verdict: 'sends-no-credential', note: 'silently: `if (!credential) return`' },
      python: { verdict: 'sends-no-credential', says: "argument of type 'NoneType' is not iterable" },
    },
    why: {
      'client-go': `${CLIENT_GO_WHY}: YAML null decodes to an empty object`,
      'client-node': `${NODE_EXEC}: applyAuthentication returns on a falsy credential (found by src/differential/exec.test.ts)`,
      python: PY_EXEC,
    },
  },
  {
    trait: 'status-missing',
    answer: 'the ExecCredential has no status',
    contractCheck: 'EP-STATUS',
    reproduce: { scenario: { omitStatus: true } },
    clients: {
      ...goClients({ verdict: 'refuses', says: "exec plugin didn't return a status field" }),
      'client-node': {
        verdict: 'refuses',
        says: "TypeError: Cannot read properties of undefined (reading 'clientCertificateData')",
        note: 'the answer is cached all the same, so every later request fails too (reading expirationTimestamp)',
      },
      python: { verdict: 'sends-no-credential', says: "exec: malformed response. missing key 'status'" },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': CLIENT_GO_WHY,
      'client-node': `${NODE_EXEC}: credential.status.clientCertificateData on an answer it cached before looking`,
      python: PY_EXEC,
    },
  },
  {
    trait: 'status-not-object',
    answer: 'status is not an object but a string, a number or a list (here "x")',
    contractCheck: 'EP-STATUS',
    reproduce: { scenario: { answerMerge: { status: 'x' } } },
    clients: {
      ...goClients({ verdict: 'refuses', says: 'decoding stdout' }),
      'client-node': {
        verdict: 'sends-no-credential',
        note: 'silently: "x".token is undefined, so there is nothing to send',
      },
      python: {
        verdict: 'sends-no-credential',
        says: 'exec: missing token or clientCertificateData field in plugin output',
      },
    },
    why: {
      'client-go': `${CLIENT_GO_WHY}: status decodes into *ExecCredentialStatus`,
      'client-node': `${NODE_EXEC}: property reads on a non-object status (found by src/differential/exec.test.ts)`,
      python: PY_LOAD,
    },
  },
  {
    trait: 'cert-or-key-not-string',
    answer: 'clientCertificateData or clientKeyData is not a string (here clientCertificateData is 1.5)',
    contractCheck: 'EP-CREDENTIAL-SHAPE',
    reproduce: { scenario: { credential: 'cert', statusMerge: { clientCertificateData: 1.5 } } },
    clients: {
      ...goClients({ verdict: 'refuses', says: 'decoding stdout' }),
      'client-node': { verdict: 'refuses', says: 'must be of type string' },
      python: {
        verdict: 'sends-no-credential',
        note: 'writing the certificate to a file for urllib3 fails, and the error is logged',
      },
    },
    why: {
      'client-go': `${CLIENT_GO_WHY}: clientCertificateData decodes into a string`,
      'client-node': `undici TLS options: cert and key must be strings or buffers (found by src/differential/exec.test.ts)`,
      python: PY_LOAD,
    },
  },
  {
    trait: 'timestamp-not-rfc3339',
    answer: 'expirationTimestamp is "2030-01-02 15:04:05" (a space, no zone: not RFC 3339)',
    contractCheck: 'EP-EXPIRY-FORMAT',
    reproduce: { scenario: { expirationTimestamp: '2030-01-02 15:04:05' } },
    clients: {
      ...goClients({ verdict: 'refuses', says: 'decoding stdout: parsing time' }),
      'client-node': { verdict: 'accepts', note: 'Date.parse reads it (as local time)' },
      python: { verdict: 'accepts', note: 'its parse_rfc3339 accepts a space for the T and no zone (as UTC)' },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': `${CLIENT_GO_WHY}: metav1.Time JSON decoding (RFC 3339)`,
      'client-node': `${NODE_EXEC}: Date.parse(expirationTimestamp)`,
      python: 'kubernetes/config/dateutil.py parse_rfc3339',
    },
  },
  {
    trait: 'no-credential',
    answer: 'status holds neither a token nor a certificate',
    contractCheck: 'EP-CREDENTIAL-SHAPE',
    reproduce: { scenario: { omitCredential: true } },
    clients: {
      ...goClients({ verdict: 'refuses', says: "exec plugin didn't return a token or cert/key pair" }),
      'client-node': { verdict: 'sends-no-credential', note: 'silently: no error at all' },
      python: {
        verdict: 'sends-no-credential',
        says: 'exec: missing token or clientCertificateData field in plugin output',
      },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': CLIENT_GO_WHY,
      'client-node': `${NODE_EXEC}: applies whatever status holds`,
      python: PY_LOAD,
    },
  },
  {
    trait: 'cert-without-key',
    answer: 'status holds clientCertificateData without clientKeyData',
    contractCheck: 'EP-CREDENTIAL-SHAPE',
    reproduce: { scenario: { credential: 'cert', cert: { omitKey: true } } },
    clients: {
      ...goClients({ verdict: 'refuses', says: 'exec plugin returned only certificate or key, not both' }),
      'client-node': { verdict: 'sends-no-credential', note: 'silently: TLS goes on without a client certificate' },
      python: { verdict: 'sends-no-credential', says: 'exec: missing clientKeyData field in plugin output' },
    },
    why: { kubectl: CLIENT_GO_WHY, 'client-go': CLIENT_GO_WHY, 'client-node': NODE_EXEC, python: PY_LOAD },
  },
  {
    trait: 'key-without-cert',
    answer: 'status holds clientKeyData without clientCertificateData',
    contractCheck: 'EP-CREDENTIAL-SHAPE',
    reproduce: { scenario: { credential: 'cert', cert: { omitCert: true } } },
    clients: {
      ...goClients({ verdict: 'refuses', says: 'exec plugin returned only certificate or key, not both' }),
      'client-node': { verdict: 'sends-no-credential', note: 'silently: TLS goes on without a client certificate' },
      python: {
        verdict: 'sends-no-credential',
        says: 'exec: missing token or clientCertificateData field in plugin output',
      },
    },
    why: { kubectl: CLIENT_GO_WHY, 'client-go': CLIENT_GO_WHY, 'client-node': NODE_EXEC, python: PY_LOAD },
  },
  {
    trait: 'cert-key-mismatch',
    answer: 'the client certificate comes with the key of another one',
    contractCheck: 'EP-CERT-VALID',
    reproduce: { scenario: { credential: 'cert', cert: { mismatchedKey: true } } },
    clients: {
      ...goClients({
        verdict: 'refuses',
        says: 'failed parsing client key/certificate: tls: private key does not match public key',
      }),
      'client-node': {
        verdict: 'refuses',
        says: 'key values mismatch',
        note: 'from TLS (fetch failed), not from the exec authenticator',
      },
      python: {
        verdict: 'refuses',
        says: 'KEY_VALUES_MISMATCH',
        note: 'from TLS, after urllib3 retries the connection 3 times',
      },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': `${CLIENT_GO_WHY}: tls.X509KeyPair`,
      'client-node': 'undici TLS connect',
      python: 'urllib3/ssl load_cert_chain',
    },
  },
  {
    trait: 'token-and-cert',
    answer: 'status holds a token and a client certificate',
    reproduce: { scenario: { credential: 'both' } },
    clients: {
      ...goClients({ verdict: 'accepts', note: 'sends both' }),
      'client-node': { verdict: 'accepts', note: 'sends both' },
      python: { verdict: 'accepts', note: 'sends the token only: the certificate is ignored when a token is there' },
    },
    why: {
      kubectl: CLIENT_GO_WHY,
      'client-go': CLIENT_GO_WHY,
      'client-node': `${NODE_EXEC}: applyAuthentication`,
      python: `${PY_LOAD}: if 'token' in status … elif 'clientCertificateData' in status`,
    },
  },
  {
    trait: 'cert-only',
    answer: 'status holds a client certificate and its key, no token',
    reproduce: { scenario: { credential: 'cert' } },
    clients: {
      ...goClients({ verdict: 'accepts' }),
      'client-node': { verdict: 'accepts' },
      python: { verdict: 'accepts', note: 'written to temporary files for urllib3' },
    },
    why: { python: PY_LOAD },
  },
  {
    trait: 'expired',
    answer: 'expirationTimestamp is already past (a minute ago)',
    contractCheck: 'EP-EXPIRY-FORMAT',
    reproduce: { scenario: { expiresInSeconds: -60 } },
    clients: {
      ...goClients({
        verdict: 'accepts',
        note: 'uses it for the request it ran the plugin for, then runs the plugin again',
      }),
      'client-node': { verdict: 'accepts', note: 'uses it, then runs the plugin again on the next request' },
      python: {
        verdict: 'accepts',
        note: 'uses it; a token within 5 minutes of expiry makes every later request run the plugin',
      },
    },
    why: {
      'client-go': `${CLIENT_GO_WHY}: getCreds`,
      python: 'kubernetes/config/kube_config.py _is_expired (EXPIRY_SKEW_PREVENTION_DELAY = 5 minutes)',
    },
  },
  {
    trait: 'stderr-output',
    answer: 'the plugin logs a line on stderr and answers well on stdout (exit 0)',
    reproduce: { scenario: { stderr: 'a log line a plugin prints' } },
    clients: {
      ...goClients({ verdict: 'accepts', note: "the plugin's stderr goes to the user's terminal" }),
      'client-node': { verdict: 'accepts', note: 'stderr is read and dropped' },
      python: { verdict: 'accepts', note: 'stderr is captured and dropped' },
    },
    why: {
      'client-go': `${CLIENT_GO_WHY}: cmd.Stderr = os.Stderr`,
      'client-node': NODE_EXEC,
      python: `${PY_EXEC}: stderr=PIPE`,
    },
  },
  ...TOKEN_ROWS,
]);

/**
 * The order each client looks at an answer, from its code: the first trait
 * present that it does not accept decides. Traits a client never looks at are
 * left out (client-node reads neither apiVersion nor kind).
 */
export const CHECK_ORDER: Record<ExecClientName, readonly AnswerTrait[]> = {
  ...FIELD_CHECK_ORDER,
  'client-go': [
    'no-answer',
    'exit-nonzero',
    'not-json',
    'field-wrong-type',
    'apiVersion-missing',
    'apiVersion-unknown',
    'kind-wrong',
    'timestamp-not-rfc3339',
    'token-not-string',
    'apiVersion-other',
    'status-missing',
    'no-credential',
    'token-falsy',
    'cert-without-key',
    'key-without-cert',
    'cert-key-mismatch',
    'token-ends-in-line-break',
    'token-line-break',
    'token-control-char',
    'token-over-1mib',
    'token-leading-space',
  ],
  kubectl: [
    'no-answer',
    'exit-nonzero',
    'not-json',
    'field-wrong-type',
    'apiVersion-missing',
    'apiVersion-unknown',
    'kind-wrong',
    'timestamp-not-rfc3339',
    'token-not-string',
    'apiVersion-other',
    'status-missing',
    'no-credential',
    'token-falsy',
    'cert-without-key',
    'key-without-cert',
    'cert-key-mismatch',
    'token-ends-in-line-break',
    'token-line-break',
    'token-control-char',
    'token-over-1mib',
    'token-leading-space',
  ],
  'client-node': [
    'no-answer',
    'exit-nonzero',
    'bom',
    'not-json',
    'yaml',
    'answer-falsy',
    'status-missing',
    'status-not-object',
    'cert-or-key-not-string',
    'no-credential',
    'token-falsy',
    'cert-without-key',
    'key-without-cert',
    'token-not-latin1',
    'token-line-break',
    'token-control-char',
    'token-over-1mib',
    'cert-key-mismatch',
    'token-leading-space',
  ],
  python: [
    'no-answer',
    'exit-nonzero',
    'bom',
    'not-json',
    'yaml',
    'apiVersion-missing',
    'kind-missing',
    'status-missing',
    'apiVersion-unknown',
    'apiVersion-other',
    'status-not-object',
    'no-credential',
    'token-empty-with-cert',
    'cert-without-key',
    'key-without-cert',
    'cert-or-key-not-string',
    'cert-key-mismatch',
    'token-not-latin1',
    'token-ends-in-line-break',
    'token-line-break',
    'token-control-char',
    'token-over-1mib',
    'token-leading-space',
  ],
};

export interface ClientPrediction {
  verdict: Verdict;
  /** The table row that decided, absent when nothing in the answer troubles this client. */
  row?: DecodingRow;
  /** What in this answer decided: the plugin's value and its defect. */
  finding?: Finding;
  /** One line: why, in the answer's own values. */
  because: string;
  /** Traits in the answer the client has no row for (a field client): the prediction covers the others only. */
  unmodelled?: AnswerTrait[];
}

/**
 * What `client` will make of an answer, from the DECODING table and the
 * client's CHECK_ORDER. Given findings (answerFindings), the explanation
 * quotes the answer; given bare traits, it falls back to the rows' words.
 */
export function predictClient(client: ExecClientName, seen: readonly (AnswerTrait | Finding)[]): ClientPrediction {
  const findings = seen
    .map((f): Finding => (typeof f === 'string' ? { trait: f, detail: rowOf(f).answer } : f))
    .filter((f) => !f.clients || f.clients.includes(client));
  // A field client without a row for a trait present: said, never guessed.
  const unmodelled = [...new Set(findings.filter((f) => !rowOf(f.trait).clients[client]).map((f) => f.trait))];
  const gap = unmodelled.length ? ` (credprov has no ${client} row for ${unmodelled.join(', ')})` : '';
  for (const trait of CHECK_ORDER[client]) {
    const finding = findings.find((f) => f.trait === trait);
    if (!finding) continue;
    const row = rowOf(trait);
    const o = row.clients[client];
    if (o && o.verdict !== 'accepts')
      return { verdict: o.verdict, row, finding, because: `${finding.detail}: ${client} ${describeOutcome(o)}` };
  }
  const notes = findings.flatMap((f) => {
    const note = rowOf(f.trait).clients[client]?.note;
    return note ? [`${f.detail}: ${note}`] : [];
  });
  return {
    verdict: 'accepts',
    ...(unmodelled.length ? { unmodelled } : {}),
    because: `${notes.length ? notes.join('; ') : `nothing in the answer troubles ${client}`}${gap}`,
  };
}

const rowOf = (trait: AnswerTrait): DecodingRow => DECODING.find((r) => r.trait === trait)!;

export function describeOutcome(o: ClientOutcome): string {
  const says = o.says ? ` ("${o.says}")` : '';
  switch (o.verdict) {
    case 'accepts':
      return `accepts it${o.note ? ` (${o.note})` : ''}`;
    case 'refuses':
      return `refuses it${says}`;
    case 'sends-no-credential':
      return `sends the request without a credential${says}${o.note ? ` (${o.note})` : ''}`;
    case 'server-refuses':
      return `sends it, and the API server refuses the request${o.note ? ` (${o.note})` : ''}`;
  }
}

/** How each client runs a plugin: facts for users, checked by decoding.test.ts against the fake plugin's log. */
export interface InvocationRow {
  id:
    'exec-info' | 'stdin-not-interactive' | 'never-with-terminal' | 'always-without-terminal' | 'provide-cluster-info';
  question: string;
  clients: Record<ClientName, string>;
  /** The answer as decoding.test.ts observes it through the fake plugin's record of the run. */
  observed: Record<ClientName, unknown>;
  why: Partial<Record<ClientName, string>>;
}

export const INVOCATION: readonly InvocationRow[] = [
  {
    id: 'exec-info',
    question: 'Is KUBERNETES_EXEC_INFO set?',
    clients: {
      kubectl: 'yes',
      'client-go': 'yes',
      'client-node': "no: a plugin that needs it (to pick the answer's version) fails",
      python: 'yes',
    },
    observed: { kubectl: true, 'client-go': true, 'client-node': false, python: true },
    why: { 'client-node': NODE_EXEC, python: PY_EXEC },
  },
  {
    id: 'stdin-not-interactive',
    question: "What is the plugin's stdin when the client is not interactive?",
    clients: {
      kubectl: '/dev/null',
      'client-go': '/dev/null',
      'client-node': 'an open pipe nobody writes to: a plugin that reads it hangs',
      python: "the script's own stdin, inherited (the probe's is /dev/null, as under cron or CI)",
    },
    observed: { kubectl: '/dev/null', 'client-go': '/dev/null', 'client-node': 'pipe', python: '/dev/null' },
    why: {
      'client-go': `${CLIENT_GO_WHY}: cmd.Stdin only when interactive`,
      'client-node': `${NODE_EXEC}: child_process.spawn defaults`,
      python: `${PY_EXEC}: stdin=None`,
    },
  },
  {
    id: 'never-with-terminal',
    question: 'interactiveMode Never, run from a terminal: is the plugin told spec.interactive=true?',
    clients: {
      kubectl: 'no',
      'client-go': 'no',
      'client-node': 'no (never; and no KUBERNETES_EXEC_INFO at all)',
      python: 'yes: it ignores interactiveMode and decides from sys.stdout.isatty(), then hands the plugin its stdin',
    },
    observed: { kubectl: false, 'client-go': false, 'client-node': false, python: true },
    why: { 'client-go': `${CLIENT_GO_WHY}: isInteractive`, python: `${PY_EXEC}: is_interactive = sys.stdout.isatty()` },
  },
  {
    id: 'always-without-terminal',
    question: 'interactiveMode Always, no terminal: does the client run the plugin?',
    clients: {
      kubectl: 'no: "exec plugin cannot support interactive mode: standard input is not a terminal"',
      'client-go': 'no: "exec plugin cannot support interactive mode: standard input is not a terminal"',
      'client-node': 'yes, non-interactively',
      python: 'yes, non-interactively',
    },
    observed: { kubectl: false, 'client-go': false, 'client-node': true, python: true },
    why: { 'client-go': `${CLIENT_GO_WHY}: isInteractive` },
  },
  {
    id: 'provide-cluster-info',
    question: 'provideClusterInfo: true: what is spec.cluster?',
    clients: {
      kubectl: 'server, certificate-authority-data, config (from the client.authentication.k8s.io/exec extension)',
      'client-go': 'server, certificate-authority-data, config (from the client.authentication.k8s.io/exec extension)',
      'client-node': 'absent (no KUBERNETES_EXEC_INFO)',
      python:
        "the kubeconfig's cluster entry as written (its extensions list included, a CA file as a path) plus config",
    },
    observed: {
      kubectl: ['certificate-authority-data', 'config', 'server'],
      'client-go': ['certificate-authority-data', 'config', 'server'],
      'client-node': null,
      python: ['certificate-authority-data', 'config', 'extensions', 'server'],
    },
    why: { 'client-go': 'client-go rest/exec.go ConfigToExecCluster', python: `${PY_EXEC}: self.cluster.value` },
  },
];
