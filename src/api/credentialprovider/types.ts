// Wire types of the kubelet image credential provider contract (KEP-2133, KEP-4412).
// Config: kubelet.config.k8s.io/{v1alpha1,v1beta1,v1} CredentialProviderConfig.
// Exchange: credentialprovider.kubelet.k8s.io/{v1alpha1,v1beta1,v1} Request/Response.

export const CONFIG_API_VERSIONS = [
  'kubelet.config.k8s.io/v1alpha1',
  'kubelet.config.k8s.io/v1beta1',
  'kubelet.config.k8s.io/v1',
] as const;
export type ConfigApiVersion = (typeof CONFIG_API_VERSIONS)[number];

export const PROTOCOL_API_VERSIONS = [
  'credentialprovider.kubelet.k8s.io/v1alpha1',
  'credentialprovider.kubelet.k8s.io/v1beta1',
  'credentialprovider.kubelet.k8s.io/v1',
] as const;
export type ProtocolApiVersion = (typeof PROTOCOL_API_VERSIONS)[number];

export const CACHE_KEY_TYPES = ['Image', 'Registry', 'Global'] as const;
export type CacheKeyType = (typeof CACHE_KEY_TYPES)[number];

export const TOKEN_CACHE_TYPES = ['Token', 'ServiceAccount'] as const;
export type TokenCacheType = (typeof TOKEN_CACHE_TYPES)[number];

export interface ExecEnvVar {
  name: string;
  value: string;
}

export interface TokenAttributes {
  serviceAccountTokenAudience: string;
  cacheType?: TokenCacheType;
  requireServiceAccount?: boolean;
  requiredServiceAccountAnnotationKeys?: string[];
  optionalServiceAccountAnnotationKeys?: string[];
}

export interface CredentialProvider {
  name: string;
  matchImages: string[];
  /** metav1.Duration as written ("5m", "1h30m"). */
  defaultCacheDuration: string;
  apiVersion: ProtocolApiVersion | string;
  args?: string[];
  env?: ExecEnvVar[];
  tokenAttributes?: TokenAttributes;
}

export interface CredentialProviderConfig {
  apiVersion: ConfigApiVersion | string;
  kind: 'CredentialProviderConfig' | string;
  providers: CredentialProvider[];
}

export interface CredentialProviderRequest {
  apiVersion: ProtocolApiVersion | string;
  kind: 'CredentialProviderRequest';
  image: string;
  /** v1 only, with tokenAttributes. */
  serviceAccountToken?: string;
  serviceAccountAnnotations?: Record<string, string>;
}

export interface AuthConfig {
  username: string;
  password: string;
}

export interface CredentialProviderResponse {
  apiVersion: ProtocolApiVersion | string;
  kind: 'CredentialProviderResponse' | string;
  cacheKeyType: CacheKeyType | string;
  cacheDuration?: string;
  auth?: Record<string, AuthConfig>;
}
