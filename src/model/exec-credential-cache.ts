// credprov's model of WHEN each real client runs an exec credential plugin
// (KEP-541), request by request, and which credential each request carries:
// caching until expirationTimestamp (and how early a client refreshes), what
// a 401 does, one process per request (kubectl). The exec-plugin-401 suite
// states every prediction from here before the real client acts. What the
// plugin is told on a run (KUBERNETES_EXEC_INFO, stdin) is in exec-info.ts;
// how the API server answers is in apiserver-authn.ts.
//
// client-go v0.37.1, plugin/pkg/client/auth/exec/exec.go (the client-go probe: one long-lived Authenticator):
// - 402-415 getCreds: the cached credential while `now` is not after its
//   expirationTimestamp (387-392: no skew, no early refresh; none = forever);
//   otherwise run the plugin. A failed run leaves the old credential cached
//   and fails the request with "getting credentials: …" (367-370).
// - 360-385 RoundTrip: getCreds, Bearer token if any, send; on 401,
//   maybeRefreshCreds(creds) (419-431) runs the plugin once more if the
//   credential that got the 401 is still the cached one. The 401 itself is
//   returned: no retry, so the refreshed credential serves the NEXT request.
// - 324-331,394-400: the TLS handshake of every new connection asks getCreds
//   again (GetCert), so a credential already expired when it arrives is run
//   for twice on a new connection: once by RoundTrip, once by the handshake.
//   The connection keeps the certificate its handshake got.
// - 525-535: when a run returns another certificate than the cached one, all
//   connections are closed (the next request dials, with the new cert); a new
//   token alone closes nothing. The close is unconditional: the HTTP/2 pool
//   may still hand the request to a connection it just closed ("use of closed
//   network connection", 8 of 72 rotations under load). rest.Request, which
//   the probe uses as every clientset does, retries a GET after it
//   (rest/request.go:1066-1078, IsProbableEOF; 1 s Retry-After), so the model
//   counts the request once, with its final status; the suite reports the
//   retried error beside the verdict. A POST would fail instead.
// kubectl: the same client-go, one process per request (`kubectl get --raw`):
//   every request starts with an empty cache and a new connection.
//
// @kubernetes/client-node 2.0.1 (in process, one KubeConfig per session):
// - exec_auth.js 47-59: tokenCache[user.name] is used while
//   Date.parse(expirationTimestamp) > Date.now(), or forever without one;
//   otherwise the plugin runs (60-113) and whatever JSON it printed is cached.
// - nothing reacts to a 401: the cached credential is used until it expires.
// - config.js 194-225,563-579: every request gets a new undici Agent with the
//   credential's certificate, so a new certificate is used at once.
//
// kubernetes (Python) 37.0.2, config/kube_config.py (the probe loads the
// kubeconfig on its first request, then reuses one ApiClient):
// - 439-474 _load_from_exec_plugin, run by load_kube_config: one plugin run;
//   a token sets a refresh hook (529-537), a certificate becomes the
//   connection pool's for the process's life (no hook: never refreshed); a
//   failed run is logged and the client carries on with no credential.
// - 533-536, configuration.py 553-561: before every request the hook re-runs
//   the plugin when the token expires within EXPIRY_SKEW_PREVENTION_DELAY
//   (kube_config.py:47, 5 minutes) or already has: `expiry - 5min <= now`.
//   So a token that lives under 5 minutes is fetched anew for every request,
//   the first one included (load, then the hook). Without
//   expirationTimestamp the token is kept for good.
// - nothing reacts to a 401.
//
// fabric8, kube-rs and kubernetes_asyncio: exec-field-clients.ts.
import type { ExecClientName } from '../clients/probe.ts';
import { fieldSessionModel } from './exec-field-clients.ts';

/** client-go's and client-node's skew: none. Python's: kube_config.py:47. */
export const PYTHON_EXPIRY_SKEW_MS = 5 * 60_000;

export type { ClientSessionModel, Credential, ModelWorld, PredictedRequest, RunResult } from './exec-session.ts';
import type { ClientSessionModel, Credential, ModelWorld, PredictedRequest } from './exec-session.ts';

export interface SessionOptions {
  /**
   * The client refuses to run the plugin at all (exec-info.ts: client-go's Always without a terminal), or its run never
   * answers (kube-rs handing a prompting plugin a stdin that is no terminal).
   */
  refusal?: string;
}

export function clientSessionModel(
  client: ExecClientName,
  world: ModelWorld,
  o: SessionOptions = {},
): ClientSessionModel {
  switch (client) {
    case 'client-go':
      return new ClientGoSession(world, o);
    case 'kubectl':
      return {
        client: 'kubectl',
        // A new process per request: a fresh Authenticator, a fresh connection.
        request: (now) => new ClientGoSession(world, o).request(now),
      };
    case 'client-node':
      return new ClientNodeSession(world);
    case 'python':
      return new PythonSession(world);
    case 'fabric8':
    case 'kube-rs':
    case 'kubernetes-asyncio': {
      const refusal = o.refusal;
      // A launch that never answers (exec-info.ts: kube-rs prompting on a pipe): every request fails, no run counted.
      if (refusal) return { client, request: () => ({ runs: 0, error: refusal, because: refusal }) };
      return fieldSessionModel(client, world);
    }
  }
}

const expiredForClientGo = (c: Credential, now: number) => c.expiresAt !== undefined && now > c.expiresAt;

