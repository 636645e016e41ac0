// The vendor-ecr suite's checks: the real, unmodified ecr-credential-provider
// (kubernetes/cloud-provider-aws) under the real kubelet, against fake ECR and
// STS endpoints on loopback and a local registry under ECR-shaped hostnames.
import { ECR_SOURCE, type Check } from '../../src/run/kit.ts';

const PLUGIN_GO = 'kubelet pkg/credentialprovider/plugin/plugin.go (v1.37.1)';

export const PULL: Check = {
  id: 'ECR-PULL-VIA-PLUGIN',
  title:
    'An image on an ECR host the provider matches is pulled with the credentials ecr-credential-provider got from ECR GetAuthorizationToken (static keys, region from the host)',
  level: 'MUST',
  source: `KEP-2133: the kubelet execs the matching provider and pulls with its auth; ${ECR_SOURCE}: parseRegionFromECRPrivateHost, GetAuthorizationToken, base64 "AWS:<password>"`,
};

export const UNMATCHED: Check = {
  id: 'ECR-UNMATCHED-NOT-SENT',
  title:
    "An image outside the provider's matchImages (public.ecr.aws) is never sent to the plugin, so it pulls without credentials",
  level: 'MUST',
  source: `KEP-2133: a provider is exec'd only for images one of its matchImages matches; ${PLUGIN_GO}: isImageAllowed`,
};

export const ANSWER: Check = {
  id: 'ECR-ANSWER-FROM-EXPIRY',
  title:
    "The plugin answers cacheKeyType Registry and a cacheDuration of half the ECR token's remaining lifetime (as its code says)",
  level: 'SHOULD',
  source: `${ECR_SOURCE}: CacheKeyType RegistryPluginCacheKeyType; getCacheDuration = (expiresAt - now) / 2 in whole seconds; issue cloud-provider-aws#348`,
};

export const CACHE: Check = {
  id: 'ECR-CACHE-PER-RESPONSE',
  title:
    "The kubelet caches the plugin's answer as it declares it: another image on the same registry is served from the cache, an image on another ECR registry execs the plugin again",
  level: 'MUST',
  source: `KEP-2133 cacheKeyType/cacheDuration; ${PLUGIN_GO}: provide() stores under parseRegistry(image) for Registry, getCachedCredentials() before exec`,
};

export const REFRESH: Check = {
  id: 'ECR-TOKEN-REFRESH',
  title:
    'With a short-lived ECR token, the kubelet reuses it while its cacheDuration lasts and execs the plugin again after, which fetches a new token; the pull with the new token succeeds',
  level: 'MUST',
  source: `KEP-2133: cached credentials expire after cacheDuration; ${ECR_SOURCE}: getCacheDuration halves the token's remaining lifetime so the kubelet refreshes before it expires`,
};

export const SA_ANNOTATION: Check = {
  id: 'ECR-SA-ROLE-ANNOTATION-REQUIRED',
  title:
    'SA mode: a pod whose service account lacks the required eks.amazonaws.com/ecr-role-arn annotation never reaches the plugin (no token, no STS call) and pulls without credentials',
  level: 'MUST',
  source: `KEP-4412: requiredServiceAccountAnnotationKeys, the plugin is skipped when one is missing; ${PLUGIN_GO}: serviceAccountProvider; ${ECR_SOURCE}: the role ARN comes from that annotation`,
};

export const SA_RBAC: Check = {
  id: 'ECR-SA-NODE-AUDIENCE-RBAC',
  title:
    "SA mode: without an RBAC grant of request-serviceaccounts-token-audience for the provider's audience the kubelet gets no token, so the plugin is not exec'd; with the grant the same pod pulls",
  level: 'MUST',
  source:
    'KEP-4412 / k/k PR #130485: NodeRestriction lets a node request a token for an audience only when RBAC authorizes it; plugin/pkg/admission/noderestriction',
};

export const SA_PULL: Check = {
  id: 'ECR-SA-PULL-VIA-STS',
  title:
    "SA mode: the kubelet sends a token for the provider's audience and the role annotation; the plugin exchanges it with STS AssumeRoleWithWebIdentity (verified against the API server's JWKS) and signs GetAuthorizationToken with the assumed role; the pull succeeds",
  level: 'MUST',
  source: `KEP-4412: serviceAccountToken and serviceAccountAnnotations in the request; ${ECR_SOURCE}: buildCredentialsProvider (AssumeRoleWithWebIdentity, RoleSessionName ecr-credential-provider)`,
};

export const SA_AUDIENCE: Check = {
  id: 'ECR-SA-WRONG-AUDIENCE-REFUSED',
  title:
    'SA mode: a provider whose audience STS does not accept gets the token refused (InvalidIdentityToken); the plugin fails and the pull goes on without credentials',
  level: 'MUST',
  source: `KEP-4412: the audience is the contract between the kubelet and the token's consumer; AWS STS AssumeRoleWithWebIdentity checks aud against the OIDC provider's client IDs; KEP-2133: a failing plugin contributes no credentials`,
};

export const VENDOR_ECR_CHECKS: Check[] = [
  PULL,
  UNMATCHED,
  ANSWER,
  CACHE,
  REFRESH,
  SA_ANNOTATION,
  SA_RBAC,
  SA_PULL,
  SA_AUDIENCE,
];
