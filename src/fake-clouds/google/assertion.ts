// Google's rule for a service account's JWT bearer assertion (RFC 7523 §3, and
// Google's "Using OAuth 2.0 for server to server applications"): a JWS with alg
// RS256 and a kid naming a key of a service account it knows, verifying with that
// key's public half; iss is that account's email, aud this endpoint's URL (or
// Google's own), scope non-empty with every scope one it grants (or, for an ID
// token, a target_audience), iat not in the future (60 s leeway), exp after now
// and at most one hour after iat.
import type { KeyObject } from 'node:crypto';
import { compactVerify, decodeProtectedHeader } from 'jose';
import { Refusal } from '../kit/index.ts';

/** The audience Google's token endpoint accepts besides its own URL (google-auth, so gcloud, signs for it wherever it POSTs). */
export const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
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

/** What a record keeps of an assertion: its header and claims, never the assertion (a credential for its hour). */
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

/**
 * Verifies `assertion`, filling `seen` as it reads it (a refused assertion is recorded
 * as far as it was read); returns the account it stands for, or throws Google's refusal.
 */
export async function verifyAssertion(
  assertion: string,
  seen: AssertionSeen,
  o: {
    account: (keyId: string) => (FakeServiceAccount & { key: KeyObject }) | undefined;
    tokenUri: string;
    scopes: readonly string[];
    now: number;
  },
): Promise<FakeServiceAccount> {
  const invalid = (why: string, code = 'invalid_grant') => new Refusal(400, code, why);
  let header: AssertionSeen['header'];
  try {
    header = decodeProtectedHeader(assertion) as AssertionSeen['header'];
  } catch {
    throw invalid('Invalid JWT: the assertion is not a JWS');
  }
  seen.header = { alg: header.alg, kid: header.kid, typ: header.typ };
  if (header.alg !== 'RS256') throw invalid(`Invalid JWT: alg ${header.alg}, not RS256`);
  const account = header.kid ? o.account(header.kid) : undefined;
  if (!account) throw invalid(`Invalid JWT: no service account key ${header.kid ?? ''}`);
  let payload: Uint8Array;
  try {
    payload = (await compactVerify(assertion, account.key, { algorithms: ['RS256'] })).payload;
  } catch {
    throw invalid('Invalid JWT Signature.');
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
  if (c.iss !== account.email) throw invalid(`Invalid JWT: iss is not ${account.email}`);
  if (c.aud !== o.tokenUri && c.aud !== GOOGLE_TOKEN_AUDIENCE)
    throw invalid(`Invalid JWT: aud is neither ${o.tokenUri} nor ${GOOGLE_TOKEN_AUDIENCE}`);
  const scopes = (c.scope ?? '').split(' ').filter(Boolean);
  if (scopes.length === 0 && !c.target_audience)
    throw invalid('Invalid JWT: no scope and no target_audience', 'invalid_scope');
  const unknown = scopes.filter((s) => !o.scopes.includes(s));
  if (unknown.length) throw invalid(`Invalid scope: ${unknown.join(' ')}`, 'invalid_scope');
  if (typeof c.iat !== 'number' || typeof c.exp !== 'number') throw invalid('Invalid JWT: iat and exp are required');
  if (c.iat * 1000 > o.now + IAT_LEEWAY_MS) throw invalid('Invalid JWT: iat is in the future');
  if (c.exp * 1000 <= o.now) throw invalid('Invalid JWT: Token must be a short-lived token');
  if (c.exp - c.iat > MAX_ASSERTION_LIFETIME_S) throw invalid('Invalid JWT: exp is more than an hour after iat');
  return account;
}
