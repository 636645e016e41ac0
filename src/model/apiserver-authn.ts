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
        return {
          status: 200,
          because: `the token's success is cached for ${TOKEN_SUCCESS_CACHE_MS / 1000}s from its review ${((now - cachedAt) / 1000).toFixed(1)}s ago`,
          reviewed: false,
        };
      }
      const verdict = this.world.review(p.token, now);
      if (verdict === 'authenticated') {
        this.successCache.set(p.token, now);
        return { status: 200, because: 'the webhook accepted the token', reviewed: true };
      }
      this.successCache.delete(p.token);
      return {
        status: 401,
        because: `the webhook refused the token (${verdict})${p.cert !== undefined ? ' and the certificate is not valid' : ''}`,
        reviewed: true,
      };
    }
    if (p.cert !== undefined)
      return { status: 401, because: 'the client certificate is expired or not from the cluster CA', reviewed: false };
    return { status: 403, because: 'no credential: system:anonymous, whom RBAC does not allow', reviewed: false };
  }
}

// The structured JWT authenticator (--authentication-config, jwt[]), as read
// in k8s.io/apiserver@v0.37.1 plugin/pkg/authenticator/token/oidc/oidc.go and
// github.com/coreos/go-oidc v2.5.0 (the version k8s.io/kubernetes@v1.37.1's
// go.mod pins), for an issuer that, like credprov's (src/authn/oidc-issuer.ts),
// sends no Cache-Control with its JWKS:
// - config.go:160-168,203-209 (k8s.io/kubernetes pkg/kubeapiserver/
//   authenticator): the JWT authenticators join the webhook in the one token
//   union behind tokencache, so the 10s success cache above covers JWTs too.
// - oidc.go:427-431: discovery happens once, when the authenticator starts
//   (retried every 10s until it succeeds); the verifier's key set is go-oidc's
//   NewRemoteKeySet (jwks.go:36), which fetches nothing until a token needs it.
// - go-oidc verify.go:237 checks the signature first (key set), and only
//   then the claims: iss, aud, then exp at verify.go:306 — `Expiry.Before(now)`
//   refuses, so a token is good up to and including its exp second, with no
//   leeway; nbf gets a 1 minute leeway (verify.go:313). So an expired token
//   signed by an unknown kid still makes the key set refetch.
// - go-oidc jwks.go:104-135 (remoteKeySet.verify): a token whose kid is in the
//   cached keys is verified with them, whatever the issuer serves now: no
//   timer ever refetches. Only when no cached key verifies (an unknown kid,
//   or a bad signature) does it refetch, and only if now+30s
//   (keysExpiryDelta, jwks.go:24) is after the keys' expiry; jwks.go:221-225
//   sets that expiry to the fetch time unless Cache-Control says later, so
//   with no Cache-Control every such token refetches (inflight fetches are
//   shared). Hence a key removed from the JWKS keeps verifying tokens until
//   some token with a kid the API server does not know arrives.
// - oidc.go:638 hasCorrectIssuer: a token whose iss is not the issuer's URL
//   is left to the other authenticators (the webhook's tokens are not JWTs).

/** go-oidc's keysExpiryDelta: a failed verification refetches only when the cached keys expire within this. */
export const JWKS_REFETCH_WINDOW_MS = 30_000;
/** go-oidc's leeway on nbf (none on exp). */
export const NBF_LEEWAY_MS = 60_000;

export interface ModelJwt {
  kid: string;
  /** exp and nbf in ms (whole seconds × 1000, as the token carries them). */
  expMs: number;
  nbfMs?: number;
}

export interface JwtVerification {
  verdict: 'authenticated' | 'expired' | 'unknown';
  /** Whether the key set fetched the JWKS for this token. */
  fetched: boolean;
  because: string;
}

/** One jwt[] authenticator's key set and verifier (go-oidc remoteKeySet + IDTokenVerifier). */
export class JwtAuthenticatorModel {
  /** Kids of the keys fetched last; [] before the first fetch (or keys of another run: their kids are never this run's). */
  private cachedKids: string[] = [];
  private keysExpiry = -Infinity;
  private readonly jwks: (now: number) => string[];

  /** `jwks(now)`: the kids the issuer serves at `now`. */
  constructor(jwks: (now: number) => string[]) {
    this.jwks = jwks;
  }

  verify(t: ModelJwt, now: number): JwtVerification {
    let fetched = false;
    let signature = this.cachedKids.includes(t.kid) ? 'its kid is among the cached keys (no fetch)' : '';
    if (!signature) {
      if (now + JWKS_REFETCH_WINDOW_MS > this.keysExpiry) {
        this.cachedKids = this.jwks(now);
        this.keysExpiry = now;
        fetched = true;
        signature = this.cachedKids.includes(t.kid)
          ? 'its kid was not among the cached keys, so the JWKS was fetched and has it'
          : '';
        if (!signature)
          return {
            verdict: 'unknown',
            fetched,
            because: `kid ${t.kid} is not in the JWKS fetched for it (${this.cachedKids.join(', ') || 'no keys'})`,
          };
      } else {
        return {
          verdict: 'unknown',
          fetched,
          because: `kid ${t.kid} is not cached and the keys are fresher than ${JWKS_REFETCH_WINDOW_MS / 1000}s: no fetch`,
        };
      }
    }
    if (t.expMs < now)
      return {
        verdict: 'expired',
        fetched,
        because: `${signature}, but exp passed ${((now - t.expMs) / 1000).toFixed(1)}s ago (no leeway)`,
      };
    if (t.nbfMs !== undefined && now + NBF_LEEWAY_MS < t.nbfMs)
      return {
        verdict: 'unknown',
        fetched,
        because: `${signature}, but nbf is more than ${NBF_LEEWAY_MS / 1000}s ahead`,
      };
    return {
      verdict: 'authenticated',
      fetched,
      because: `${signature}; exp in ${((t.expMs - now) / 1000).toFixed(1)}s`,
    };
  }
}
