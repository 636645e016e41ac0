// Checks fake clouds share, as pluggable rules: each says what it established
// about the caller, or why not, and the cloud turns a "why not" into its own
// refusal (its status, code and wording). Signature schemes that belong to one
// cloud (AWS SigV4, a Google service-account assertion) live with that cloud.
import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';

/** An OIDC issuer a cloud trusts (an IAM OIDC provider, a federated identity credential's issuer). */
export interface OidcTrust {
  /** The discovery document's issuer: a token's iss must equal it. */
  issuer: string;
  jwks: JSONWebKeySet;
}

export type JwtVerdict =
  | { ok: true; payload: JWTPayload }
  /**
   * untrusted: no issuer is trusted yet; expired: exp is past; issuer: iss is not the trusted
   * issuer; invalid: anything else (signature, algorithm, form). `error` is jose's own error.
   */
  | { ok: false; failure: 'untrusted' | 'expired' | 'issuer' | 'invalid'; error?: Error };

/** A JWT rule: verifies tokens (RS256 by default) against the trusted issuer's keys, at the fake's time. */
export class TrustedIssuer {
  private trust: OidcTrust | undefined;
  private keys: ReturnType<typeof createLocalJWKSet> | undefined;

  constructor(trust?: OidcTrust) {
    if (trust) this.set(trust);
  }

  /** Trusts this issuer's keys from now on (once the cluster that issues the tokens is up). */
  set(trust: OidcTrust): void {
    this.trust = trust;
    this.keys = createLocalJWKSet(trust.jwks);
  }

  get issuer(): string | undefined {
    return this.trust?.issuer;
  }

  async verify(token: string, o: { now?: number; algorithms?: string[] } = {}): Promise<JwtVerdict> {
    if (!this.trust || !this.keys) return { ok: false, failure: 'untrusted' };
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.trust.issuer,
        algorithms: o.algorithms ?? ['RS256'],
        ...(o.now !== undefined ? { currentDate: new Date(o.now) } : {}),
      });
      return { ok: true, payload };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      if (err instanceof joseErrors.JWTExpired) return { ok: false, failure: 'expired', error };
      if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'iss')
        return { ok: false, failure: 'issuer', error };
      return { ok: false, failure: 'invalid', error };
    }
  }
}

/** A token's audience claim as a list. */
export function audiences(payload: JWTPayload): string[] {
  return [payload.aud ?? []].flat();
}

/**
 * Opaque bearer tokens a fake issued, and what each was issued for: a later call
 * that presents one is recognised (an access token at an exchange), anything else is not.
 */
export class IssuedTokens<G> {
  private readonly grants = new Map<string, G>();
  private readonly onSecret: ((token: string) => void) | undefined;

  /** `onSecret` hears every token before it leaves (a redactor's add). */
  constructor(o: { onSecret?: (token: string) => void } = {}) {
    this.onSecret = o.onSecret;
  }

  issue(grant: G): string {
    const token = randomBytes(24).toString('base64url');
    this.onSecret?.(token);
    this.grants.set(token, grant);
    return token;
  }

  /** What `token` was issued for, or undefined for a token this fake never issued. */
  lookup(token: string): G | undefined {
    return this.grants.get(token);
  }
}
