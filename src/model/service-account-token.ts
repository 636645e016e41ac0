// credprov's model of KEP-4412 (service-account tokens for credential
// providers) as the kubelet implements it in v1.37.1
// (pkg/credentialprovider/plugin/plugin.go, pluginProvider.provide) and as the
// API server treats the token (NodeRestriction + RBAC for the audience,
// pkg/serviceaccount/claims.go for what a token carries and when a
// TokenReview stops accepting it). The service-account-token suite predicts
// every case from here before the real kubelet acts.
//
// provide(), per provider whose matchImages match the image, in this order:
// 1. tokenAttributes set (and the kubelet gate on): token mode.
//    - no SA name (static pod) and requireServiceAccount → skipped: no exec, no credentials.
//    - no SA name and !requireServiceAccount → exec without a token (cache key without SA part).
//    - GET the SA; a missing required annotation → skipped (V5 log), no credentials.
//      Required keys plus the optional keys that are present are passed; nothing else.
//    - TokenRequest (audience, bound to the pod). NodeRestriction refuses it unless
//      RBAC grants the node `request-serviceaccounts-token-audience` on resource
//      <audience> (resourceNames = SA name, namespace = the SA's) → error, no exec.
//    - the SA cache key: namespace, SA name, SA UID, the passed annotations, and for
//      cacheType Token also the token's hash. The kubelet's token manager hands a pod
//      the same token until 80% of its TTL, so a second pull of one pod reuses it and
//      another pod of the same SA gets a new one.
// 2. cache lookup under image, registry, global (each + the SA key) before exec.
// 3. exec; a response whose password equals the token is refused when
//    cacheType is not Token (from 1.34: version table rejectsTokenAsPassword),
//    before anything is cached.
// 4. stored under cacheKeyType + SA key unless cacheDuration is 0 (or absent with
//    defaultCacheDuration 0).
import type { TokenAttributes } from '../api/credentialprovider/types.ts';
import type { KubeBehaviour } from '../versions/table.ts';
import { GLOBAL_CACHE_KEY, registryOf } from './credential-cache.ts';

/** TokenRequestSpec.expirationSeconds default (pkg/apis/authentication/v1/defaults.go: 1 hour); the kubelet leaves it unset for plugins. */
export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 60 * 60;

export interface ServiceAccountState {
  name: string;
  uid: string;
  annotations: Record<string, string>;
}

/** A pod as the kubelet sees it when it pulls. */
export interface PodState {
  namespace: string;
  name: string;
  uid: string;
  /** spec.serviceAccountName's object; undefined: no SA name (a static pod: mirror pods may not reference SAs). */
  serviceAccount?: ServiceAccountState;
}

/** An RBAC grant to system:nodes (src/cluster/rbac.ts): verb request-serviceaccounts-token-audience on resource `audience`. */
export interface AudienceGrant {
  audience: string;
  /** resourceNames: the SA names it covers; undefined: every SA. */
  serviceAccounts?: string[];
  /** A Role in this namespace; undefined: a ClusterRole. */
  namespace?: string;
}

/** What the fake plugin answers for the image (when exec'd). */
export interface PluginAnswer {
  cacheKeyType: 'Image' | 'Registry' | 'Global';
  /** undefined: no cacheDuration in the response. */
  cacheDurationMs?: number;
  /** `token`: the password is the request's SA token; `static`: a fixed password. */
  password: 'token' | 'static';
  /** Whether the registry accepts the credentials the answer holds (for this pod and image). */
  registryAccepts: boolean;
}

export interface ProviderUnderTest {
  name: string;
  defaultCacheDurationMs: number;
  tokenAttributes?: TokenAttributes;
}

export type CacheOutcome = 'hit' | 'miss' | 'not-looked-up';
export type CredentialsOutcome = 'used' | 'none' | 'refused-token-as-password';

