// A fake of Google's OAuth 2.0 token endpoint (oauth2.googleapis.com/token) on
// loopback, for the real gke-gcloud-auth-plugin: a service account's key file
// names it as token_uri, and the plugin's oauth2 library POSTs a JWT bearer
// assertion there (RFC 7523 §2.1; Google's "Using OAuth 2.0 for server to
// server applications"). The access tokens it answers are issued in a
// TokenBook, so credprov's token webhook accepts exactly those, until they
// expire or are revoked here.
//
// It is strict where Google is (RFC 7523 §3):
// - POST, form-encoded, grant_type urn:ietf:params:oauth:grant-type:jwt-bearer;
// - the assertion is a JWS with alg RS256 and a kid naming a key of a service
//   account it knows, and verifies with that key's public half;
// - iss is that account's email, aud is this endpoint's URL, scope is
//   non-empty and every scope is one it grants, iat is not in the future
//   (60 s leeway), exp is after now and at most one hour after iat.
// Every request is recorded (jsonl too) with the assertion's header and claims
// and the issued token's fingerprint: never the assertion (a credential for its
// hour) nor the access token.
import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compactVerify, decodeProtectedHeader, SignJWT } from 'jose';
import { TokenBook, tokenFingerprint } from '../../authn/token-book.ts';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The audience Google's token endpoint accepts besides its own URL (google-auth, so gcloud, signs for it wherever it POSTs). */
export const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
export const TOKEN_PATH = '/token';
/** How far in the future an iat may be, and the longest assertion Google accepts. */
export const IAT_LEEWAY_MS = 60_000;
export const MAX_ASSERTION_LIFETIME_S = 3600;

export interface FakeServiceAccount {
  email: string;
  keyId: string;
  /** PEM (SPKI) of the key's public half. */
  publicKeyPem: string;
  /** Who the webhook says the account's tokens belong to (TokenBook subject). */
  subject: string;
}

export interface AssertionSeen {
  header: { alg?: string; kid?: string; typ?: string };
  claims: {
    iss?: string;
    aud?: string;
    scope?: string;
    sub?: string;
    iat?: number;
    exp?: number;
    /** An ID token request (no scope): the audience the ID token is for. */
    target_audience?: string;
  };
}

export interface GoogleTokenRequest {
  seq: number;
  at: string;
  atMs: number;
  method: string;
  path: string;
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

class Refusal extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, description: string) {
    super(description);
    this.status = status;
    this.code = code;
  }
}

