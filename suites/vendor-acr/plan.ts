// The vendor-acr suite's plan: login servers, provider entries, azure.json
// contents and service-account names. Data only: no I/O.
//
// Providers (one kubelet config), one ACR cloud suffix each so that no image
// matches two of them:
//   acr-credential-provider     *.azurecr.io, *.azurecr.cn, mcr.microsoft.com  static service principal
//   acr-credential-provider-mi  credprovmi<id>.azurecr.us  useManagedIdentityExtension, fake IDENTITY_ENDPOINT
//   acr-credential-provider-wi  credprovwi<id>.azurecr.us  KEP-4412 token + useManagedIdentityExtension (workload identity)
//   acr-credential-provider-sa  *.azurecr.de   KEP-4412 token, the static azure.json (no managed identity)
// Upstream's example config (examples/out-of-tree/credential-provider-config.yaml) matches the
// four ACR clouds and mcr.microsoft.com with defaultCacheDuration 10m; this plan keeps both.
import type { CredentialProvider, CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import type { KubeBehaviour } from '../../src/versions/table.ts';
import {
  ACR_CLIENT_ID_ANNOTATION,
  ACR_PLUGIN,
  ACR_TENANT_ID_ANNOTATION,
  tokenAttributesFor,
  type AzureJson,
} from '../../src/run/kit.ts';

export const PROVIDER = {
  static: ACR_PLUGIN,
  mi: `${ACR_PLUGIN}-mi`,
  sa: `${ACR_PLUGIN}-sa`,
  wi: `${ACR_PLUGIN}-wi`,
} as const;
export const UPSTREAM_DEFAULT_CACHE_DURATION = '10m';
export const POD_TIMEOUT_MS = 60_000;
/** The SA case's pods run in default: the service account is made there. */
export const NAMESPACE = 'default';
export const MODELS = {
  oracle: 'matching oracle (src/matching)',
  pull: 'pull-credentials model (src/model/pull-credentials.ts)',
  cache: 'cache model (src/model/credential-cache.ts)',
  sa: 'service-account model (src/model/service-account-token.ts)',
  plugin: 'acr-credential-provider v1.36.5 source (pkg/credentialprovider/azure_credentials.go)',
};

/** One run's names: random per run, so a reused environment (and /etc/hosts) keeps runs apart. */
export interface RunNames {
  id: string;
  tenantId: string;
  clientId: string;
  /** Login servers; the mi and wi ones are also mapped in /etc/hosts to the fake ACR (the plugin calls them). */
  hosts: { sp: string; cn: string; mcr: string; mi: string; wi: string; sa: string };
  audience: string;
  /** The service account with the acr-client-id/acr-tenant-id annotations. */
  puller: string;
}

export function runNames(id: string, uuid: () => string): RunNames {
  return {
    id,
    tenantId: uuid(),
    clientId: uuid(),
    hosts: {
      sp: `credprov${id}.azurecr.io`,
      cn: `credprov${id}.azurecr.cn`,
      mcr: 'mcr.microsoft.com',
      mi: `credprovmi${id}.azurecr.us`,
      wi: `credprovwi${id}.azurecr.us`,
      sa: `credprovsa${id}.azurecr.de`,
    },
    audience: `credprov-acr-${id}`,
    puller: `acr-puller-${id}`,
  };
}

export interface PlannedImage {
  /** What a pod names. */
  ref: string;
  /** What the kubelet sends the plugin (and keys its cache by): the image without its tag. */
  request: string;
}

export const image = (host: string, repository: string): PlannedImage => ({
  ref: `${host}/${repository}:v1`,
  request: `${host}/${repository}`,
});

export function images(n: RunNames) {
  return {
    sp: image(n.hosts.sp, 'team/app'),
    spOther: image(n.hosts.sp, 'team/other'),
    cn: image(n.hosts.cn, 'team/app'),
    mcr: image(n.hosts.mcr, 'team/app'),
    mi: image(n.hosts.mi, 'team/app'),
    wi: image(n.hosts.wi, 'team/app'),
    sa: image(n.hosts.sa, 'team/app'),
  };
}

/** The two azure.json files: a static service principal, and a system-assigned managed identity. */
export function azureJson(n: RunNames, clientSecret: string): { static: AzureJson; mi: AzureJson } {
  return {
    static: { cloud: 'AzurePublicCloud', tenantId: n.tenantId, aadClientId: n.clientId, aadClientSecret: clientSecret },
    mi: { cloud: 'AzurePublicCloud', tenantId: n.tenantId, useManagedIdentityExtension: true },
  };
}

export interface ProviderFiles {
  staticJson: string;
  miJson: string;
  /** The fake's App Service identity endpoint and header, and the CA that signed the fake login server's certificate. */
  identityEndpoint: string;
  identityHeader: string;
  caFile: string;
}

const entry = (name: string, matchImages: string[], args: string[], rest: Partial<CredentialProvider> = {}) => ({
  name,
  apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
  matchImages,
  defaultCacheDuration: UPSTREAM_DEFAULT_CACHE_DURATION,
  args,
  ...rest,
});

/**
 * KEP-4412: the run's audience, and the two annotations the plugin requires (consts.go:20-21), as the kubelet
 * of `b` reads them (tokenAttributesFor: no cacheType on 1.33).
 */
const tokenAttributes = (n: RunNames, b: KubeBehaviour) =>
  tokenAttributesFor(b, {
    serviceAccountTokenAudience: n.audience,
    cacheType: 'ServiceAccount',
    requireServiceAccount: true,
    requiredServiceAccountAnnotationKeys: [ACR_CLIENT_ID_ANNOTATION, ACR_TENANT_ID_ANNOTATION],
  });

/** The kubelet's provider config, as the kubelet of `b` reads it. */
export function providerConfig(n: RunNames, f: ProviderFiles, b: KubeBehaviour): CredentialProviderConfig {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1',
    kind: 'CredentialProviderConfig',
    providers: [
      entry(PROVIDER.static, ['*.azurecr.io', '*.azurecr.cn', 'mcr.microsoft.com'], [f.staticJson]),
      entry(PROVIDER.mi, [n.hosts.mi], [f.miJson], {
        env: [
          { name: 'IDENTITY_ENDPOINT', value: f.identityEndpoint },
          { name: 'IDENTITY_HEADER', value: f.identityHeader },
          // The challenge client (azure_acr_helper.go:71) uses Go's system roots: trust the lab CA.
          { name: 'SSL_CERT_FILE', value: f.caFile },
        ],
      }),
      entry(PROVIDER.sa, ['*.azurecr.de'], [f.staticJson], { tokenAttributes: tokenAttributes(n, b) }),
      // Azure AD and the login server are https under their names: trust the lab CA.
      entry(PROVIDER.wi, [n.hosts.wi], [f.miJson], {
        env: [{ name: 'SSL_CERT_FILE', value: f.caFile }],
        tokenAttributes: tokenAttributes(n, b),
      }),
    ],
  };
}
