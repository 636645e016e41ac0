// credprov's OIDC issuer on loopback HTTPS: what kube-apiserver's structured
// JWT authenticator (--authentication-config, jwt[].issuer) discovers and
// fetches keys from. It listens on the environment's token-webhook address
// with the webhook's CA and serving certificate (webhook-files.ts), so the
// API server reaches it at the same URL run after run. Signing keys live in
// memory only: a new run has new kids, which the API server does not know,
// and an unknown kid is what makes it refetch the JWKS (go-oidc's
// remoteKeySet.verify; src/model/apiserver-authn.ts). Keys can be added and
// removed in process; every discovery and JWKS fetch is recorded (time, kids
// served) as evidence. Tokens are returned to the caller, never logged.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { type Logger, noopLogger } from '../core/logger.ts';
import { GRANT_TYPES, TOKEN_PATH, TokenEndpoint, type TokenEndpointOptions } from './oauth-token-endpoint.ts';

export const DISCOVERY_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/jwks';
const ALG = 'ES256';

export interface Fetch {
  at: string;
  /** ms since epoch, for arithmetic. */
  atMs: number;
  what: 'discovery' | 'jwks';
  /** The kids the JWKS answer carried (jwks fetches only). */
  kids?: string[];
}

export interface SignOptions {
  subject: string;
  /** Seconds since epoch; defaults to an hour from now. */
  exp?: number;
  /** Defaults to now (seconds). */
  iat?: number;
  nbf?: number;
  /** Defaults to the issuer's first audience. */
  audience?: string;
  /** Sign with this key (it may already be out of the JWKS); defaults to the current key. */
  kid?: string;
}

export interface OidcIssuerOptions {
  address: string;
  port: number;
  /** PEM files of the serving certificate (its SANs must name `address`). */
  certFile: string;
  keyFile: string;
  audiences: string[];
  log?: Logger;
  /** Also serve an OAuth2 token endpoint (oauth-token-endpoint.ts) whose tokens this issuer signs. */
  token?: Omit<TokenEndpointOptions, 'sign'>;
}

export interface StartedOidcIssuer {
  /** https://address:port: the `iss` of every token and the discovery document's issuer. */
  url: string;
  audiences: string[];
  /** The key new tokens are signed with (the last one added). */
  currentKid(): string;
  /** Kids the JWKS serves now. */
  servedKids(): string[];
  /** A new key, served from now on and signing new tokens. */
  addKey(): Promise<string>;
  /** Stop serving a key; it can still sign (to present a token from a removed key). */
  removeKey(kid: string): void;
  sign(o: SignOptions): Promise<string>;
  fetches(): Fetch[];
  /** The token endpoint, when the options asked for one. */
  tokenEndpoint?: TokenEndpoint;
  stop(): Promise<void>;
}

interface Key {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  served: boolean;
}

export async function startOidcIssuer(o: OidcIssuerOptions): Promise<StartedOidcIssuer> {
  if (o.audiences.length === 0) throw new Error('oidc issuer: at least one audience');
  const log = (o.log ?? noopLogger).child('oidc-issuer');
  const url = `https://${o.address}:${o.port}`;
  const keys: Key[] = [];
  const fetches: Fetch[] = [];
  let current = '';

  const addKey = async (): Promise<string> => {
    const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true });
    // Random per key: a key of an earlier run never shares a kid with one of this run.
    const kid = `cp-${randomBytes(6).toString('hex')}`;
    keys.push({
      kid,
      privateKey,
      publicJwk: { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' },
      served: true,
    });
    current = kid;
    return kid;
  };
  await addKey();

  const servedKeys = () => keys.filter((k) => k.served);
  const record = (f: Omit<Fetch, 'at' | 'atMs'>) => {
    const at = Date.now();
    fetches.push({ at: new Date(at).toISOString(), atMs: at, ...f });
  };

  const sign = async (s: SignOptions): Promise<string> => {
    const kid = s.kid ?? current;
    const k = keys.find((x) => x.kid === kid);
    if (!k) throw new Error(`oidc issuer: no key ${kid}`);
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({})
      .setProtectedHeader({ alg: ALG, kid, typ: 'JWT' })
      .setIssuer(url)
      .setAudience(s.audience ?? o.audiences[0]!)
      .setSubject(s.subject)
      .setIssuedAt(s.iat ?? now)
      .setNotBefore(s.nbf ?? s.iat ?? now)
      .setExpirationTime(s.exp ?? now + 3600)
      .setJti(randomBytes(8).toString('hex'))
      .sign(k.privateKey);
  };
  const tokenEndpoint = o.token ? new TokenEndpoint({ ...o.token, sign }) : undefined;

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = new URL(req.url ?? '/', url).pathname;
    if (path === TOKEN_PATH && tokenEndpoint) {
      tokenEndpoint.handle(req, res).catch((e: unknown) => {
        log.warn(`token endpoint: ${(e as Error).message}`);
        if (!res.headersSent) reply(res, 500, { error: 'server_error' });
      });
      return;
    }
    if (req.method !== 'GET')
      return reply(res, 405, { error: `${req.method} not allowed; GET ${DISCOVERY_PATH} or ${JWKS_PATH}` });
    if (path === DISCOVERY_PATH) {
      record({ what: 'discovery' });
      return reply(res, 200, {
        issuer: url,
        jwks_uri: `${url}${JWKS_PATH}`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: [ALG],
        ...(tokenEndpoint
          ? {
              token_endpoint: `${url}${TOKEN_PATH}`,
              grant_types_supported: [...GRANT_TYPES],
              token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
              scopes_supported: ['openid'],
            }
          : {}),
      });
    }
    if (path === JWKS_PATH) {
      const served = servedKeys();
      record({ what: 'jwks', kids: served.map((k) => k.kid) });
      // No Cache-Control: go-oidc then treats the keys as expiring at fetch time (remoteKeySet.updateKeys), the case the model reads.
      return reply(res, 200, { keys: served.map((k) => k.publicJwk) });
    }
    return reply(res, 404, { error: `no such endpoint ${path}; GET ${DISCOVERY_PATH} or ${JWKS_PATH}` });
  };

  const [cert, key] = await Promise.all([readFile(o.certFile), readFile(o.keyFile)]);
  const server: Server = createServer({ cert, key }, handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new Error(
              `oidc issuer: ${o.address}:${o.port} is in use (an issuer of this environment left running by another credprov process?)`,
            )
          : e,
      ),
    );
    server.listen({ host: o.address, port: o.port, exclusive: true }, () => resolve());
  });
  log.debug(`listening on ${url}`);
  let stopped: Promise<void> | undefined;
  return {
    url,
    audiences: [...o.audiences],
    currentKid: () => current,
    servedKids: () => servedKeys().map((k) => k.kid),
    addKey,
    removeKey(kid) {
      const k = keys.find((x) => x.kid === kid);
      if (!k) throw new Error(`oidc issuer: no key ${kid}`);
      k.served = false;
    },
    sign,
    fetches: () => fetches.map((f) => ({ ...f, ...(f.kids ? { kids: [...f.kids] } : {}) })),
    ...(tokenEndpoint ? { tokenEndpoint } : {}),
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
