// What the kubelet adds to a request when the provider has tokenAttributes
// (KEP-4412): a projected service account token bound to the pod, for the
// configured audience, and the service account's configured annotations.
// The token has the API server's claim shape, signed RS256 by a key minted
// for this run, so a plugin that parses or exchanges it sees the real thing
// (except the signature, which no cloud will trust; that is the point).
import { randomUUID } from 'node:crypto';
import { SignJWT, generateKeyPair } from 'jose';
import type { TokenAttributes } from '../../api/credentialprovider/types.ts';

export interface ServiceAccountIdentity {
  namespace: string;
  serviceAccount: string;
  pod: string;
  /** Annotation values sent for required and optional keys. */
  annotations: Record<string, string>;
}

export interface MintedServiceAccount {
  token: string;
  claims: Record<string, unknown>;
  annotations: Record<string, string>;
}

export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
const LIFETIME_SECONDS = 3600;

/** Annotations the kubelet would pass: every required key, and every optional key (as if present on the SA). */
export function annotationsFor(attrs: TokenAttributes, given: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of [
    ...(attrs.requiredServiceAccountAnnotationKeys ?? []),
    ...(attrs.optionalServiceAccountAnnotationKeys ?? []),
  ])
    out[key] = given[key] ?? `credprov-probe-value-for-${key.replace(/[^A-Za-z0-9.-]/g, '-')}`;
  return out;
}

export async function mintServiceAccountToken(
  attrs: TokenAttributes,
  identity: Partial<ServiceAccountIdentity> = {},
  now = new Date(),
): Promise<MintedServiceAccount> {
  const namespace = identity.namespace ?? 'credprov-probe';
  const serviceAccount = identity.serviceAccount ?? 'credprov-probe';
  const pod = identity.pod ?? 'credprov-probe';
  const iat = Math.floor(now.getTime() / 1000);
  const claims = {
    iss: DEFAULT_ISSUER,
    sub: `system:serviceaccount:${namespace}:${serviceAccount}`,
    aud: [attrs.serviceAccountTokenAudience],
    iat,
    nbf: iat,
    exp: iat + LIFETIME_SECONDS,
    jti: randomUUID(),
    'kubernetes.io': {
      namespace,
      node: { name: 'credprov-node', uid: randomUUID() },
      pod: { name: pod, uid: randomUUID() },
      serviceaccount: { name: serviceAccount, uid: randomUUID() },
    },
  };
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: `credprov-${randomUUID().slice(0, 8)}` })
    .sign(privateKey);
  return { token, claims, annotations: annotationsFor(attrs, identity.annotations) };
}