export async function startFakeGoogleOAuth(o: FakeGoogleOAuthOptions): Promise<FakeGoogleOAuth> {
  const now = o.now ?? Date.now;
  const lifetimeMs = o.tokenLifetimeMs ?? 3_600_000;
  const accounts = new Map<string, FakeServiceAccount & { key: KeyObject }>();
  const requests: GoogleTokenRequest[] = [];
  let tokenUri = '';
  // Google signs ID tokens with its own keys; this fake with one of its own, which nothing trusts.
  const idKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

  const verifyAssertion = async (assertion: string, seen: AssertionSeen) => {
    let header: AssertionSeen['header'];
    try {
      header = decodeProtectedHeader(assertion) as AssertionSeen['header'];
    } catch {
      throw new Refusal(400, 'invalid_grant', 'Invalid JWT: the assertion is not a JWS');
    }
    seen.header = { alg: header.alg, kid: header.kid, typ: header.typ };
    if (header.alg !== 'RS256') throw new Refusal(400, 'invalid_grant', `Invalid JWT: alg ${header.alg}, not RS256`);
    const account = header.kid ? accounts.get(header.kid) : undefined;
    if (!account) throw new Refusal(400, 'invalid_grant', `Invalid JWT: no service account key ${header.kid ?? ''}`);
    let payload: Uint8Array;
    try {
      payload = (await compactVerify(assertion, account.key, { algorithms: ['RS256'] })).payload;
    } catch {
      throw new Refusal(400, 'invalid_grant', 'Invalid JWT Signature.');
    }
    const c = JSON.parse(new TextDecoder().decode(payload)) as AssertionSeen['claims'];
    seen.claims = {
      iss: c.iss,
      aud: c.aud,
      scope: c.scope,
      sub: c.sub,
      iat: c.iat,
      exp: c.exp,
      ...(c.target_audience !== undefined ? { target_audience: c.target_audience } : {}),
    };
    if (c.iss !== account.email) throw new Refusal(400, 'invalid_grant', `Invalid JWT: iss is not ${account.email}`);
    if (c.aud !== tokenUri && c.aud !== GOOGLE_TOKEN_AUDIENCE)
      throw new Refusal(400, 'invalid_grant', `Invalid JWT: aud is neither ${tokenUri} nor ${GOOGLE_TOKEN_AUDIENCE}`);
    const scopes = (c.scope ?? '').split(' ').filter(Boolean);
    if (scopes.length === 0 && !c.target_audience)
      throw new Refusal(400, 'invalid_scope', 'Invalid JWT: no scope and no target_audience');
    const unknown = scopes.filter((s) => !o.scopes.includes(s));
    if (unknown.length) throw new Refusal(400, 'invalid_scope', `Invalid scope: ${unknown.join(' ')}`);
    const t = now();
    if (typeof c.iat !== 'number' || typeof c.exp !== 'number')
      throw new Refusal(400, 'invalid_grant', 'Invalid JWT: iat and exp are required');
    if (c.iat * 1000 > t + IAT_LEEWAY_MS) throw new Refusal(400, 'invalid_grant', 'Invalid JWT: iat is in the future');
    if (c.exp * 1000 <= t) throw new Refusal(400, 'invalid_grant', 'Invalid JWT: Token must be a short-lived token');
    if (c.exp - c.iat > MAX_ASSERTION_LIFETIME_S)
      throw new Refusal(400, 'invalid_grant', 'Invalid JWT: exp is more than an hour after iat');
    return account;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const at = now();
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const r: GoogleTokenRequest = {
      seq: requests.length + 1,
      at: new Date(at).toISOString(),
      atMs: at,
      method: req.method ?? '',
      path,
      status: 0,
    };
    const finish = (status: number, body: Record<string, unknown>) => {
      r.status = status;
      requests.push(r);
      if (o.requestLog) appendFileSync(o.requestLog, `${JSON.stringify(r)}\n`);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    try {
      if (path !== TOKEN_PATH) throw new Refusal(404, 'not_found', `no such endpoint ${path}; POST ${TOKEN_PATH}`);
      if (req.method !== 'POST') throw new Refusal(405, 'invalid_request', `${req.method} not allowed`);
      const type = String(req.headers['content-type'] ?? '');
      if (!type.startsWith('application/x-www-form-urlencoded'))
        throw new Refusal(400, 'invalid_request', `content-type ${type}, not application/x-www-form-urlencoded`);
      const form = new URLSearchParams(await readBody(req));
      r.grantType = form.get('grant_type') ?? undefined;
      if (r.grantType !== JWT_BEARER_GRANT)
        throw new Refusal(400, 'unsupported_grant_type', `grant_type must be ${JWT_BEARER_GRANT}`);
      const assertion = form.get('assertion');
      if (!assertion) throw new Refusal(400, 'invalid_request', 'no assertion');
      const seen: AssertionSeen = { header: {}, claims: {} };
      r.assertion = seen;
      const account = await verifyAssertion(assertion, seen);
      const audience = seen.claims.target_audience;
      if (audience && !seen.claims.scope) {
        const t = Math.floor(now() / 1000);
        const idToken = await new SignJWT({ email: account.email, email_verified: true, azp: account.email })
          .setProtectedHeader({ alg: 'RS256', kid: 'credprov-fake-google' })
          .setIssuer('https://accounts.google.com')
          .setAudience(audience)
          .setSubject(account.email)
          .setIssuedAt(t)
          .setExpirationTime(t + Math.round(lifetimeMs / 1000))
          .sign(idKey);
        o.onIdToken?.(idToken);
        r.idToken = { fingerprint: tokenFingerprint(idToken), audience };
        return finish(200, { id_token: idToken });
      }
      const t = o.book.issue(account.subject, { lifetimeMs });
      const expiresIn = Math.round(lifetimeMs / 1000);
      r.issued = {
        fingerprint: t.fingerprint,
        subject: account.subject,
        expiresIn,
        expiresAt: new Date(t.expiresAt ?? at + lifetimeMs).toISOString(),
      };
      finish(200, { access_token: t.token, expires_in: expiresIn, token_type: 'Bearer' });
    } catch (e) {
      const f = e instanceof Refusal ? e : new Refusal(500, 'internal_failure', (e as Error).message);
      r.error = `${f.code}: ${f.message}`;
      finish(f.status, { error: f.code, error_description: f.message });
    }
  };

  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: o.address ?? '127.0.0.1', port: o.port ?? 0 }, () => resolve());
  });
  const a = server.address() as AddressInfo;
  tokenUri = `http://${a.address}:${a.port}${TOKEN_PATH}`;
  let stopped: Promise<void> | undefined;
  return {
    tokenUri,
    addAccount(sa) {
      accounts.set(sa.keyId, { ...sa, key: createPublicKey(sa.publicKeyPem) });
    },
    revoke: (which) => o.book.revoke(which),
    requests: () => requests.map((x) => ({ ...x })),
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

async function readBody(req: IncomingMessage, limit = 1 << 16): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > limit) throw new Refusal(413, 'invalid_request', `body over ${limit} bytes`);
  }
  return body;
}
