// credprov's predictions for the vendor-gke cases, from the plugin's source
// (cited in src/plugin/vendors/gke-gcloud-auth-plugin.ts), RFC 7523 as the fake
// enforces it, and credprov's exec client and API server models. Pure: what
// the lab knows (key ids, emails, token_uri) and the times come in as arguments.
import { ApiServerAuthModel } from '../../src/model/apiserver-authn.ts';
import { clientSessionModel, type ModelWorld } from '../../src/model/exec-credential-cache.ts';
import { CLIENT_SESSION, plannedTimes, TOKEN_LIFETIME_MS, type SessionStep } from './plan.ts';
import {
  EXEC_PLUGIN_GROUP,
  GKE_PLUGIN_SOURCE,
  GKE_SCOPES,
  GKE_TOKEN_TRIES,
  JWT_BEARER_GRANT,
  MAX_ASSERTION_LIFETIME_S,
  TokenBook,
  usernameFor,
  type ClientName,
  type Prediction,
} from '../../src/run/kit.ts';

export const PLUGIN_MODEL = `${GKE_PLUGIN_SOURCE} + golang.org/x/oauth2 v0.23.0 (google, jwt, jws)`;
export const CLIENT_MODEL =
  'exec client models (src/model/exec-credential-cache.ts) + API server authn model (src/model/apiserver-authn.ts)';
/** jws/jws.go:58: iat is set 10 s back "for machines whose time is not perfectly in sync". */
export const IAT_BACKDATE_S = 10;

export interface Identity {
  username: string;
  groups: string[];
}

/** The webhook's user for the account's tokens, plus what kube-apiserver adds. */
export function predictWhoami(subject: string): Prediction<Identity> {
  return {
    value: { username: usernameFor(subject), groups: [EXEC_PLUGIN_GROUP, 'system:authenticated'] },
    model: `${PLUGIN_MODEL} + token webhook (src/authn/token-webhook.ts)`,
    because: `the fake issues the token to subject ${subject}; the webhook answers ${usernameFor(subject)} in ${EXEC_PLUGIN_GROUP}; kube-apiserver adds system:authenticated`,
  };
}

export const sameIdentity = (p: Identity, o: Identity): boolean =>
  p.username === o.username && [...p.groups].sort().join() === [...o.groups].sort().join();

export interface CallView {
  status: number | 'none';
  pluginRuns: number;
  tokenRequests: number;
}

/** One kubectl call as a known account: one plugin run, one JWT bearer grant, 200. */
export function predictAdcCall(): Prediction<CallView> {
  return {
    value: { status: 200, pluginRuns: 1, tokenRequests: 1 },
    model: PLUGIN_MODEL,
    because:
      'kubectl runs the plugin once; google.DefaultTokenSource reads GOOGLE_APPLICATION_CREDENTIALS (a service_account key) ' +
      "and makes one JWT bearer grant to its token_uri; the fake's token is in the webhook's book, so 200",
  };
}

export interface AssertionView {
  grantType?: string;
  alg?: string;
  typ?: string;
  kid?: string;
  iss?: string;
  aud?: string;
  scope?: string;
  /** exp − iat. */
  lifetimeS?: number;
  /** Receipt time − iat, whole seconds. */
  iatBackS?: number;
}

export function predictAssertion(k: { keyId: string; email: string; tokenUri: string }): Prediction<AssertionView> {
  return {
    value: {
      grantType: JWT_BEARER_GRANT,
      alg: 'RS256',
      typ: 'JWT',
      kid: k.keyId,
      iss: k.email,
      aud: k.tokenUri,
      scope: GKE_SCOPES.join(' '),
      lifetimeS: MAX_ASSERTION_LIFETIME_S,
      iatBackS: IAT_BACKDATE_S,
    },
    model: PLUGIN_MODEL,
    because:
      'jwt.Config from the key file (google.go:150-163: kid = private_key_id, iss = client_email, aud = token_uri), ' +
      'the ADC scopes (default_credentials_token_provider.go:17-19), jws.go:58-63: iat = now - 10s, exp = iat + 1h',
  };
}

/** The receipt is a moment after signing: iat lies 10 s back, or 11-12 on a loaded machine. */
export const assertionAgrees = (p: AssertionView, o: AssertionView): boolean =>
  (Object.keys(p) as Array<keyof AssertionView>).every((k) =>
    k === 'iatBackS'
      ? o.iatBackS !== undefined && o.iatBackS >= p.iatBackS! && o.iatBackS <= p.iatBackS! + 2
      : p[k] === o[k],
  );

/** expirationTimestamp − the fake's expiry, in seconds: 0 (metav1.Time writes whole seconds, so −1 … 0 observed). */
export function predictExpiryOffset(): Prediction<number> {
  return {
    value: 0,
    model: PLUGIN_MODEL,
    because:
      'jwt.go:167-168: Expiry = now + expires_in; cred.go:228-230 copies it into expirationTimestamp (RFC 3339, whole seconds)',
  };
}

export const expiryAgrees = (p: number, o: number): boolean => Math.abs(o - p) <= 1;

export interface NoCacheView {
  pluginRuns: number;
  tokenRequests: number;
  distinctTokens: number;
  cacheFiles: string[];
}

