// The vendor-acr suite's checks: the real, unmodified acr-credential-provider
// (kubernetes-sigs/cloud-provider-azure) under the real kubelet, against a fake
// managed identity endpoint and ACR token exchange on loopback and local
// registries under ACR-shaped hostnames.
import { ACR_SOURCE, type Check } from '../../src/run/kit.ts';

const PLUGIN_GO = 'kubelet pkg/credentialprovider/plugin/plugin.go (v1.37.1)';
const KEYRING =
  'kubelet pkg/credentialprovider/keyring.go (Lookup: every matching key, reverse-sorted) and kuberuntime_image.go PullImage (each credential in turn)';

export const SP_PULL: Check = {
  id: 'ACR-SP-PULL',
  title:
    'With a static service principal (azure.json aadClientId/aadClientSecret) the plugin answers, without any network call, Registry 1h with the client id and secret for every ACR cloud plus an empty "*.azurecr.*" entry; the kubelet pulls with the client id and secret',
  level: 'MUST',
  source: `KEP-2133: the kubelet execs the matching provider and pulls with its auth; ${ACR_SOURCE}:194-266 GetCredentials`,
};

export const REGISTRY_CACHE: Check = {
  id: 'ACR-CACHE-PER-REGISTRY',
  title:
    'The kubelet keeps the Registry answer for its cacheDuration (1h): another repository on the same login server is pulled without a new exec',
  level: 'MUST',
  source: `KEP-2133 cacheKeyType/cacheDuration; ${PLUGIN_GO}: provide() stores under the registry, getCachedCredentials() before exec; ${ACR_SOURCE}:45 defaultCacheTTL`,
};

export const EMPTY_ENTRY: Check = {
  id: 'ACR-EMPTY-CREDENTIAL-ENTRY',
  title:
    'The "*.azurecr.*" entry with an empty username and password matches an x.azurecr.cn image: when the registry refuses the service principal, the kubelet offers that empty credential next, which reaches the registry as an anonymous pull',
  level: 'MUST',
  source: `KEP-2133: auth keys match like matchImages and the kubelet tries every matching credential; ${KEYRING}; ${ACR_SOURCE}:209-215 ("empty username and password for anonymous ACR access")`,
};

export const NON_ACR: Check = {
  id: 'ACR-NON-ACR-NOT-CACHED',
  title:
    'For a non-ACR image its matchImages cover (mcr.microsoft.com, as upstream configures) the plugin answers no auth with cacheDuration 0s; the kubelet caches nothing and execs the plugin again on the next pull; both pulls go on anonymously (a public registry)',
  level: 'MUST',
  source: `KEP-2133: cacheDuration 0 means the response is not cached; ${PLUGIN_GO}: a zero cacheDuration is not stored; ${ACR_SOURCE}:197-204`,
};

export const MI_EXCHANGE: Check = {
  id: 'ACR-MI-TOKEN-EXCHANGE',
  title:
    'With useManagedIdentityExtension the plugin gets a token for https://containerregistry.azure.net from IDENTITY_ENDPOINT, reads the login server’s /v2/ challenge, exchanges the token at /oauth2/exchange and answers user 00000000-0000-0000-0000-000000000000 with the refresh token; the kubelet pulls with it',
  level: 'MUST',
  source: `KEP-2133: the kubelet pulls with the provider's auth; ${ACR_SOURCE}:218-232, 269-297; azure_acr_helper.go:85-206; MSAL managedidentity (App Service source, api-version 2019-08-01)`,
};

export const SA_STATIC: Check = {
  id: 'ACR-SA-TOKEN-UNUSED-WITHOUT-MI',
  title:
    'KEP-4412 mode without managed identity: the kubelet sends a service-account token for the provider’s audience and the acr-client-id/acr-tenant-id annotations, yet the plugin calls nothing and answers the static client id and secret (the token never reaches Azure AD)',
  level: 'MUST',
  source: `KEP-4412: serviceAccountToken and serviceAccountAnnotations in the request; ${ACR_SOURCE}:106 (client assertion credential) and 218/233 (used only with useManagedIdentityExtension)`,
};

export const SA_WORKLOAD_IDENTITY: Check = {
  id: 'ACR-SA-WORKLOAD-IDENTITY-EXCHANGE',
  title:
    'KEP-4412 mode with useManagedIdentityExtension: the plugin sends the service-account token as a client assertion to Azure AD (verified against the API server’s JWKS, subject and audience), exchanges the Azure AD token at the login server and answers 00000000-…/the refresh token; the kubelet pulls with it',
  level: 'MUST',
  source: `KEP-4412: the token for the provider's audience goes to the plugin, which trades it for registry credentials; ${ACR_SOURCE}:106, 155-192 (NewClientAssertionCredential with the acr-client-id/acr-tenant-id annotations), 218-232, 269-297`,
};

export const VENDOR_ACR_CHECKS: Check[] = [
  SP_PULL,
  REGISTRY_CACHE,
  EMPTY_ENTRY,
  NON_ACR,
  MI_EXCHANGE,
  SA_STATIC,
  SA_WORKLOAD_IDENTITY,
];