export interface PullPrediction {
  /** The kubelet asks the API server for a token. */
  tokenRequested: boolean;
  /** NodeRestriction refuses that request. */
  tokenDenied: boolean;
  invoked: boolean;
  /** Invoked with a serviceAccountToken. */
  tokenPresent: boolean;
  /** serviceAccountAnnotations of the request (invoked only; {} when none). */
  annotations?: Record<string, string>;
  cache: CacheOutcome;
  credentials: CredentialsOutcome;
  pull: 'success' | 'failure';
  because: string;
}

export interface ModelOptions {
  provider: ProviderUnderTest;
  /** The kubelet's row of the version table: rejectsTokenAsPassword, gate defaults. */
  behaviour: KubeBehaviour;
  /**
   * Gate overrides of the environment (kubelet: KubeletServiceAccountTokenForCredentialProviders; API server:
   * ServiceAccountNodeAudienceRestriction, and KubeletServiceAccountTokenForCredentialProviders for the Node
   * authorizer's service-account get). The API server's defaults are read from `behaviour` (same version).
   */
  gates?: { kubelet?: Record<string, boolean>; apiserver?: Record<string, boolean> };
  grants: AudienceGrant[];
}

interface Entry {
  expiresAt: number;
}

/** Whether RBAC grants a node the token audience for an SA (the SubjectAccessReview NodeRestriction sends). */
export function audienceAllowed(
  grants: AudienceGrant[],
  audience: string,
  namespace: string,
  serviceAccount: string,
): AudienceGrant | undefined {
  return grants.find(
    (g) =>
      (g.audience === audience || g.audience === '*') &&
      (g.namespace === undefined || g.namespace === namespace) &&
      (g.serviceAccounts === undefined || g.serviceAccounts.includes(serviceAccount)),
  );
}

export class ServiceAccountTokenModel {
  private readonly o: ModelOptions;
  private readonly entries = new Map<string, Entry>();

  constructor(o: ModelOptions) {
    this.o = o;
  }

  /** Token mode: tokenAttributes with an audience and the kubelet gate on. */
  get tokenMode(): boolean {
    const gate =
      this.o.gates?.kubelet?.KubeletServiceAccountTokenForCredentialProviders ??
      this.o.behaviour.gateDefaults.KubeletServiceAccountTokenForCredentialProviders;
    return gate === true && !!this.o.provider.tokenAttributes?.serviceAccountTokenAudience;
  }

  /**
   * The Node authorizer lets a kubelet get a pod's ServiceAccount (for its UID and annotations) only with
   * KubeletServiceAccountTokenForCredentialProviders on in kube-apiserver (v1.33.13
   * plugin/pkg/auth/authorizer/node/node_authorizer.go:241, "not allowed to get service accounts"; v1.34.5:248,
   * or PodCertificateRequest). Seen on a real v1.33.13 with the gate on the kubelet only.
   */
  private get nodeMayGetServiceAccount(): boolean {
    const gate =
      this.o.gates?.apiserver?.KubeletServiceAccountTokenForCredentialProviders ??
      this.o.behaviour.gateDefaults.KubeletServiceAccountTokenForCredentialProviders;
    return gate === true;
  }

  private get nodeAudienceRestriction(): boolean {
    return (
      this.o.gates?.apiserver?.ServiceAccountNodeAudienceRestriction ??
      this.o.behaviour.gateDefaults.ServiceAccountNodeAudienceRestriction
    );
  }

  /** The token a pod's pull sends: the kubelet's token manager caches one per (SA, audience, bound pod). */
  static tokenIdentity(pod: PodState, audience: string): string {
    return `${pod.namespace}/${pod.serviceAccount?.name}@${audience}#pod:${pod.uid}`;
  }