/** Two kubectl calls in a row. */
export function predictNoCache(): Prediction<NoCacheView> {
  return {
    value: { pluginRuns: 2, tokenRequests: 2, distinctTokens: 2, cacheFiles: [] },
    model: PLUGIN_MODEL,
    because:
      'kubectl keeps no credential between processes; the ADC provider says useCache() = false ' +
      '(default_credentials_token_provider.go:51), so accessToken() neither reads nor writes gke_gcloud_auth_plugin_cache ' +
      '(cred.go:239-261) and each run makes its own grant',
  };
}

export interface RefusalView {
  pluginExit: number | 'none';
  tokenRequests: number;
  endpointSaid: string;
  requestSent: boolean;
}

export const BAD_KEY_SAYS = 'Invalid JWT Signature.';
export const UNKNOWN_ACCOUNT_SAYS = 'no service account key';

export function predictRefusal(which: 'bad-key' | 'unknown'): Prediction<RefusalView> {
  const said = which === 'bad-key' ? BAD_KEY_SAYS : UNKNOWN_ACCOUNT_SAYS;
  return {
    value: { pluginExit: 1, tokenRequests: GKE_TOKEN_TRIES, endpointSaid: said, requestSent: false },
    model: `${PLUGIN_MODEL} + RFC 7523 §3 (the fake)`,
    because:
      `the fake refuses the assertion (${said}); the provider retries any error ${GKE_TOKEN_TRIES} times ` +
      '(retry.DefaultBackoff), then klog.Exit prints the oauth2 RetrieveError (with the endpoint’s body) and exits 1; ' +
      'client-go sends nothing without a credential',
  };
}

export interface RevokedView {
  before: number | 'none';
  after: number | 'none';
  freshToken: boolean;
  tokenRequestsAfter: number;
}

export function predictRevoked(): Prediction<RevokedView> {
  return {
    value: { before: 200, after: 200, freshToken: true, tokenRequestsAfter: 1 },
    model: `${PLUGIN_MODEL} + ${CLIENT_MODEL}`,
    because:
      'revocation reaches the API server once its 10 s success cache has passed; the next kubectl run makes a new grant ' +
      '(no cache in ADC mode), so it carries a token issued after the revocation',
  };
}

/**
 * A plugin whose runs answer `token(book, now)` (expiring an hour later), and an API server that
 * reviews with `book` on the model's clock (src/model/apiserver-authn.ts, success cache included).
 */
export function tokenWorld(token: (book: TokenBook, now: number) => string) {
  let clock = 0;
  const book = new TokenBook({ now: () => clock });
  const server = new ApiServerAuthModel({
    review: (t, now) => {
      clock = now;
      return book.lookup(t).verdict;
    },
    certValid: () => false,
  });
  const world: ModelWorld = {
    runPlugin(now) {
      clock = now;
      return { ok: true, credential: { token: token(book, now), expiresAt: now + TOKEN_LIFETIME_MS } };
    },
    serve: (now, presented) => server.serve(now, presented).status,
  };
  return { world, book, setClock: (t: number) => (clock = t) };
}

export interface SessionView {
  /** Per request: `<status>/<plugin runs during it>`. */
  requests: string[];
  /** JWT bearer grants the fake answered during the session. */
  tokenRequests: number;
}

/** A client's session (plan.ts) at `times`, through the client model and the API server model. */
export function predictClientSession(
  client: ClientName,
  times: number[] = plannedTimes(),
  steps: readonly SessionStep[] = CLIENT_SESSION,
): { view: SessionView; because: string[] } {
  let grants = 0;
  const { world, book, setClock } = tokenWorld((b) => {
    grants++;
    return b.issue('session', { lifetimeMs: TOKEN_LIFETIME_MS }).token;
  });
  const session = clientSessionModel(client, world);
  const requests: string[] = [];
  const because: string[] = [];
  steps.forEach((s, i) => {
    const at = times[i] ?? 0;
    if (s.do === 'revoke') {
      setClock(at);
      book.revoke({ subject: 'session' });
      because.push(`+${(at / 1000).toFixed(1)}s the fake revokes every token of the account`);
      return;
    }
    const r = session.request(at);
    requests.push(`${r.status ?? 'error'}/${r.runs}`);
    because.push(`+${(at / 1000).toFixed(1)}s ${r.because}`);
  });
  return { view: { requests, tokenRequests: grants }, because };
}

export interface V1UserView {
  answered: string;
  kubectlRefused: boolean;
  requestSent: boolean;
}

export const VERSION_MISMATCH_SAYS = 'plugin returned version';

/** A v1 user: the plugin's source writes v1beta1 whatever it is asked, and client-go refuses that. */
export function predictV1User(): Prediction<V1UserView> {
  return {
    value: { answered: 'client.authentication.k8s.io/v1beta1', kubectlRefused: true, requestSent: false },
    model: `${PLUGIN_MODEL} + client-go exec.go`,
    because:
      'cred.go:191-195 fixes APIVersion to v1beta1 and never reads KUBERNETES_EXEC_INFO; client-go exec.go:482-485 ' +
      `refuses an answer in another version ("${VERSION_MISMATCH_SAYS} …") and sends nothing`,
  };
}
