// The vendor-ecr suite's plan: accounts, regions, provider names, token
// lifetimes and the kubelet's provider config. Data only: no I/O.
//
// Providers (one kubelet config):
//   ecr-credential-provider            *.dkr.ecr.us-east-1…, *.dkr.ecr.us-west-2…   static keys (non-SA)
//   ecr-credential-provider-sa         *.dkr.ecr.eu-west-1…     KEP-4412, audience STS accepts
//   ecr-credential-provider-wrong-aud  *.dkr.ecr.eu-central-1…  KEP-4412, audience STS refuses
// The fake ECR's tokens live 12h, except in us-west-2 (24s) for the refresh case,
// where every new token also rotates that registry's password (the old token dies).
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import type { KubeBehaviour } from '../../src/versions/table.ts';
import {
  ECR_PLUGIN,
  ecrHost,
  ecrPluginEnv,
  ecrProvider,
  ecrTokenAttributes,
  tokenAttributesFor,
  type FakeAwsEndpoints,
} from '../../src/run/kit.ts';

export const ACCOUNT = '111122223333';
export const OTHER_ACCOUNT = '444455556666';
export const REGION = { static: 'us-east-1', refresh: 'us-west-2', sa: 'eu-west-1', wrongAud: 'eu-central-1' } as const;
export const PROVIDER = { static: ECR_PLUGIN, sa: `${ECR_PLUGIN}-sa`, wrongAud: `${ECR_PLUGIN}-wrong-aud` } as const;
export const TOKEN_LIFETIME_MS = 12 * 3600_000;
/** The refresh case's token: the plugin answers half (≈12s), long enough for a second pod, short enough to wait out. */
export const REFRESH_LIFETIME_MS = 24_000;
/** The refresh case's last pull: this long after the cached entry expires. */
export const AFTER_EXPIRY_MS = 1500;
export const POD_TIMEOUT_MS = 60_000;
/** The STS role's subject names it at prepare time, before any environment exists: the pods run in default. */
export const NAMESPACE = 'default';
export const NODE_USER = `arn:aws:iam::${ACCOUNT}:user/kubelet-node`;
export const MODELS = {
  oracle: 'matching oracle (src/matching)',
  cache: 'cache model (src/model/credential-cache.ts)',
  sa: 'service-account model (src/model/service-account-token.ts)',
  plugin: 'ecr-credential-provider v1.37.1 source (cmd/ecr-credential-provider/main.go)',
};

/** The ECR-shaped hosts the lab registries serve as (containerd routes them through hosts.toml). */
export const HOSTS = {
  static: ecrHost(ACCOUNT, REGION.static),
  other: ecrHost(OTHER_ACCOUNT, REGION.static),
  refresh: ecrHost(ACCOUNT, REGION.refresh),
  sa: ecrHost(ACCOUNT, REGION.sa),
  wrongAud: ecrHost(ACCOUNT, REGION.wrongAud),
  public: 'public.ecr.aws',
} as const;

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

export const IMAGES = {
  app: image(HOSTS.static, 'team/app'),
  other: image(HOSTS.static, 'team/other'),
  otherAccount: image(HOSTS.other, 'team/app'),
  refresh: image(HOSTS.refresh, 'team/app'),
  sa: image(HOSTS.sa, 'team/app'),
  wrongAud: image(HOSTS.wrongAud, 'team/app'),
  public: image(HOSTS.public, 'team/app'),
} as const;

/** One run's names: random per run, so a reused environment keeps runs apart. */
export interface RunNames {
  id: string;
  audience: string;
  wrongAudience: string;
  roleArn: string;
  /** The service account with the role annotation. */
  puller: string;
  /** The service account without it. */
  bare: string;
}

export function runNames(id: string): RunNames {
  return {
    id,
    audience: `credprov-ecr-${id}`,
    wrongAudience: `credprov-ecr-other-${id}`,
    roleArn: `arn:aws:iam::${ACCOUNT}:role/credprov-ecr-pull-${id}`,
    puller: `ecr-puller-${id}`,
    bare: `ecr-bare-${id}`,
  };
}

const matchRegion = (region: string) => `*.dkr.ecr.${region}.amazonaws.com`;

/**
 * The kubelet's provider config, as the kubelet of `behaviour` reads it (tokenAttributesFor): every AWS
 * endpoint of the plugin's env points at the fake.
 */
export function providerConfig(
  endpoints: FakeAwsEndpoints,
  staticKeys: { accessKeyId: string; secretAccessKey: string },
  names: RunNames,
  behaviour: KubeBehaviour,
): CredentialProviderConfig {
  return {
    apiVersion: 'kubelet.config.k8s.io/v1',
    kind: 'CredentialProviderConfig',
    providers: [
      ecrProvider({
        name: PROVIDER.static,
        matchImages: [matchRegion(REGION.static), matchRegion(REGION.refresh)],
        env: ecrPluginEnv(endpoints, { staticKeys }),
      }),
      ecrProvider({
        name: PROVIDER.sa,
        matchImages: [matchRegion(REGION.sa)],
        env: ecrPluginEnv(endpoints),
        tokenAttributes: tokenAttributesFor(behaviour, ecrTokenAttributes(names.audience)),
      }),
      ecrProvider({
        name: PROVIDER.wrongAud,
        matchImages: [matchRegion(REGION.wrongAud)],
        env: ecrPluginEnv(endpoints),
        tokenAttributes: tokenAttributesFor(behaviour, ecrTokenAttributes(names.wrongAudience)),
      }),
    ],
  };
}
