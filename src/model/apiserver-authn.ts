// credprov's model of how kube-apiserver (v1.37.1) answers a request by what
// it carries, for a server set up as the local provider sets it up: x509
// client certificates (--client-ca-file), a token webhook with
// --authentication-token-webhook-cache-ttl=0s, anonymous requests allowed, and
// RBAC that lets the exec plugin's user (and no one else) read what the
// probes ask for. The exec-plugin-401 suite predicts every status from here
// and from the client models (exec-credential-cache.ts).
//
// Read from k8s.io/kubernetes@v1.37.1 and k8s.io/apiserver@v0.37.1:
// - pkg/kubeapiserver/authenticator/config.go:204-209: every bearer-token
//   authenticator (the webhook included) sits in one union wrapped by
//   tokencache.New(…, TokenSuccessCacheTTL, TokenFailureCacheTTL), and
//   pkg/kubeapiserver/options/authentication.go:167-168 fixes those at 10s
//   and 0s with no flag to change them. So a token the webhook accepted keeps
//   working for 10s after its review whatever the webhook says meanwhile
//   (revocation, expiry); a refusal is never cached. --authentication-token-
//   webhook-cache-ttl=0s only removes the webhook's own cache (config.go:416).
//   Measured on the real v1.37.1 server: a token revoked right after its
//   first review kept getting 200 (no new review) for 10.0s, then 401, each
//   401 with a review of its own.
// - pkg/authentication/token/cache/cached_token_authenticator.go: an entry
//   lives ttl from when it was stored; a hit does not extend it.
// - union.New (request authenticators: x509 first, then bearer tokens) tries
//   each in turn; the first success wins, errors are collected. The outer
//   union.NewFailOnError(…, anonymous) (authenticator/config.go) lets a
//   request through as system:anonymous only when nothing failed, i.e. it
//   carried no credential at all: any refused credential (an expired or
//   unknown certificate, a refused token) is 401. An x509 failure does not
//   stop a valid bearer token from authenticating the request.
// - plugin/pkg/authenticator/token/webhook/webhook.go:160-170: with no
//   status.audiences in the answer, the API server's own audiences count.

export const TOKEN_SUCCESS_CACHE_MS = 10_000;

export type TokenVerdict = 'authenticated' | 'unknown' | 'revoked' | 'expired';

export interface Presented {
  /** Bearer token (an id the world knows it by). */
  token?: string;
  /** Client certificate (an id). */
  cert?: string;
}

export interface ApiServerAuthWorld {
  /** What the token webhook answers for `token` at `now`. */
  review(token: string, now: number): TokenVerdict;
  /** Whether the certificate chains to the client CA and is valid at `now`. */
  certValid(cert: string, now: number): boolean;
}

export interface ServedRequest {
  status: 200 | 401 | 403;
  /** Which authenticator decided, and why, in one line. */
  because: string;
  /** Whether the webhook was asked (a cached success skips it). */
  reviewed: boolean;
}

export class ApiServerAuthModel {
  /** token → when its last successful review was stored. */
  private readonly successCache = new Map<string, number>();
  private readonly world: ApiServerAuthWorld;

  constructor(world: ApiServerAuthWorld) {
    this.world = world;
  }

  /** The status of one GET the exec plugin's user may make (RBAC allows it), carrying `p`. */
  serve(now: number, p: Presented): ServedRequest {
    const certOk = p.cert !== undefined && this.world.certValid(p.cert, now);
    if (certOk) return { status: 200, because: 'a client certificate from the cluster CA, valid now', reviewed: false };
    if (p.token !== undefined) {
      const cachedAt = this.successCache.get(p.token);
      if (cachedAt !== undefined && now - cachedAt < TOKEN_SUCCESS_CACHE_MS) {
        return { status: 200, because: `the token's success is cached for ${TOKEN_SUCCESS_CACHE_MS / 1000}s from its review ${((now - cachedAt) / 1000).toFixed(1)}s ago`, reviewed: false };
      }
      const verdict = this.world.review(p.token, now);
      if (verdict === 'authenticated') {
        this.successCache.set(p.token, now);
        return { status: 200, because: 'the webhook accepted the token', reviewed: true };
      }
      this.successCache.delete(p.token);
      return { status: 401, because: `the webhook refused the token (${verdict})${p.cert !== undefined ? ' and the certificate is not valid' : ''}`, reviewed: true };
    }
    if (p.cert !== undefined) return { status: 401, because: 'the client certificate is expired or not from the cluster CA', reviewed: false };
    return { status: 403, because: 'no credential: system:anonymous, whom RBAC does not allow', reviewed: false };
  }
}