  /** One pull of `image` (the request image: repository without tag) by `pod` at `now`. */
  pull(pod: PodState, image: string, answer: PluginAnswer, now = 0): PullPrediction {
    const ta = this.o.provider.tokenAttributes;
    const steps: string[] = [];
    let saKey = '';
    let annotations: Record<string, string> = {};
    let tokenPresent = false;
    let tokenId: string;
    const none = (why: string, extra: Partial<PullPrediction> = {}): PullPrediction => ({
      tokenRequested: false,
      tokenDenied: false,
      invoked: false,
      tokenPresent: false,
      cache: 'not-looked-up',
      credentials: 'none',
      pull: 'failure',
      ...extra,
      because: [...steps, why].join('; '),
    });

    if (this.tokenMode && ta) {
      const sa = pod.serviceAccount;
      if (!sa) {
        if (ta.requireServiceAccount)
          return none(
            'the pod has no service account name (static pod) and requireServiceAccount is true: plugin skipped, no credentials',
          );
        steps.push('no service account name and requireServiceAccount false: invoked without a token');
      } else {
        // plugin.go provide(): getServiceAccountData (a GET of the SA) comes before the annotation check.
        if (!this.nodeMayGetServiceAccount)
          return none(
            `the Node authorizer refuses the kubelet's get of SA ${pod.namespace}/${sa.name} (KubeletServiceAccountTokenForCredentialProviders off in kube-apiserver: "not allowed to get service accounts"): plugin not invoked, no credentials`,
          );
        const missing = (ta.requiredServiceAccountAnnotationKeys ?? []).filter((k) => !(k in sa.annotations));
        if (missing.length > 0)
          return none(
            `required annotation ${missing.join(', ')} missing on SA ${sa.name}: plugin not invoked, no credentials`,
          );
        for (const k of [
          ...(ta.requiredServiceAccountAnnotationKeys ?? []),
          ...(ta.optionalServiceAccountAnnotationKeys ?? []),
        ])
          if (k in sa.annotations) annotations[k] = sa.annotations[k]!;
        const aud = ta.serviceAccountTokenAudience;
        if (this.nodeAudienceRestriction) {
          const grant = audienceAllowed(this.o.grants, aud, pod.namespace, sa.name);
          if (!grant)
            return none(
              `NodeRestriction: no RBAC grant of request-serviceaccounts-token-audience on "${aud}" for SA ${pod.namespace}/${sa.name}: the TokenRequest is refused, plugin not invoked, no credentials`,
              { tokenRequested: true, tokenDenied: true },
            );
          steps.push(
            `token for audience "${aud}" allowed by ${grant.namespace ? `a Role in ${grant.namespace}` : 'a ClusterRole'}${grant.serviceAccounts ? ` naming ${grant.serviceAccounts.join(', ')}` : ''}`,
          );
        }
        tokenPresent = true;
        tokenId = ServiceAccountTokenModel.tokenIdentity(pod, aud);
        saKey = [
          pod.namespace,
          sa.name,
          sa.uid,
          JSON.stringify(Object.entries(annotations).sort()),
          ...(ta.cacheType === 'Token' ? ['token', tokenId] : []),
        ].join('|');
      }
    } else {
      annotations = {};
    }
    const requested = { tokenRequested: tokenPresent, tokenDenied: false };

    // Cache lookup before exec: image, registry, global, each with the SA key.
    for (const base of [image, registryOf(image), GLOBAL_CACHE_KEY]) {
      const e = this.entries.get(`${base}\u0000${saKey}`);
      if (e && !(now > e.expiresAt)) {
        steps.push(
          `cache hit under ${base === GLOBAL_CACHE_KEY ? 'the global key' : base}${saKey ? ` + SA key (${ta?.cacheType === 'Token' ? 'same token' : 'same SA'})` : ''}`,
        );
        return {
          ...requested,
          invoked: false,
          tokenPresent: false,
          cache: 'hit',
          credentials: 'used',
          pull: answer.registryAccepts ? 'success' : 'failure',
          because: steps.join('; '),
        };
      }
    }
    steps.push(
      saKey
        ? `no cache entry for ${ta?.cacheType === 'Token' ? 'this token' : 'this SA'}: invoked`
        : 'no cache entry: invoked',
    );
    const invoked = { ...requested, invoked: true, tokenPresent, annotations, cache: 'miss' as const };

    if (
      tokenPresent &&
      answer.password === 'token' &&
      ta?.cacheType !== 'Token' &&
      this.o.behaviour.rejectsTokenAsPassword
    ) {
      steps.push(
        `the answer's password is the SA token and cacheType is ${ta?.cacheType}: the kubelet refuses the response (rejectsTokenAsPassword), no credentials`,
      );
      return { ...invoked, credentials: 'refused-token-as-password', pull: 'failure', because: steps.join('; ') };
    }
    const duration = answer.cacheDurationMs ?? this.o.provider.defaultCacheDurationMs;
    if (duration > 0) {
      const base =
        answer.cacheKeyType === 'Image'
          ? image
          : answer.cacheKeyType === 'Registry'
            ? registryOf(image)
            : GLOBAL_CACHE_KEY;
      this.entries.set(`${base}\u0000${saKey}`, { expiresAt: now + duration });
      steps.push(
        `stored under ${answer.cacheKeyType}${saKey ? ` + SA key${ta?.cacheType === 'Token' ? ' with the token hash' : ''}` : ''} for ${duration / 1000}s`,
      );
    } else steps.push('not cached (cacheDuration 0)');
    steps.push(
      answer.registryAccepts ? 'the registry accepts the credentials' : 'the registry refuses the credentials',
    );
    return {
      ...invoked,
      credentials: 'used',
      pull: answer.registryAccepts ? 'success' : 'failure',
      because: steps.join('; '),
    };
  }
}

