// acr-credential-provider (kubernetes-sigs/cloud-provider-azure, cmd/acr-credential-provider),
// unmodified: the recipe that builds it. What it answers is modelled in acr-model.ts.
import type { VendorPluginRecipe } from './build.ts';

export const ACR_PLUGIN = 'acr-credential-provider';
export const ACR_MODULE = 'sigs.k8s.io/cloud-provider-azure';
/** Resolved by exact version from the Go module proxy (`go list -m -versions` is refused for this module). */
export const ACR_PLUGIN_VERSION = 'v1.36.5';
/** The tag's commit, from `go mod download -json` (Origin.Hash): the Makefile stamps it as gitCommit. */
const ACR_COMMITS: Record<string, string> = { 'v1.36.5': '9da15999f3742db71ab75a6366b62454911fe5b7' };
/** Where the plugin's source lives, for check sources. */
export const ACR_SOURCE = `kubernetes-sigs/cloud-provider-azure ${ACR_PLUGIN_VERSION} pkg/credentialprovider/azure_credentials.go`;

/**
 * The vendor's ldflags: hack/pkg-config.sh (Makefile target .pkg_config) stamps
 * pkg/version and client-go's version with `git describe`, which is the tag itself
 * for a release. gitMajor/gitMinor stay empty for an exact tag (the script's regex
 * wants a pre-release suffix); buildDate is left out so the build is reproducible.
 */
export const ACR_RECIPE: VendorPluginRecipe = {
  binary: ACR_PLUGIN,
  module: ACR_MODULE,
  packageDir: './cmd/acr-credential-provider',
  ldflags: (v) => {
    const stamp = (key: string, value: string) =>
      `-X sigs.k8s.io/cloud-provider-azure/pkg/version.${key}=${value} -X k8s.io/client-go/pkg/version.${key}=${value}`;
    const commit = ACR_COMMITS[v];
    return ['-s -w', stamp('gitVersion', v), ...(commit ? [stamp('gitCommit', commit)] : [])].join(' ');
  },
};

// What the plugin answers, from the v1.36.5 source (pkg/credentialprovider/azure_credentials.go):
// - NewAcrProvider (:71-124) picks a credential once per exec: identity bindings (flags), else a
//   client assertion from the request's serviceAccountToken (:106, :155-192: the annotations
//   kubernetes.azure.com/acr-client-id and acr-tenant-id are required), else managed identity
//   (:127-153, only when useManagedIdentityExtension; otherwise no credential at all).
// - GetCredentials (:194-266): an image that is not ACR answers Registry, cacheDuration 0s, no auth
//   (:197-204). An ACR image answers Registry, 1h (defaultCacheTTL :45) and always an entry
//   "*.azurecr.*" with empty username and password (:209-215). With useManagedIdentityExtension the
//   login server's entry is 00000000-…/an exchanged ACR refresh token (:218-232, getFromACR :269-297:
//   token for https://containerregistry.azure.net/.default, GET https://<server>/v2/ for the
//   challenge, POST <realm host>/oauth2/exchange, azure_acr_helper.go:85-206). Otherwise every
//   containerRegistryUrls entry (:51) carries aadClientId/aadClientSecret (:233-241), whatever
//   credential NewAcrProvider built: the service-account token is then never used.
// - parseACRLoginServerFromImage (:302-331): acrRE (:53) at the start of the image, followed by
//   nothing or "/"; else, the cloud's ACR suffix ("azurecr.io" in the public cloud) anywhere in
//   the image, cut after it.

/** The audience of an ACR access token (azure_credentials.go:47 AcrAudience). */
export const ACR_RESOURCE = 'https://containerregistry.azure.net';
/** The user name of an exchanged ACR refresh token (azure_acr_helper.go:68 dockerTokenLoginUsernameGUID). */
export const ACR_TOKEN_USERNAME = '00000000-0000-0000-0000-000000000000';
/** azure_credentials.go:51 containerRegistryUrls. */
export const ACR_REGISTRY_URLS = ['*.azurecr.io', '*.azurecr.cn', '*.azurecr.de', '*.azurecr.us'];
/** azure_credentials.go:211: the entry every ACR answer carries, with empty credentials ("anonymous ACR access"). */
export const ACR_ANONYMOUS_KEY = '*.azurecr.*';
/** azure_credentials.go:53 acrRE. */
const ACR_RE = /^[a-zA-Z0-9]+\.(azurecr\.io|azurecr\.cn|azurecr\.de|azurecr\.us)/;
/** The public cloud's ContainerRegistryDNSSuffix (pkg/azclient v0.21.0 cloud.go:240). */
const PUBLIC_ACR_SUFFIX = 'azurecr.io';
/** The SA-mode annotations (pkg/credentialprovider/consts.go:20-21). */
export const ACR_CLIENT_ID_ANNOTATION = 'kubernetes.azure.com/acr-client-id';
export const ACR_TENANT_ID_ANNOTATION = 'kubernetes.azure.com/acr-tenant-id';

