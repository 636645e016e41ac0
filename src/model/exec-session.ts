// What a model of one client's exec-credential session works with: a plugin
// run's credential, the world (the scripted plugin and the API server), and the
// request the model predicts. Shared by exec-credential-cache.ts (the four core
// clients) and exec-field-clients.ts (fabric8, kube-rs, kubernetes_asyncio).
import type { ExecClientName } from '../clients/probe.ts';
import type { Presented } from './apiserver-authn.ts';

/** One credential as a plugin run returned it; ids stand for the token and certificate. */
export interface Credential {
  token?: string;
  cert?: string;
  /** expirationTimestamp in ms; absent when the plugin gave none. */
  expiresAt?: number;
}

export type RunResult = { ok: true; credential: Credential } | { ok: false; error: string };

export interface ModelWorld {
  /** A plugin run at `now` (the world knows what the scripted plugin answers). */
  runPlugin(now: number): RunResult;
  /** The status the API server gives a request carrying `presented` at `now`. */
  serve(now: number, presented: Presented): number;
}

export interface PredictedRequest {
  /** The HTTP status, or undefined when the request never left (the client failed first). */
  status?: number;
  /** Plugin runs during this request, in order. */
  runs: number;
  /** The client's failure, when it sent nothing. */
  error?: string;
  /** What the model did, step by step, in one line. */
  because: string;
}

export interface ClientSessionModel {
  readonly client: ExecClientName;
  request(now: number): PredictedRequest;
}
