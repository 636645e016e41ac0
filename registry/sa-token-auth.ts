// Token exchange for the registry's token server (KEP-4412's point: a
// credential plugin hands a pod-bound service-account token to a registry,
// which trusts the cluster's issuer instead of a stored password). A password
// grant whose user name is EXCHANGE_USERNAME carries an SA token; it is
// accepted only when it passes both checks a real relying party makes:
// - offline: signature against the issuer's JWKS (found through OIDC
//   discovery), issuer, audience, expiry, and the kubernetes.io claims;
// - online: a TokenReview, which also fails once the bound pod or the service
//   account is gone (the signature still verifies then).
// The SA then maps to repository access rules (team-a may pull team-a/*).
// The token never leaves this module: records keep its sha256 and claims.
import { createHash } from 'node:crypto';
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
} from 'jose';
import type { AccessRule, User } from './auth.ts';
import type { Authenticator } from './token-server.ts';

/** The user name a plugin sends with an SA token as the password. */
export const EXCHANGE_USERNAME = '<sa-token-exchange>';

export interface OidcDiscovery {
  issuer: string;
  jwks_uri: string;
  [k: string]: unknown;
}

/** TokenReview status (authentication.k8s.io/v1), as much as the check reads. */
export interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  audiences?: string[];
  error?: string;
}

/** The cluster as a relying party sees it; the suite backs it with kubectl and the admin kubeconfig, tests with fakes. */
export interface ClusterIdentity {
  discovery(): Promise<OidcDiscovery>;
  jwks(): Promise<JSONWebKeySet>;
  tokenReview(token: string, audiences: string[]): Promise<TokenReviewStatus>;
}

export interface ServiceAccountIdentity {
  namespace: string;
  name: string;
  uid: string;
  pod?: { name: string; uid: string };
  node?: { name: string; uid: string };
}

export interface OfflineResult {
  ok: boolean;
  reason?: string;
  alg?: string;
  kid?: string;
  issuer?: string;
  audience?: string[];
  subject?: string;
  issuedAt?: number;
  expiresAt?: number;
  identity?: ServiceAccountIdentity;
}

export interface OnlineResult {
  ok: boolean;
  reason?: string;
  username?: string;
  audiences?: string[];
}

/** One validation, without the token. */
export interface Validation {
  /** sha256 of the token, hex (what the fake provider logs as tokenSha256). */
  tokenSha256: string;
  at: string;
  offline: OfflineResult;
  /** Absent when the offline check already refused the token. */
  online?: OnlineResult;
  ok: boolean;
  /** Access rules granted to the SA (ok only). */
  access?: AccessRule[];
}

export interface SaTokenAuthOptions {
  cluster: ClusterIdentity;
  /** The audience the token must carry (the plugin's serviceAccountTokenAudience). */
  audience: string;
  /** Repository access for a validated service account; [] grants nothing. */
  access: (sa: ServiceAccountIdentity) => AccessRule[];
  /** ms since the epoch (tests). */
  clock?: () => number;
  /** Default EXCHANGE_USERNAME. */
  username?: string;
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export function tokenSha256(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The kubernetes.io private claims of an SA token, or why they are not there. */
export function serviceAccountClaims(payload: JWTPayload): ServiceAccountIdentity | string {
  const k = payload['kubernetes.io'] as Record<string, unknown> | undefined;
  if (!k || typeof k !== 'object') return 'no kubernetes.io claim';
  const ref = (v: unknown) =>
    v &&
    typeof v === 'object' &&
    typeof (v as { name?: unknown }).name === 'string' &&
    typeof (v as { uid?: unknown }).uid === 'string'
      ? { name: (v as { name: string }).name, uid: (v as { uid: string }).uid }
      : undefined;
  const sa = ref(k.serviceaccount);
  if (typeof k.namespace !== 'string' || !sa)
    return 'kubernetes.io claim lacks namespace or serviceaccount {name, uid}';
  const want = `system:serviceaccount:${k.namespace}:${sa.name}`;
  if (payload.sub !== want) return `sub is ${JSON.stringify(payload.sub)}, want "${want}"`;
  const pod = ref(k.pod);
  const node = ref(k.node);
  return { namespace: k.namespace, name: sa.name, uid: sa.uid, ...(pod ? { pod } : {}), ...(node ? { node } : {}) };
}

export class ServiceAccountTokenAuth {
  /** Every validation so far, oldest first (evidence). */
  readonly validations: Validation[] = [];
  private readonly o: SaTokenAuthOptions;
  private discovered: Promise<OidcDiscovery> | undefined;
  private keys: Promise<JSONWebKeySet> | undefined;

  constructor(o: SaTokenAuthOptions) {
    this.o = o;
  }

  private now(): number {
    return (this.o.clock ?? Date.now)();
  }

  /** Signature (JWKS from discovery), issuer, audience, expiry and the SA claims: what any relying party can check without the API server. */
  async offline(token: string): Promise<OfflineResult> {
    let header: { alg?: string; kid?: string };
    let payload: JWTPayload;
    try {
      header = decodeProtectedHeader(token);
      payload = decodeJwt(token);
    } catch (err) {
      return { ok: false, reason: `not a JWT: ${(err as Error).message}` };
    }
    const seen: OfflineResult = {
      ok: false,
      ...(header.alg ? { alg: header.alg } : {}),
      ...(header.kid ? { kid: header.kid } : {}),
      ...(typeof payload.iss === 'string' ? { issuer: payload.iss } : {}),
      ...(payload.aud !== undefined ? { audience: typeof payload.aud === 'string' ? [payload.aud] : payload.aud } : {}),
      ...(typeof payload.sub === 'string' ? { subject: payload.sub } : {}),
      ...(typeof payload.iat === 'number' ? { issuedAt: payload.iat } : {}),
      ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp } : {}),
    };
    let discovery: OidcDiscovery;
    try {
      discovery = await (this.discovered ??= this.o.cluster.discovery());
    } catch (err) {
      this.discovered = undefined;
      return { ...seen, reason: `OIDC discovery failed: ${(err as Error).message}` };
    }
    const verify = async (refresh: boolean) => {
      if (refresh || !this.keys) this.keys = this.o.cluster.jwks();
      const jwks = createLocalJWKSet(await this.keys);
      return jwtVerify(token, jwks, {
        issuer: discovery.issuer,
        audience: this.o.audience,
        algorithms: ASYMMETRIC,
        currentDate: new Date(this.now()),
        requiredClaims: ['exp', 'iat', 'sub'],
      });
    };
    try {
      try {
        await verify(false);
      } catch (err) {
        // A rotated signing key: fetch the JWKS once more before refusing.
        if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
        await verify(true);
      }
    } catch (err) {
      if (!(err instanceof errors.JOSEError)) this.keys = undefined;
      return { ...seen, reason: describeJoseError(err) };
    }
    const identity = serviceAccountClaims(payload);
    if (typeof identity === 'string') return { ...seen, reason: identity };
    return { ...seen, ok: true, identity };
  }

