// The service-account-token suite's checks: KEP-4412 (service-account tokens
// for kubelet credential providers) on the real kubelet and API server. The
// requirements come from KEP-4412 (shared/seeds/003), the kubelet's
// pkg/credentialprovider/plugin/plugin.go (v1.37.1), NodeRestriction's
// audience check and the service-account token validator (claims.go).
import type { Check } from '../../src/run/kit.ts';

const KEP = 'KEP-4412 (shared/seeds/003)';
const PLUGIN = 'kubelet pkg/credentialprovider/plugin/plugin.go (v1.37.1) pluginProvider.provide';

export const TOKEN_CLAIMS: Check = {
  id: 'SA-TOKEN-CLAIMS',
  title:
    "The request carries a token the API server issued for the pod's service account: audience from tokenAttributes, bound to the pod (name, uid) and its node, issuer from OIDC discovery, signature verified against /openid/v1/jwks, lifetime (exp − iat) the TokenRequest default",
  level: 'MUST',
  source: `${KEP}: "the Kubelet will provision a token with the given audience bound to the current pod and its service account"; ${PLUGIN} getServiceAccountToken (audiences [audience], boundObjectRef Pod, expirationSeconds unset)`,
};

export const ANNOTATIONS_PASSED: Check = {
  id: 'SA-ANNOTATIONS-PASSED',
  title:
    'The required annotation and the optional annotations present on the SA are passed in serviceAccountAnnotations; an optional key the SA lacks and annotations not listed are not',
  level: 'MUST',
  source: `${KEP}: "Only annotations defined in the RequiredServiceAccountAnnotationKeys and OptionalServiceAccountAnnotationKeys field … will be passed to the plugin"; ${PLUGIN} getServiceAccountData`,
};

export const REQUIRED_ANNOTATION_MISSING: Check = {
  id: 'SA-ANNOTATION-REQUIRED-MISSING',
  title:
    'An SA without a required annotation: the plugin is not invoked and the pull has no plugin credentials (it fails)',
  level: 'MUST',
  source: `${KEP}: "If any of the keys defined in this list are not present in the service account, kubelet will not invoke the plugin"; ${PLUGIN} (requiredAnnotationNotFoundError → V5 log, no credentials)`,
};

export const REQUIRE_SA_TRUE: Check = {
  id: 'SA-REQUIRE-SA-TRUE',
  title:
    'requireServiceAccount true: a pod with an SA gets a token; a static pod (no SA; its mirror pod may not reference one) is not passed to the plugin and its pull fails',
  level: 'MUST',
  source: `${KEP}: "If set to true, kubelet will only invoke the plugin if the pod has a service account"; ${PLUGIN} ("Service account name is empty")`,
};

export const REQUIRE_SA_FALSE: Check = {
  id: 'SA-REQUIRE-SA-FALSE',
  title:
    'requireServiceAccount false: a pod with an SA gets a token; a static pod is passed to the plugin without a token and pulls with its credentials',
  level: 'MUST',
  source: `${KEP}: "If set to false, kubelet will invoke the plugin even if the pod does not have a service account and will not include a token … (e.g., static pods)"`,
};

export const CACHE_SERVICE_ACCOUNT: Check = {
  id: 'SA-CACHE-SERVICEACCOUNT',
  title:
    'cacheType ServiceAccount: a second pull of a pod and a second pod of the same SA reuse the cached answer (no exec); a pod of another SA execs',
  level: 'MUST',
  source: `${KEP}: "(ServiceAccount) The cache key will be generated based on … service account metadata (namespace, name, UID), and the service account annotations"; ${PLUGIN} generateServiceAccountCacheKey`,
};

export const CACHE_TOKEN: Check = {
  id: 'SA-CACHE-TOKEN',
  title:
    "cacheType Token: a second pull of the same pod (same token from the kubelet's token manager) reuses the answer; a second pod of the same SA (new token) execs again",
  level: 'MUST',
  source: `${KEP}: "(Token) The cache key will be generated based on (Image, Registry, Global) plugin cache key type and the hash of the service account token"; ${PLUGIN} (cacheType Token adds "token" + sha256(token))`,
};

