// The claims of a service-account token worth keeping as evidence (in a fake
// cloud's request record, a recording wrapper's run): never the token itself.
import { decodeJwt, decodeProtectedHeader } from 'jose';

export interface TokenClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp?: number;
  iat?: number;
  kid?: string;
  pod?: string;
  serviceAccount?: string;
}

/** The token's claims and key id, or undefined for something that is not a JWT. */
export function claimsOf(token: string): TokenClaims | undefined {
  try {
    const c = decodeJwt(token) as Record<string, unknown>;
    const k8s = (c['kubernetes.io'] ?? {}) as { pod?: { name?: string }; serviceaccount?: { name?: string } };
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      kid = undefined;
    }
    return {
      ...(typeof c.iss === 'string' ? { iss: c.iss } : {}),
      ...(typeof c.sub === 'string' ? { sub: c.sub } : {}),
      ...(c.aud !== undefined ? { aud: c.aud as string | string[] } : {}),
      ...(typeof c.exp === 'number' ? { exp: c.exp } : {}),
      ...(typeof c.iat === 'number' ? { iat: c.iat } : {}),
      ...(kid ? { kid } : {}),
      ...(k8s.pod?.name ? { pod: k8s.pod.name } : {}),
      ...(k8s.serviceaccount?.name ? { serviceAccount: k8s.serviceaccount.name } : {}),
    };
  } catch {
    return undefined;
  }
}