  /** A TokenReview for the audience: the API server's word, which includes whether the bound pod and the SA still exist. */
  async online(token: string, identity?: ServiceAccountIdentity): Promise<OnlineResult> {
    let status: TokenReviewStatus;
    try {
      status = await this.o.cluster.tokenReview(token, [this.o.audience]);
    } catch (err) {
      return { ok: false, reason: `TokenReview failed: ${(err as Error).message}` };
    }
    const base = {
      ...(status.user?.username ? { username: status.user.username } : {}),
      ...(status.audiences ? { audiences: status.audiences } : {}),
    };
    if (!status.authenticated)
      return { ...base, ok: false, reason: `not authenticated${status.error ? `: ${status.error}` : ''}` };
    if (status.audiences && !status.audiences.includes(this.o.audience))
      return {
        ...base,
        ok: false,
        reason: `authenticated for audiences ${JSON.stringify(status.audiences)}, not "${this.o.audience}"`,
      };
    const want = identity ? `system:serviceaccount:${identity.namespace}:${identity.name}` : undefined;
    if (want && status.user?.username !== want)
      return { ...base, ok: false, reason: `authenticated as ${status.user?.username}, want ${want}` };
    return { ...base, ok: true };
  }

  /** Both checks, recorded. */
  async validate(token: string): Promise<Validation> {
    const at = new Date(this.now()).toISOString();
    const offline = await this.offline(token);
    const online = offline.ok ? await this.online(token, offline.identity) : undefined;
    const ok = offline.ok && !!online?.ok;
    const access = ok ? this.o.access(offline.identity!) : undefined;
    const v: Validation = {
      tokenSha256: tokenSha256(token),
      at,
      offline,
      ...(online ? { online } : {}),
      ok,
      ...(access ? { access } : {}),
    };
    this.validations.push(v);
    return v;
  }

  /** For TokenServer.useAuthenticator: the exchange user name is decided here, any other falls through to the user store. */
  authenticator(): Authenticator {
    const username = this.o.username ?? EXCHANGE_USERNAME;
    return async (user, password): Promise<User | undefined | 'pass'> => {
      if (user !== username) return 'pass';
      const v = await this.validate(password);
      if (!v.ok) return undefined;
      const id = v.offline.identity!;
      return { username: `system:serviceaccount:${id.namespace}:${id.name}`, password: '', access: v.access ?? [] };
    };
  }
}

function describeJoseError(err: unknown): string {
  if (err instanceof errors.JWTExpired) return `expired (${err.message})`;
  if (err instanceof errors.JWTClaimValidationFailed) return `claim ${err.claim} refused: ${err.message}`;
  if (err instanceof errors.JWSSignatureVerificationFailed)
    return "signature does not verify against the issuer's JWKS";
  if (err instanceof errors.JWKSNoMatchingKey) return "no key in the issuer's JWKS matches the token's kid/alg";
  if (err instanceof errors.JOSEAlgNotAllowed) return `algorithm not allowed: ${err.message}`;
  return (err as Error).message;
}
