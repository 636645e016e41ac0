// Access tokens as Entra ID mints them for an API whose app accepts v2.0
// tokens (accessTokenAcceptedVersion 2): RS256 JWTs with a kid the tenant's
// JWKS (https://login.microsoftonline.com/<tenant>/discovery/v2.0/keys)
// names; iss https://login.microsoftonline.com/<tenant>/v2.0, aud the API's
// client id, tid the tenant, oid and sub the caller's object id, azp the client
// that asked, and for a user its preferred_username (Microsoft identity
// platform: "Access token claims reference"). What a kube-apiserver's JWT
// authenticator verifies through the tenant's OpenID configuration.
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JSONWebKeySet } from 'jose';

export const AAD_HOST = 'login.microsoftonline.com';

export const entraIssuer = (tenant: string): string => `https://${AAD_HOST}/${tenant}/v2.0`;
export const entraJwksUri = (tenant: string): string => `https://${AAD_HOST}/${tenant}/discovery/v2.0/keys`;

/** Who a token is for and about. */
export interface EntraSubject {
  tenant: string;
  /** The API's client id (the token's aud). */
  audience: string;
  /** The caller's object id (a service principal's, a managed identity's or a user's). */
  objectId: string;
  /** The client application that asked (azp). */
  clientId: string;
  /** A user's sign-in name. */
  username?: string;
}

export class EntraTokenSigner {
  private readonly key: CryptoKey;
  readonly kid: string;
  readonly jwks: JSONWebKeySet;
  private readonly now: () => number;

  private constructor(key: CryptoKey, kid: string, jwks: JSONWebKeySet, now: () => number) {
    this.key = key;
    this.kid = kid;
    this.jwks = jwks;
    this.now = now;
  }

  static async create(o: { now?: () => number } = {}): Promise<EntraTokenSigner> {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const kid = randomUUID();
    const jwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
    return new EntraTokenSigner(privateKey, kid, { keys: [jwk] }, o.now ?? Date.now);
  }

  /** A v2.0 access token for `s`, living `lifetimeS`. */
  async mint(s: EntraSubject, lifetimeS: number): Promise<{ token: string; expiresAt: number }> {
    const iat = Math.floor(this.now() / 1000);
    const token = await new SignJWT({
      tid: s.tenant,
      oid: s.objectId,
      azp: s.clientId,
      azpacr: '1',
      ver: '2.0',
      ...(s.username ? { preferred_username: s.username, name: s.username } : {}),
      uti: randomUUID(),
    })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: this.kid })
      .setIssuer(entraIssuer(s.tenant))
      .setAudience(s.audience)
      .setSubject(s.objectId)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(iat + lifetimeS)
      .sign(this.key);
    return { token, expiresAt: (iat + lifetimeS) * 1000 };
  }

  /** An id_token for a user sign-in (ROPC), audience the public client. */
  async idToken(s: EntraSubject, lifetimeS: number): Promise<string> {
    const iat = Math.floor(this.now() / 1000);
    return new SignJWT({ tid: s.tenant, oid: s.objectId, preferred_username: s.username, ver: '2.0' })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: this.kid })
      .setIssuer(entraIssuer(s.tenant))
      .setAudience(s.clientId)
      .setSubject(s.objectId)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(iat + lifetimeS)
      .sign(this.key);
  }
}