export const AUDIENCE_DENIED: Check = {
  id: 'SA-AUDIENCE-DENIED',
  title:
    "No RBAC grant for the audience: NodeRestriction refuses the kubelet's TokenRequest (the denial is in the kubelet log), the plugin is not invoked, the pull fails",
  level: 'MUST',
  source: `${KEP}: "kubelet will only be allowed to generate a service account token for the audience configured in the credential provider configuration if it is present in the list of audiences configured in KAS" (SAR verb request-serviceaccounts-token-audience, resource = audience); plugin/pkg/admission/noderestriction`,
};

export const AUDIENCE_RESOURCE_NAMES: Check = {
  id: 'SA-AUDIENCE-RESOURCENAMES',
  title:
    "A grant narrowed by resourceNames to one SA: that SA's pod gets a token and pulls; another SA's pod is denied and fails",
  level: 'MUST',
  source: `${KEP}: "Allow a specific audience myaudience for a specific service account mysa" (resources: [myaudience], resourceNames: [mysa])`,
};

export const TOKEN_AS_PASSWORD: Check = {
  id: 'SA-TOKEN-AS-PASSWORD',
  title:
    'A response whose password is the SA token is refused when cacheType is ServiceAccount (no credentials, the pull fails) and allowed with cacheType Token (the exchange registry accepts it)',
  level: 'MUST',
  source: `${PLUGIN}: "credential provider plugin returned the service account token as the password which is not allowed when service account cache type is not set to 'Token'" (from 1.34; version table rejectsTokenAsPassword)`,
};

export const EXCHANGE_ACCESS: Check = {
  id: 'SA-EXCHANGE-ACCESS',
  title:
    "A real exchange: the registry's token server validates the SA token offline (JWKS signature, issuer, audience, expiry) and online (TokenReview) and maps the SA to repositories: team-a pulls team-a/* but not team-b/*, team-c pulls team-c/*",
  level: 'SHOULD',
  source: `${KEP}: "it is possible to use a KSA token that is bound to a specific pod to fetch secrets from an external cloud provider vault without the need for any long lived secrets"; OIDC discovery + TokenReview`,
};

export const EXCHANGE_REVOKED: Check = {
  id: 'SA-EXCHANGE-REVOKED',
  title:
    'After its pod (or its SA) is deleted, the token the plugin got still verifies offline but fails the TokenReview, so the exchange refuses it',
  level: 'SHOULD',
  source:
    'pkg/serviceaccount/claims.go validator: a pod-bound token is "invalidated" once the pod is gone, and refused once its service account is gone; the signature is unaffected',
};

export const TOKEN_OTHER_NODE: Check = {
  id: 'SA-TOKEN-OTHER-NODE',
  title:
    "Only the pod's own node gets its token: the kubelet of node A (the pod's) gets a token for the plugin and is issued one when it asks with its own client certificate; node B's kubelet, with its own, is refused by the node authorizer (no pod of the SA on B) and, once a pod of the same SA runs on B, by NodeRestriction (the pod is on another node)",
  level: 'MUST',
  source:
    `${KEP}: "the Kubelet will provision a token with the given audience bound to the current pod and its service account"; ` +
    'plugin/pkg/auth/authorizer/node/node_authorizer.go authorizeCreateToken (v1.37.1: a path SA → pod → node) and ' +
    'plugin/pkg/admission/noderestriction/admission.go admitServiceAccount ("node requested token bound to a pod scheduled on a different node")',
};

export const SA_TOKEN_CHECKS = [
  TOKEN_CLAIMS,
  ANNOTATIONS_PASSED,
  REQUIRED_ANNOTATION_MISSING,
  REQUIRE_SA_TRUE,
  REQUIRE_SA_FALSE,
  CACHE_SERVICE_ACCOUNT,
  CACHE_TOKEN,
  AUDIENCE_DENIED,
  AUDIENCE_RESOURCE_NAMES,
  TOKEN_AS_PASSWORD,
  EXCHANGE_ACCESS,
  EXCHANGE_REVOKED,
  TOKEN_OTHER_NODE,
];