class ClientGoSession implements ClientSessionModel {
  readonly client = 'client-go' as const;
  private cached: Credential | undefined;
  /** The certificate of the open connection; undefined (not null) when there is none. */
  private connection: { cert: string | undefined } | undefined;
  private readonly world: ModelWorld;
  private readonly refusal: string | undefined;

  constructor(world: ModelWorld, o: SessionOptions) {
    this.world = world;
    this.refusal = o.refusal;
  }

  request(now: number): PredictedRequest {
    const steps: string[] = [];
    let runs = 0;
    const getCreds = (who: string): Credential | { error: string } => {
      if (this.cached && !expiredForClientGo(this.cached, now)) return this.cached;
      if (this.refusal) return { error: this.refusal };
      runs++;
      const r = this.world.runPlugin(now);
      if (!r.ok) {
        steps.push(`${who}: run failed`);
        return { error: `getting credentials: ${r.error}` };
      }
      steps.push(`${who}: ${this.cached ? 'cached credential expired' : 'nothing cached'} → run`);
      this.replace(r.credential);
      return this.cached!;
    };
    const creds = getCreds('RoundTrip');
    if ('error' in creds) return { runs, error: creds.error, because: [...steps, 'nothing sent'].join('; ') };
    if (!this.connection) {
      const forHandshake = getCreds('TLS handshake');
      // A handshake that cannot get credentials fails the dial.
      if ('error' in forHandshake)
        return { runs, error: forHandshake.error, because: [...steps, 'dial failed'].join('; ') };
      this.connection = { cert: forHandshake.cert };
    }
    const status = this.world.serve(now, {
      ...(creds.token !== undefined ? { token: creds.token } : {}),
      ...(this.connection.cert !== undefined ? { cert: this.connection.cert } : {}),
    });
    steps.push(`sent → ${status}`);
    if (status === 401) {
      if (creds === this.cached) {
        runs++;
        const r = this.world.runPlugin(now);
        if (r.ok) this.replace(r.credential);
        steps.push(
          `401 with the cached credential → run (${r.ok ? 'cached for the next request' : 'failed, old one kept'}); the 401 is returned`,
        );
      } else {
        steps.push('401 for a credential already replaced → no run');
      }
    }
    return { status, runs, because: steps.join('; ') };
  }

  private replace(next: Credential): void {
    const old = this.cached;
    this.cached = { ...next };
    // exec.go:529: another certificate than before closes every connection.
    if (old && old.cert !== next.cert) this.connection = undefined;
  }
}

class ClientNodeSession implements ClientSessionModel {
  readonly client = 'client-node' as const;
  private cached: Credential | undefined;
  private readonly world: ModelWorld;

  constructor(world: ModelWorld) {
    this.world = world;
  }

  request(now: number): PredictedRequest {
    let runs = 0;
    let why: string;
    if (this.cached && (this.cached.expiresAt === undefined || this.cached.expiresAt > now)) {
      why =
        this.cached.expiresAt === undefined
          ? 'cached (no expirationTimestamp: kept for good)'
          : 'cached until its expirationTimestamp';
    } else {
      runs++;
      const r = this.world.runPlugin(now);
      if (!r.ok) return { runs, error: r.error, because: 'run failed; nothing sent' };
      why = this.cached ? 'cached credential expired → run' : 'nothing cached → run';
      this.cached = { ...r.credential };
    }
    const c = this.cached;
    const status = this.world.serve(now, {
      ...(c.token !== undefined ? { token: c.token } : {}),
      ...(c.cert !== undefined ? { cert: c.cert } : {}),
    });
    return {
      status,
      runs,
      because: `${why}; sent on a new connection → ${status}${status === 401 ? '; a 401 changes nothing' : ''}`,
    };
  }
}

class PythonSession implements ClientSessionModel {
  readonly client = 'python' as const;
  private loaded = false;
  private token: string | undefined;
  /** The connection pool's certificate, fixed at load. */
  private cert: string | undefined;
  private expiresAt: number | undefined;
  private readonly world: ModelWorld;

  constructor(world: ModelWorld) {
    this.world = world;
  }

  request(now: number): PredictedRequest {
    let runs = 0;
    const steps: string[] = [];
    const load = (who: string) => {
      runs++;
      const r = this.world.runPlugin(now);
      if (!r.ok) {
        steps.push(`${who}: run failed (logged)`);
        return;
      }
      const c = r.credential;
      if (c.token !== undefined) this.token = c.token;
      else if (c.cert !== undefined && !this.loaded) this.cert = c.cert;
      // kube_config.py:470: expiry changes only when the answer carries one.
      if (c.expiresAt !== undefined) this.expiresAt = c.expiresAt;
      steps.push(`${who}: run`);
    };
    if (!this.loaded) {
      load('load_kube_config');
      this.loaded = true;
    }
    // The refresh hook exists only for a token (kube_config.py:530).
    if (this.token !== undefined && this.expiresAt !== undefined && this.expiresAt - PYTHON_EXPIRY_SKEW_MS <= now)
      load('refresh hook (expires within 5 min)');
    const status = this.world.serve(now, {
      ...(this.token !== undefined ? { token: this.token } : {}),
      ...(this.cert !== undefined ? { cert: this.cert } : {}),
    });
    steps.push(`sent → ${status}${status === 401 ? '; a 401 changes nothing' : ''}`);
    return { status, runs, because: steps.join('; ') };
  }
}
