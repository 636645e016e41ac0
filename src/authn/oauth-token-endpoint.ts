// An OAuth 2.0 token endpoint (RFC 6749 §3.2) for credprov's OIDC issuer, so a
// real OIDC client (kubelogin) can log in: the password grant (§4.3), the
// client-credentials grant (§4.4) and the refresh_token grant (§6), with
// revocation. It checks what it receives: client authentication (HTTP Basic,
// §2.3.1, or client_id/client_secret in the body; never both, §2.3), that the
// client may use the grant, the user's password, that a refresh token is known,
// not revoked and bound to the presenting client (§6, §10.4). It answers an
// id_token whose aud is the client id (OIDC Core §2) and an access_token whose
// aud is the resource's, both JWTs signed by the issuer's key. Every request is
// recorded without secrets: tokens only as sha256 fingerprints, no password.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { tokenFingerprint } from './token-book.ts';

export const TOKEN_PATH = '/token';
export type GrantType = 'password' | 'client_credentials' | 'refresh_token';
export const GRANT_TYPES: readonly GrantType[] = ['password', 'client_credentials', 'refresh_token'];

export interface OAuthClient {
  id: string;
  secret: string;
  grants: GrantType[];
}

export interface OAuthUser {
  username: string;
  password: string;
  /** The id_token's lifetime for this user (seconds); the endpoint's default otherwise. */
  idTokenLifetimeSec?: number;
}

export interface TokenEndpointOptions {
  clients: OAuthClient[];
  users: OAuthUser[];
  /** The access_token's aud: the resource server's, not the client's. */
  accessTokenAudience: string;
  idTokenLifetimeSec: number;
  accessTokenLifetimeSec: number;
  /** Signs a JWT with the issuer's current key. */
  sign(o: { subject: string; audience: string; exp: number }): Promise<string>;
  /** Called with every secret the endpoint makes (tokens), before it answers. */
  onSecret?(secret: string): void;
  now?: () => number;
}

export interface TokenRequestRecord {
  seq: number;
  at: string;
  atMs: number;
  grantType: string;
  clientId?: string;
  clientAuth: 'basic' | 'body' | 'both' | 'none';
  username?: string;
  scope?: string;
  /** The refresh token presented, as a fingerprint (key names avoid the redactor's credential-name rule: these are no secrets). */
  refreshTokenSha256?: string;
  status: number;
  error?: string;
  /** What was issued, as fingerprints (and the id_token's exp, seconds). */
  issued?: {
    idTokenSha256?: string;
    accessTokenSha256: string;
    refreshTokenSha256?: string;
    idTokenExp?: number;
    subject: string;
  };
}

interface RefreshGrant {
  clientId: string;
  subject: string;
  username?: string;
  revoked: boolean;
}

/** What client-credentials tokens name as their subject (sub): the client itself. */
export const clientSubject = (clientId: string): string => `client:${clientId}`;

export class TokenEndpoint {
  private readonly o: TokenEndpointOptions;
  private readonly records: TokenRequestRecord[] = [];
  private readonly refresh = new Map<string, RefreshGrant>();

  constructor(o: TokenEndpointOptions) {
    this.o = o;
  }

  requests(): TokenRequestRecord[] {
    return this.records.map((r) => ({ ...r }));
  }