/** The azure.json keys the plugin reads (providerconfig.AzureClientConfig). */
export interface AzureJson {
  cloud: string;
  tenantId: string;
  aadClientId?: string;
  aadClientSecret?: string;
  useManagedIdentityExtension?: boolean;
  userAssignedIdentityID?: string;
}

/** What stands in an auth entry's password: the client secret, an exchanged ACR refresh token, or nothing. */
export type AcrPassword = 'client secret' | 'refresh token' | 'empty';

export interface AcrAnswer {
  cacheKeyType: 'Registry';
  /** As Go prints a metav1.Duration. */
  cacheDuration: '1h0m0s' | '0s';
  auth: Record<string, { username: string; password: AcrPassword }>;
  /** The Azure calls it makes, in order, with the answer each needs (none for a static service principal). */
  calls: string[];
  because: string;
}

/** parseACRLoginServerFromImage without --registry-mirror, public cloud: the login server, or undefined for a non-ACR image. */
export function acrLoginServer(image: string): string | undefined {
  const m = ACR_RE.exec(image)?.[0];
  if (m && (image.length === m.length || image[m.length] === '/')) return m;
  const i = image.indexOf(PUBLIC_ACR_SUFFIX);
  return i >= 0 ? image.slice(0, i + PUBLIC_ACR_SUFFIX.length) : undefined;
}

/**
 * The plugin's answer for a request image (repository without tag), by its source. `sa`: the request
 * carries a service-account token with the annotations, whose tenant the client assertion goes to.
 */
export function predictAcrAnswer(image: string, config: AzureJson, sa?: { tenantId: string }): AcrAnswer {
  const server = acrLoginServer(image);
  if (!server)
    return {
      cacheKeyType: 'Registry',
      cacheDuration: '0s',
      auth: {},
      calls: [],
      because: `${image} is not an ACR image (azure_credentials.go:197-204): no auth, cacheDuration 0`,
    };
  const anonymous = { [ACR_ANONYMOUS_KEY]: { username: '', password: 'empty' as const } };
  // With a token the credential is a client assertion at Azure AD (MSAL v1.7.2: instance discovery at the
  // trusted host, authority.go:580-610, the tenant's OpenID configuration, then the token endpoint).
  const token = sa
    ? [
        'GET /common/discovery/instance?api-version=1.1 → 200',
        `GET /${sa.tenantId}/v2.0/.well-known/openid-configuration → 200`,
        `POST /${sa.tenantId}/oauth2/v2.0/token → 200`,
      ]
    : [`token for ${ACR_RESOURCE} → 200`];
  if (config.useManagedIdentityExtension)
    return {
      cacheKeyType: 'Registry',
      cacheDuration: '1h0m0s',
      auth: { ...anonymous, [server]: { username: ACR_TOKEN_USERNAME, password: 'refresh token' } },
      calls: [...token, 'GET /v2/ → 401', 'POST /oauth2/exchange → 200'],
      because:
        `${server} is ACR and useManagedIdentityExtension is set: ${sa ? 'a client assertion with the service-account token at Azure AD' : 'a managed identity token'}, ` +
        'the challenge, the exchange (azure_credentials.go:106/116, 218-232, 269-297)',
    };
  const sp = { username: config.aadClientId ?? '', password: 'client secret' as const };
  return {
    cacheKeyType: 'Registry',
    cacheDuration: '1h0m0s',
    auth: { ...anonymous, ...Object.fromEntries(ACR_REGISTRY_URLS.map((u) => [u, sp])) },
    calls: [],
    because: `${server} is ACR and useManagedIdentityExtension is not set: aadClientId/aadClientSecret for every ACR cloud, no call (azure_credentials.go:233-241)`,
  };
}
