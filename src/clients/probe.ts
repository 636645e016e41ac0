// A real client of exec credential plugins (KEP-541), driven one request at a
// time. A plugin is run by many clients and they differ (caching, 401
// handling, how strictly they decode the answer), so suites and `certify
// exec-plugin --clients` drive each real client through the same session
// shape and compare what each did. A session is long-lived where the client
// is (client-go, client-node, python keep their credential cache between
// requests); kubectl is one process per request, as users run it.
import type { Redactor } from '../core/redact.ts';

/** The four clients every exec suite runs (the vendor suites judge their plugins through these). */
export type ClientName = 'kubectl' | 'client-go' | 'client-node' | 'python';

/** The four, in the order reports list them. */
export const CLIENT_NAMES: readonly ClientName[] = ['kubectl', 'client-go', 'client-node', 'python'];

/** The field clients issue 31 added: controllers and tools run them, each with exec handling of its own. */
export type FieldClientName = 'fabric8' | 'kube-rs' | 'kubernetes-asyncio';
export const FIELD_CLIENT_NAMES: readonly FieldClientName[] = ['fabric8', 'kube-rs', 'kubernetes-asyncio'];

/**
 * Every client credprov knows: the exec client matrix (`certify exec-plugin --clients`, exec-plugin-401, the
 * decoding table), in the order reports list them.
 */
export type ExecClientName = ClientName | FieldClientName;
export const EXEC_CLIENT_NAMES: readonly ExecClientName[] = [...CLIENT_NAMES, ...FIELD_CLIENT_NAMES];

export type ClientAvailability = { ok: true; version: string } | { ok: false; reason: string };

export interface ClientTarget {
  /** Path of the kubeconfig the client loads (its current context names the exec user). */
  kubeconfig: string;
  /** A context other than the current one. */
  context?: string;
}

export interface ProbeResponse {
  /** 1, 2, … within the session. */
  seq: number;
  /** The HTTP status the API server answered; absent when the client never got one. */
  status?: number;
  /** The client's own error text when it failed (e.g. it refused the plugin's answer), as it reports it. */
  error?: string;
  /** Wall time of this request, plugin runs included. */
  ms: number;
  /** Every status the client got during this request, in order, when it sent more than one (kubectl: one process may send several). */
  statuses?: number[];
  /** Transport errors the client retried past within this request (client-go's rest.Request retries a GET after e.g. "use of closed network connection"), redacted. */
  transportErrors?: string[];
}

export interface StartOptions {
  /** Environment for the client (and so the plugin it runs); defaults to credprov's, minus its secrets. */
  env?: NodeJS.ProcessEnv;
  /** Per-request limit: a client stuck on a hung plugin is killed and the request reported as an error. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Give the client a pseudo-terminal as stdin (interactiveMode IfAvailable/Always); default: no terminal, as in CI. */
  terminal?: boolean;
  /** Secrets to redact from log() and from error texts (the plugin's tokens, once known). */
  redactor?: Redactor;
}

export interface ProbeSession {
  readonly client: ExecClientName;
  /** What this session could not do as asked, e.g. a client that never gives its plugin a terminal. */
  readonly notes?: readonly string[];
  /** One GET of `path` (e.g. /api/v1/namespaces/default/configmaps) through the client's own transport and auth. */
  request(path: string): Promise<ProbeResponse>;
  /** The client's stderr/log so far, redacted by the caller before it reaches a report. */
  log(): string;
  /** Ends the client process (if any); safe to call twice. */
  close(): Promise<void>;
}

export interface ClientProbe<N extends ExecClientName = ExecClientName> {
  readonly name: N;
  /** Whether this machine can run the client, and which version it is. */
  available(): Promise<ClientAvailability>;
  start(target: ClientTarget, o: StartOptions): Promise<ProbeSession>;
}
