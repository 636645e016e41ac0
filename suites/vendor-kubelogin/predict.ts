// credprov's model of one `kubectl oidc-login get-token` run and of what
// kube-apiserver's structured JWT authenticator then says, read from the
// kubelogin v1.36.3 source (cited per rule) and golang.org/x/oauth2 v0.36.0.
// Pure: the cache state, the lab's audiences and the time come in as arguments.
import {
  ACCESS_TOKEN_AUDIENCE,
  ACCESS_TOKEN_LIFETIME_SEC,
  ID_TOKEN_LIFETIME_SEC,
  jwtUsernameFor,
  SHORT_ID_TOKEN_SEC,
  type Prediction,
} from '../../src/run/kit.ts';
import { WHOAMI_STATUS, type UserName } from './plan.ts';
import type { Session } from './session.ts';

export const MODEL =
  'kubelogin get-token model (int128/kubelogin v1.36.3 pkg/usecases/credentialplugin/get_token.go, ' +
  'pkg/usecases/authentication/authentication.go, golang.org/x/oauth2 v0.36.0 internal/token.go) + API server JWT audience check';

/** What the token cache file holds for this run's key, as the lab left it. */
export interface CacheState {
  /** The cached token's exp (ms): the id_token's, or the access_token's with --oidc-use-access-token. */
  expMs: number;
  refreshToken: 'valid' | 'revoked' | 'none';
}

export interface RunPlan {
  grant: 'password' | 'client-credentials';
  useAccessToken?: boolean;
  /** Does --certificate-authority name the CA that signed the issuer's certificate (or --insecure-skip-tls-verify skip the check)? */
  issuerCaTrusted: boolean;
  cache?: CacheState;
  /** false: --oidc-client-secret is not the client's (the endpoint answers 401 invalid_client). */
  clientSecretValid?: boolean;
  nowMs: number;
}

/** One token-endpoint request as the lab records it: `<grant_type>/<client auth>:<status>`. */
export type TokenCall = string;

export interface RunOutcome {
  pluginExit: 0 | 1;
  /** Discovery fetched (every run that does not answer from the cache). */
  discovery: boolean;
  tokenCalls: TokenCall[];
  /** Which token the plugin prints. */
  prints: 'cached token' | 'id_token' | 'access_token' | 'nothing';
  /** When it fails: what its stderr names (the TLS error, or the OAuth2 error code the endpoint sent, RFC 6749 §5.2). */
  failure?: string;
}

const grantType = (g: RunPlan['grant']) => (g === 'password' ? 'password' : 'client_credentials');

export function predictRun(p: RunPlan): Prediction<RunOutcome> {
  const because: string[] = [];
  const value = ((): RunOutcome => {
    // get_token.go:85-108: a cached token that is not expired (exp.Before(now) false; pkg/jwt/token.go:18) is printed as is, before any request.
    if (p.cache && !(p.cache.expMs < p.nowMs)) {
      because.push(
        'the cache holds a token whose exp is not before now: printed without any request (get_token.go:97-107)',
      );
      return { pluginExit: 0, discovery: false, tokenCalls: [], prints: 'cached token' };
    }
    // factory.go:57: discovery is the first request; a CA that did not sign the issuer fails the TLS handshake, so nothing is recorded.
    if (!p.issuerCaTrusted) {
      because.push(
        '--certificate-authority does not verify the issuer: discovery fails in the TLS handshake (factory.go:39-59)',
      );
      return { pluginExit: 1, discovery: false, tokenCalls: [], prints: 'nothing', failure: 'x509' };
    }
    const calls: TokenCall[] = [];
    if (p.cache && p.cache.refreshToken !== 'none') {
      // authentication.go:105-112: refresh first; on failure fall through to the grant.
      if (p.cache.refreshToken === 'valid') {
        because.push(
          'expired token with a refresh token: refresh_token grant, Basic client auth first (oauth2 AuthStyleAutoDetect)',
        );
        return { pluginExit: 0, discovery: true, tokenCalls: ['refresh_token/basic:200'], prints: printed(p) };
      }
      // oauth2 internal/token.go:216-245: with auth-style auto-detect an error response is retried with the client in the body.
      calls.push('refresh_token/basic:400', 'refresh_token/body:400');
      because.push(
        'the refresh token is revoked: 400 invalid_grant, retried once with client_secret in the body (oauth2 auth-style probe), then the configured grant (authentication.go:111)',
      );
    } else if (p.cache) because.push('expired token, no refresh token: the configured grant again');
    else because.push('no cache entry for this key: the configured grant');
    if (p.clientSecretValid === false) {
      // 401 invalid_client: the password grant's auto-detect tries the body too; client-credentials is Basic only.
      calls.push(
        `${grantType(p.grant)}/basic:401`,
        ...(p.grant === 'password' ? [`${grantType(p.grant)}/body:401`] : []),
      );
      because.push('the client secret is wrong: 401 invalid_client, and the plugin exits 1 saying so');
      return { pluginExit: 1, discovery: true, tokenCalls: calls, prints: 'nothing', failure: 'invalid_client' };
    }
    // client-credentials sets AuthStyleInHeader (clientcredentials.go:45); the password grant auto-detects and Basic succeeds first.
    calls.push(`${grantType(p.grant)}/basic:200`);
    return { pluginExit: 0, discovery: true, tokenCalls: calls, prints: printed(p) };
  })();
  return { value, model: MODEL, because: because.join('; ') };
}

