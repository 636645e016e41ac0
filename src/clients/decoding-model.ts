// The vocabulary of the client decoding table (decoding.ts): verdicts, the
// traits an answer can have, and a row. Kept apart so the rows can live in
// more than one module (decoding-tokens.ts holds those about the token).
import type { ClientName, ExecClientName, FieldClientName } from './probe.ts';

/**
 * accepts: the client sends the plugin's credential.
 * refuses: the request fails with the client's error; nothing is sent.
 * sends-no-credential: the client carries on without a credential (it logs its
 * error, or says nothing) and the server sees an anonymous request.
 * server-refuses: the client sends the request, but it is malformed or too
 * large and the server refuses it before authenticating (kube-apiserver's
 * net/http server: 400 for a header value with a control character, 431 for
 * headers over its 1 MiB); credprov's endpoint refuses the same.
 */
export type Verdict = 'accepts' | 'refuses' | 'sends-no-credential' | 'server-refuses';

export interface ClientOutcome {
  verdict: Verdict;
  /** Text the client's error holds (what it printed or logged, as observed). */
  says?: string;
  /** What else is worth knowing (it accepts, but …). */
  note?: string;
}

export type AnswerTrait =
  | 'no-answer'
  | 'exit-nonzero'
  | 'not-json'
  | 'yaml'
  | 'apiVersion-missing'
  | 'apiVersion-unknown'
  | 'apiVersion-other'
  | 'kind-missing'
  | 'kind-wrong'
  | 'field-wrong-type'
  | 'answer-falsy'
  | 'status-missing'
  | 'status-not-object'
  | 'cert-or-key-not-string'
  | 'timestamp-not-rfc3339'
  | 'no-credential'
  | 'cert-without-key'
  | 'key-without-cert'
  | 'cert-key-mismatch'
  | 'token-and-cert'
  | 'cert-only'
  | 'expired'
  | 'bom'
  | 'token-not-string'
  | 'token-falsy'
  | 'token-leading-space'
  | 'token-empty-with-cert'
  | 'token-ends-in-line-break'
  | 'token-line-break'
  | 'token-control-char'
  | 'token-not-latin1'
  | 'token-non-ascii'
  | 'token-over-16kib'
  | 'token-over-1mib'
  /** The plugin writes to stderr and exits 0 with a good answer (fabric8 merges stderr into stdout). */
  | 'stderr-output';

/** A JSON value's kind, as a typed decoder tells them apart ('missing': the key is not there). */
export type JsonKind = 'string' | 'number' | 'bool' | 'null' | 'object' | 'array' | 'missing';
export const JSON_KINDS: readonly JsonKind[] = ['string', 'number', 'bool', 'null', 'object', 'array', 'missing'];

/**
 * What a client that decodes the answer into typed fields (kube-rs's serde, fabric8's Jackson) makes of one
 * field of each JSON kind. value: taken as it is; text: a scalar taken as its text (0 → "0", true → "true");
 * absent: as if the field were not there; refused: the whole answer fails to decode; ignored: never read.
 */
export type KindReading = 'value' | 'text' | 'absent' | 'refused' | 'ignored';

/** The ExecCredential fields whose kinds a typed client's rows state (spec's own fields are not varied). */
export type ExecField =
  | 'apiVersion'
  | 'kind'
  | 'spec'
  | 'status'
  | 'status.token'
  | 'status.expirationTimestamp'
  | 'status.clientCertificateData'
  | 'status.clientKeyData';

export type FieldKinds = Record<ExecField, Record<JsonKind, KindReading>>;

export interface DecodingRow {
  trait: AnswerTrait;
  /** What the plugin's answer is like, in words. */
  answer: string;
  /** The contract check that names this defect, when credprov's own runner judges it too. */
  contractCheck?: string;
  /** The fake plugin scenario (fixtures/fake-exec-plugin) that answers this way; decoding.test.ts runs it through every client (within timeoutMs, default 30 s). */
  reproduce: { scenario: Record<string, unknown>; timeoutMs?: number };
  /**
   * The four core clients' outcomes, and the field clients' where credprov has a row for them (their rules files,
   * src/clients/<client>/*-rules.ts, checked by field-probes.test.ts); a trait without one is unmodelled for that client.
   */
  clients: Record<ClientName, ClientOutcome> & Partial<Record<FieldClientName, ClientOutcome>>;
  /** Where each client's code explains the outcome. */
  why: Partial<Record<ExecClientName, string>>;
}

export const CLIENT_GO_WHY = 'client-go plugin/pkg/client/auth/exec/exec.go refreshCredsLocked (kubectl is client-go)';
export const PY_EXEC = 'kubernetes/config/exec_provider.py ExecProvider.run';
export const PY_LOAD =
  'kubernetes/config/kube_config.py _load_from_exec_plugin (errors are logged with logging.error, not raised; the request goes out without a credential)';
export const NODE_EXEC = '@kubernetes/client-node dist/exec_auth.js getCredential/applyAuthentication';

/** Both client-go-based clients agree everywhere: kubectl is client-go. */
export function goClients(o: ClientOutcome): Pick<Record<ClientName, ClientOutcome>, 'kubectl' | 'client-go'> {
  return { kubectl: o, 'client-go': o };
}
