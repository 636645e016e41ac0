// A fake of Google's OAuth 2.0 token endpoint (oauth2.googleapis.com/token) on
// loopback, for the real gke-gcloud-auth-plugin: a service account's key file
// names it as token_uri, and the plugin's oauth2 library POSTs a JWT bearer
// assertion there (RFC 7523 §2.1), which it checks as Google does (assertion.ts).
// The access tokens it answers are issued in a TokenBook, so credprov's token
// webhook accepts exactly those, until they expire or are revoked here. Every
// request is recorded (jsonl too) with the assertion's header and claims and the
// issued token's fingerprint: never the assertion nor the access token.
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { FakeCloud, jsonReply, oauthRefusal, Refusal, type Endpoint, type Reply } from '../kit/index.ts';
import { type TokenBook, tokenFingerprint } from '../../authn/token-book.ts';
import { verifyAssertion, type AssertionSeen, type FakeServiceAccount } from './assertion.ts';

export {
  GOOGLE_TOKEN_AUDIENCE,
  IAT_LEEWAY_MS,
  MAX_ASSERTION_LIFETIME_S,
  type AssertionSeen,
  type FakeServiceAccount,
} from './assertion.ts';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const TOKEN_PATH = '/token';

export interface GoogleTokenRequest {
  seq: number;
  time: string;
  at: string;
  atMs: number;
  method: string;
  path: string;
  userAgent?: string;
  grantType?: string;
  assertion?: AssertionSeen;
  status: number;
  /** The OAuth error code and description when refused. */
  error?: string;
  issued?: { fingerprint: string; subject: string; expiresIn: number; expiresAt: string };
  /** An ID token answered instead (a target_audience grant); nothing accepts it, it only satisfies gcloud. */
  idToken?: { fingerprint: string; audience: string };
}

export interface FakeGoogleOAuthOptions {
  /** Loopback address to listen on (default 127.0.0.1), port 0 = any. */
  address?: string;
  port?: number;
  book: TokenBook;
  /** How long an issued access token lives (expires_in); Google's are an hour. */
  tokenLifetimeMs?: number;
  scopes: readonly string[];
  requestLog?: string;
  now?: () => number;
  /** Called with every ID token it signs (register it with the redactor); access tokens go through the book. */
  onIdToken?: (token: string) => void;
}

export interface FakeGoogleOAuth {
  /** http://address:port/token: what a key file's token_uri names. */
  tokenUri: string;
  addAccount(sa: FakeServiceAccount): void;
  /** Revokes tokens server-side (as https://oauth2.googleapis.com/revoke does); returns the fingerprints. */
  revoke(which: { subject?: string; fingerprint?: string }): string[];
  requests(): GoogleTokenRequest[];
  stop(): Promise<void>;
}

export async function startFakeGoogleOAuth(o: FakeGoogleOAuthOptions): Promise<FakeGoogleOAuth> {
  const cloud = new FakeCloud<GoogleTokenRequest>({
    name: 'Google OAuth',
    ...(o.requestLog ? { logFile: o.requestLog } : {}),
    ...(o.now ? { clock: o.now } : {}),
    errorOf: (r) => `${r.code}: ${r.message}`,
  });
  const now = cloud.now;
  const lifetimeMs = o.tokenLifetimeMs ?? 3_600_000;
  const accounts = new Map<string, FakeServiceAccount & { key: KeyObject }>();
  let tokenUri = '';
  // Google signs ID tokens with its own keys; this fake with one of its own, which nothing trusts.
  const idKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

  const idToken = async (account: FakeServiceAccount, audience: string): Promise<string> => {
    const t = Math.floor(now() / 1000);
    const token = await new SignJWT({ email: account.email, email_verified: true, azp: account.email })
      .setProtectedHeader({ alg: 'RS256', kid: 'credprov-fake-google' })
      .setIssuer('https://accounts.google.com')
      .setAudience(audience)
      .setSubject(account.email)
      .setIssuedAt(t)
      .setExpirationTime(t + Math.round(lifetimeMs / 1000))
      .sign(idKey);
    o.onIdToken?.(token);
    return token;
  };

  const tokenEndpoint: Endpoint<GoogleTokenRequest> = {
    record: () => {
      const at = now();
      return { at: new Date(at).toISOString(), atMs: at };
    },
    refuse: (r, req) => withCharset(oauthRefusal(r, req)),
    maxBody: { bytes: 1 << 16, code: 'invalid_request' },
    async answer(req, note): Promise<Reply> {
      const path = req.url.pathname;
      if (path !== TOKEN_PATH) throw new Refusal(404, 'not_found', `no such endpoint ${path}; POST ${TOKEN_PATH}`);
      if (req.method !== 'POST') throw new Refusal(405, 'invalid_request', `${req.method} not allowed`);
      const type = req.header('content-type') ?? '';
      if (!type.startsWith('application/x-www-form-urlencoded'))
        throw new Refusal(400, 'invalid_request', `content-type ${type}, not application/x-www-form-urlencoded`);
      const form = req.form();
      const grantType = form.get('grant_type') ?? undefined;
      note({ ...(grantType !== undefined ? { grantType } : {}) });
      if (grantType !== JWT_BEARER_GRANT)
        throw new Refusal(400, 'unsupported_grant_type', `grant_type must be ${JWT_BEARER_GRANT}`);
      const assertion = form.get('assertion');
      if (!assertion) throw new Refusal(400, 'invalid_request', 'no assertion');
      const seen: AssertionSeen = { header: {}, claims: {} };
      note({ assertion: seen });
      const account = await verifyAssertion(assertion, seen, {
        account: (kid) => accounts.get(kid),
        tokenUri,
        scopes: o.scopes,
        now: now(),
      });
      const audience = seen.claims.target_audience;
      if (audience && !seen.claims.scope) {
        const token = await idToken(account, audience);
        note({ idToken: { fingerprint: tokenFingerprint(token), audience } });
        return withCharset(jsonReply(200, { id_token: token }));
      }
      const t = o.book.issue(account.subject, { lifetimeMs });
      const expiresIn = Math.round(lifetimeMs / 1000);
      note({
        issued: {
          fingerprint: t.fingerprint,
          subject: account.subject,
          expiresIn,
          expiresAt: new Date(t.expiresAt ?? now() + lifetimeMs).toISOString(),
        },
      });
      return withCharset(jsonReply(200, { access_token: t.token, expires_in: expiresIn, token_type: 'Bearer' }));
    },
  };

  const at = await cloud.listen(tokenEndpoint, { address: o.address ?? '127.0.0.1', port: o.port ?? 0 });
  tokenUri = `${at.url}${TOKEN_PATH}`;
  let stopped: Promise<void> | undefined;
  return {
    tokenUri,
    addAccount(sa) {
      accounts.set(sa.keyId, { ...sa, key: createPublicKey(sa.publicKeyPem) });
    },
    revoke: (which) => o.book.revoke(which),
    requests: () => cloud.requests(),
    stop() {
      stopped ??= cloud.stop();
      return stopped;
    },
  };
}

/** Google answers JSON with a charset. */
function withCharset(r: Reply): Reply {
  return { ...r, headers: { ...r.headers, 'content-type': 'application/json; charset=utf-8' } };
}

export {
  FakeGce,
  GOOGLE_REGISTRY_USERNAMES,
  METADATA_PREFIX,
  type FakeGceEndpoints,
  type FakeGceOptions,
  type LoginVerdict,
  type MetadataGrant,
  type MetadataRecord,
  type RegistryLogin,
} from './gce.ts';