function printed(p: RunPlan): RunOutcome['prints'] {
  // client.go:69-101 and clientcredentials.go:52-57: --oidc-use-access-token prints the access_token in place of the id_token.
  return p.useAccessToken ? 'access_token' : 'id_token';
}

export interface TokenSeen {
  /** The token's aud and sub as the issuer made it (the lab: an id_token's aud is the client id, an access_token's the resource). */
  aud: string;
  sub: string;
  expMs: number;
}

/** `okStatus`: what the request answers once authenticated (201 for `auth whoami`'s SelfSubjectReview create, 200 for a GET). */
export type ApiServerAnswer = { status: number; username: string } | { status: 401 };

/** kube-apiserver's JWT authenticator (AuthenticationConfiguration jwt[].issuer.audiences, MatchAny): aud and exp decide. */
export function predictApiServer(
  t: TokenSeen | undefined,
  audiences: string[],
  nowMs: number,
  okStatus = 200,
): Prediction<ApiServerAnswer> {
  if (!t) return { value: { status: 401 }, model: MODEL, because: 'no token sent: the plugin printed nothing' };
  if (!audiences.includes(t.aud))
    return {
      value: { status: 401 },
      model: MODEL,
      because: `aud ${t.aud} is not among the authenticator's audiences [${audiences.join(', ')}]: 401`,
    };
  if (t.expMs < nowMs) return { value: { status: 401 }, model: MODEL, because: 'the token expired before it was sent' };
  return {
    value: { status: okStatus, username: jwtUsernameFor(t.sub) },
    model: MODEL,
    because: `aud ${t.aud} accepted; claimMappings.username = "oidc:" + sub`,
  };
}

/** A kubectl call through kubelogin: the plugin's run(s) and the API server's answer, together. */
export interface CallOutcome {
  status: number | 'no request';
  username?: string;
  tokenCalls: TokenCall[];
  prints: RunOutcome['prints'];
  failure?: string;
}

export function predictCall(
  run: RunPlan,
  token: TokenSeen | undefined,
  audiences: string[],
  okStatus = 200,
): Prediction<CallOutcome> {
  const r = predictRun(run);
  if (r.value.pluginExit !== 0)
    return {
      value: {
        status: 'no request',
        tokenCalls: r.value.tokenCalls,
        prints: 'nothing',
        ...(r.value.failure ? { failure: r.value.failure } : {}),
      },
      model: MODEL,
      because: `${r.because}; client-go fails the request when the plugin exits non-zero (KEP-541)`,
    };
  const a = predictApiServer(token, audiences, run.nowMs, okStatus);
  return {
    value: {
      status: a.value.status,
      ...('username' in a.value ? { username: a.value.username } : {}),
      tokenCalls: r.value.tokenCalls,
      prints: r.value.prints,
    },
    model: MODEL,
    because: `${r.because}; ${a.because}`,
  };
}

/** The token the plugin will print, as the lab's issuer makes it (oauth-token-endpoint.ts). */
export function expectedToken(o: {
  clientId: string;
  subject: string;
  useAccessToken?: boolean;
  accessTokenAudience: string;
  lifetimeSec: number;
  nowMs: number;
}): TokenSeen {
  return {
    aud: o.useAccessToken ? o.accessTokenAudience : o.clientId,
    sub: o.subject,
    expMs: o.nowMs + o.lifetimeSec * 1000,
  };
}

// ---- the session's users: the token each prints, the prediction for each call ----

/** The token `user` will print at `nowMs` (a fresh one from the lab's issuer). */
export function tokenFor(s: Session, user: UserName, nowMs: number) {
  const e = s.exec(user);
  const short = e.user === 'bob' || e.user === 'carol';
  return expectedToken({
    clientId: e.grant === 'password' ? s.lab.clients.user.id : s.lab.clients.robot.id,
    subject: s.lab.subjectOf(e),
    ...(e.useAccessToken ? { useAccessToken: true } : {}),
    accessTokenAudience: ACCESS_TOKEN_AUDIENCE,
    lifetimeSec: e.useAccessToken ? ACCESS_TOKEN_LIFETIME_SEC : short ? SHORT_ID_TOKEN_SEC : ID_TOKEN_LIFETIME_SEC,
    nowMs,
  });
}

export function predictFor(
  s: Session,
  user: UserName,
  nowMs: number,
  cache?: CacheState,
  okStatus = WHOAMI_STATUS,
): Prediction<CallOutcome> {
  const e = s.exec(user);
  return predictCall(
    {
      grant: e.grant,
      ...(e.useAccessToken ? { useAccessToken: true } : {}),
      issuerCaTrusted: e.ca !== 'other',
      ...(e.wrongSecret ? { clientSecretValid: false } : {}),
      ...(cache ? { cache } : {}),
      nowMs,
    },
    tokenFor(s, user, nowMs),
    s.lab.apiServerAudiences,
    okStatus,
  );
}