  /** Revokes every refresh token issued for `subject` (or all); returns how many. */
  revokeRefreshTokens(subject?: string): number {
    let n = 0;
    for (const g of this.refresh.values())
      if (!g.revoked && (subject === undefined || g.subject === subject)) {
        g.revoked = true;
        n++;
      }
    return n;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const now = (this.o.now ?? Date.now)();
    const rec: TokenRequestRecord = {
      seq: this.records.length + 1,
      at: new Date(now).toISOString(),
      atMs: now,
      grantType: '',
      clientAuth: 'none',
      status: 0,
    };
    this.records.push(rec);
    const fail = (status: number, error: string, description: string) => {
      rec.status = status;
      rec.error = `${error}: ${description}`;
      const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store' };
      // §5.2: a 401 for a client that tried HTTP Basic MUST carry WWW-Authenticate.
      if (status === 401) headers['www-authenticate'] = 'Basic realm="credprov"';
      res.writeHead(status, headers);
      res.end(JSON.stringify({ error, error_description: description }));
    };
    if (req.method !== 'POST') return fail(405, 'invalid_request', `${req.method} not allowed; POST ${TOKEN_PATH}`);
    const ctype = String(req.headers['content-type'] ?? '');
    if (!ctype.startsWith('application/x-www-form-urlencoded'))
      return fail(
        400,
        'invalid_request',
        `content-type ${ctype || '(none)'}; §4.3.2 requires application/x-www-form-urlencoded`,
      );
    const form = new URLSearchParams(await readBody(req));
    rec.grantType = form.get('grant_type') ?? '';
    const scope = form.get('scope');
    if (scope !== null) rec.scope = scope;

    const basic = parseBasic(req.headers.authorization);
    const bodyId = form.get('client_id');
    const bodySecret = form.get('client_secret');
    rec.clientAuth = basic && bodySecret !== null ? 'both' : basic ? 'basic' : bodySecret !== null ? 'body' : 'none';
    const clientId = basic?.id ?? bodyId ?? undefined;
    if (clientId) rec.clientId = clientId;
    if (rec.clientAuth === 'both')
      return fail(400, 'invalid_request', 'client authenticated twice (Basic and body); §2.3 allows one method');
    const client = this.o.clients.find((c) => c.id === clientId);
    const secret = basic?.secret ?? bodySecret;
    if (!client || secret !== client.secret)
      return fail(401, 'invalid_client', `client ${clientId ?? '(none)'} unknown or wrong secret`);

    if (!GRANT_TYPES.includes(rec.grantType as GrantType))
      return fail(400, 'unsupported_grant_type', `grant_type ${rec.grantType || '(none)'}`);
    const grant = rec.grantType as GrantType;
    if (!client.grants.includes(grant))
      return fail(400, 'unauthorized_client', `client ${client.id} may not use ${grant}`);

    let subject: string;
    let user: OAuthUser | undefined;
    if (grant === 'password') {
      const username = form.get('username') ?? '';
      rec.username = username;
      user = this.o.users.find((u) => u.username === username);
      if (!user || form.get('password') !== user.password)
        return fail(400, 'invalid_grant', `wrong username or password for '${username}'`);
      subject = user.username;
    } else if (grant === 'client_credentials') {
      subject = clientSubject(client.id);
    } else {
      const presented = form.get('refresh_token') ?? '';
      rec.refreshTokenSha256 = tokenFingerprint(presented);
      const g = this.refresh.get(presented);
      if (!g) return fail(400, 'invalid_grant', 'unknown refresh token');
      if (g.revoked) return fail(400, 'invalid_grant', 'refresh token revoked');
      if (g.clientId !== client.id) return fail(400, 'invalid_grant', `refresh token was issued to ${g.clientId}`);
      subject = g.subject;
      user = this.o.users.find((u) => u.username === g.username);
      if (g.username) rec.username = g.username;
    }

    const nowSec = Math.floor(now / 1000);
    const idLifetime = user?.idTokenLifetimeSec ?? this.o.idTokenLifetimeSec;
    const wantsIdToken = (scope ?? '').split(' ').includes('openid') || grant === 'refresh_token';
    const accessToken = await this.o.sign({
      subject,
      audience: this.o.accessTokenAudience,
      exp: nowSec + this.o.accessTokenLifetimeSec,
    });
    const idToken = wantsIdToken
      ? await this.o.sign({ subject, audience: client.id, exp: nowSec + idLifetime })
      : undefined;
    // §4.4.3: no refresh token for client credentials; a refresh keeps the one presented (§6: a new one is optional).
    const refreshToken = grant === 'password' ? `rt-${randomBytes(24).toString('base64url')}` : undefined;
    for (const s of [accessToken, idToken, refreshToken]) if (s) this.o.onSecret?.(s);
    if (refreshToken)
      this.refresh.set(refreshToken, { clientId: client.id, subject, username: user!.username, revoked: false });
    rec.status = 200;
    rec.issued = {
      subject,
      accessTokenSha256: tokenFingerprint(accessToken),
      ...(idToken ? { idTokenSha256: tokenFingerprint(idToken), idTokenExp: nowSec + idLifetime } : {}),
      ...(refreshToken ? { refreshTokenSha256: tokenFingerprint(refreshToken) } : {}),
    };
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache' });
    res.end(
      JSON.stringify({
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: this.o.accessTokenLifetimeSec,
        ...(idToken ? { id_token: idToken } : {}),
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
        ...(scope ? { scope } : {}),
      }),
    );
  }
}

function parseBasic(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!m) return undefined;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = text.indexOf(':');
  if (i < 0) return undefined;
  // §2.3.1: both halves are form-urlencoded before Basic encoding.
  const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  return { id: dec(text.slice(0, i)), secret: dec(text.slice(i + 1)) };
}

function readBody(req: IncomingMessage, limit = 64 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
      if (body.length > limit) req.destroy(new Error('token request body too large'));
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}
