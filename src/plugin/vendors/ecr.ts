// ecr-credential-provider (kubernetes/cloud-provider-aws, cmd/ecr-credential-provider),
// unmodified, pointed at fake AWS endpoints on loopback. What it does (read
// from the v1.37.1 source, main.go and plugin.go):
// - accepts only credentialprovider.kubelet.k8s.io/v1 requests ("group version %s is not supported");
// - takes the image host from the request image; the region is the 3rd group of
//   ^(\d{12})\.dkr[.-]ecr(-fips)?\.(region)\.(amazonaws.com|…)$, "" otherwise (then the
//   SDK's default region, i.e. AWS_REGION, applies);
// - calls ECR GetAuthorizationToken (no registryIds) with aws-sdk-go-v2's default
//   config: credentials from the default chain (AWS_ACCESS_KEY_ID/SECRET/SESSION_TOKEN, shared
//   files, web identity, IMDS), endpoint from AWS_ENDPOINT_URL_ECR or AWS_ENDPOINT_URL;
// - KEP-4412 mode: when the request carries a serviceAccountToken and a role ARN (annotation
//   eks.amazonaws.com/ecr-role-arn, else env AWS_ECR_ROLE_ARN), it calls STS
//   AssumeRoleWithWebIdentity (anonymous, RoleSessionName "ecr-credential-provider") and signs the
//   ECR call with the returned session credentials; with a token and no ARN it falls back to the chain;
// - answers cacheKeyType Registry, auth {<image host>: {username, password}} from the
//   base64 "user:password" token, cacheDuration = floor((expiresAt - now) / 2) seconds, or 0s when
//   the token has no expiry, or no cacheDuration at all (nil) when that half is not positive.
import type { CredentialProvider, ExecEnvVar, TokenAttributes } from '../../api/credentialprovider/types.ts';
import type { FakeAwsEndpoints } from '../../fake-clouds/aws/index.ts';
import type { VendorPluginRecipe } from './build.ts';

/** Where the lab sends the plugin's SDK (fake AWS's services on loopback). */
export type { FakeAwsEndpoints };

export const ECR_PLUGIN = 'ecr-credential-provider';
export const ECR_MODULE = 'k8s.io/cloud-provider-aws';
/** Newest release the Go module proxy serves (go list -m -versions k8s.io/cloud-provider-aws). */
export const ECR_PLUGIN_VERSION = 'v1.37.1';
export const ECR_ROLE_ANNOTATION = 'eks.amazonaws.com/ecr-role-arn';
/** Where the plugin's source lives, for check sources. */
export const ECR_SOURCE = `kubernetes/cloud-provider-aws ${ECR_PLUGIN_VERSION} cmd/ecr-credential-provider/main.go`;

export const ECR_RECIPE: VendorPluginRecipe = {
  binary: ECR_PLUGIN,
  module: ECR_MODULE,
  packageDir: './cmd/ecr-credential-provider',
  // The vendor Makefile's LDFLAGS (target ecr-credential-provider).
  ldflags: (v) => `-w -s -X k8s.io/component-base/version.gitVersion=${v} -X main.gitVersion=${v}`,
};

/** The plugin's private-registry host pattern (main.go ecrPrivateHostPattern). */
const ECR_PRIVATE_HOST =
  /^(\d{12})\.dkr[.-]ecr(-fips)?\.([a-zA-Z0-9][a-zA-Z0-9-_]*)\.(amazonaws\.(?:com(?:\.cn)?|eu)|on\.(?:aws|amazonwebservices\.com\.cn)|sc2s\.sgov\.gov|c2s\.ic\.gov|cloud\.adc-e\.uk|csp\.hci\.ic\.gov)$/;

/** The region the plugin derives from an image host, or undefined (then it would use the SDK default). */
export function ecrRegionOf(host: string): string | undefined {
  return ECR_PRIVATE_HOST.exec(host)?.[3];
}

export function ecrHost(account: string, region: string): string {
  return `${account}.dkr.ecr.${region}.amazonaws.com`;
}

/**
 * The provider entry's env: every endpoint the SDK could use points at loopback,
 * IMDS is off (and its endpoint is a closed loopback port besides), the shared
 * config and credentials files are empty, so nothing from the host's $HOME or
 * environment can send the plugin to a real AWS endpoint. Static keys only in
 * non-SA mode; in SA mode the only credentials are the ones STS hands out.
 */
export function ecrPluginEnv(
  endpoints: FakeAwsEndpoints,
  o: { staticKeys?: { accessKeyId: string; secretAccessKey: string }; roleArn?: string } = {},
): ExecEnvVar[] {
  const env: Record<string, string> = {
    AWS_ENDPOINT_URL_ECR: endpoints.ecr,
    AWS_ENDPOINT_URL_STS: endpoints.sts,
    AWS_ENDPOINT_URL_ECR_PUBLIC: endpoints.other,
    AWS_ENDPOINT_URL: endpoints.other,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_EC2_METADATA_SERVICE_ENDPOINT: endpoints.other,
    AWS_CONFIG_FILE: '/dev/null',
    AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    AWS_PROFILE: '',
    AWS_MAX_ATTEMPTS: '1',
    // The kubelet's environment may carry these; an empty value is "unset" for the SDK.
    AWS_ACCESS_KEY_ID: o.staticKeys?.accessKeyId ?? '',
    AWS_SECRET_ACCESS_KEY: o.staticKeys?.secretAccessKey ?? '',
    AWS_SESSION_TOKEN: '',
    AWS_WEB_IDENTITY_TOKEN_FILE: '',
    AWS_ROLE_ARN: '',
    AWS_CONTAINER_CREDENTIALS_FULL_URI: '',
    AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '',
    AWS_REGION: '',
    AWS_DEFAULT_REGION: '',
    AWS_ECR_ROLE_ARN: o.roleArn ?? '',
  };
  return Object.entries(env).map(([name, value]) => ({ name, value }));
}

export interface EcrProviderOptions {
  name?: string;
  matchImages: string[];
  defaultCacheDuration?: string;
  env: ExecEnvVar[];
  tokenAttributes?: TokenAttributes;
}

/** A provider entry for the plugin (protocol v1: the only one it accepts). */
export function ecrProvider(o: EcrProviderOptions): CredentialProvider {
  return {
    name: o.name ?? ECR_PLUGIN,
    apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
    matchImages: o.matchImages,
    // Upstream's sample config uses 12h; the plugin always sets cacheDuration itself when the token has an expiry.
    defaultCacheDuration: o.defaultCacheDuration ?? '12h',
    env: o.env,
    ...(o.tokenAttributes ? { tokenAttributes: o.tokenAttributes } : {}),
  };
}

/** KEP-4412 attributes for the plugin's SA mode: the role ARN annotation is required. */
export function ecrTokenAttributes(audience: string): TokenAttributes {
  return {
    serviceAccountTokenAudience: audience,
    cacheType: 'ServiceAccount',
    requireServiceAccount: true,
    requiredServiceAccountAnnotationKeys: [ECR_ROLE_ANNOTATION],
  };
}