/** What the token the kubelet sends carries (claims.go Claims for a pod-bound TokenRequest). */
export interface PredictedToken {
  iss: string;
  aud: string[];
  sub: string;
  kubernetes: {
    namespace: string;
    serviceaccount: { name: string; uid: string };
    pod: { name: string; uid: string };
    /** ServiceAccountTokenPodNodeInfo (GA, locked on from 1.32): the node of the bound pod. */
    node: { name: string; uid: string };
  };
  lifetimeSeconds: number;
}

export function predictToken(o: {
  issuer: string;
  audience: string;
  pod: PodState & { serviceAccount: ServiceAccountState };
  node: { name: string; uid: string };
}): PredictedToken {
  const sa = o.pod.serviceAccount;
  return {
    iss: o.issuer,
    aud: [o.audience],
    sub: `system:serviceaccount:${o.pod.namespace}:${sa.name}`,
    kubernetes: {
      namespace: o.pod.namespace,
      serviceaccount: { name: sa.name, uid: sa.uid },
      pod: { name: o.pod.name, uid: o.pod.uid },
      node: o.node,
    },
    lifetimeSeconds: DEFAULT_TOKEN_EXPIRATION_SECONDS,
  };
}

/**
 * Offline (signature, iss, aud, exp) and online (TokenReview) verdicts on a
 * pod-bound token: deleting the pod or the SA does not touch the signature,
 * but the API server's validator (claims.go) then refuses it.
 */
export function predictTokenValidity(s: { expired: boolean; podExists: boolean; serviceAccountExists: boolean }): {
  signature: 'valid' | 'invalid';
  tokenReview: 'authenticated' | 'refused';
  because: string;
} {
  const signature = s.expired ? 'invalid' : 'valid';
  const why = s.expired
    ? 'the token expired'
    : !s.serviceAccountExists
      ? 'the service account is gone (claims.go: GetServiceAccount fails)'
      : !s.podExists
        ? 'the bound pod is gone (claims.go: "service account token has been invalidated")'
        : '';
  return {
    signature,
    tokenReview: why ? 'refused' : 'authenticated',
    because: why
      ? `${why}; ${s.expired ? '' : 'the signature, issuer and audience still verify offline'}`.replace(/; $/, '')
      : 'pod and service account exist and the token is unexpired',
  };
}
