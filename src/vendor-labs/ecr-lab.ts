// Everything `credprov certify kubelet-plugin` needs to certify the real
// ecr-credential-provider without AWS: the plugin (cached build), the fake
// ECR API on loopback, a registry (htpasswd user AWS, TLS with a credprov CA)
// holding two images, and a provider config whose env points the plugin at
// the fake and gives it static keys. Images are named under an ECR-shaped host;
// --registry-for says which registry serves that host.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Auth, busyboxImage, processProvider, type StartedRegistry } from '../../registry/index.ts';
import type { CredentialProviderConfig } from '../api/credentialprovider/types.ts';
import type { Logger } from '../core/logger.ts';
import type { Progress } from '../core/progress.ts';
import { ensureVendorPlugin, type VendorPluginBinary } from '../plugin/vendors/build.ts';
import { ECR_PLUGIN_VERSION, ECR_RECIPE, ecrHost, ecrPluginEnv, ecrProvider } from '../plugin/vendors/ecr.ts';
import { FakeAws, newIamUser } from '../fake-clouds/aws/index.ts';

/** The matchImages upstream's documentation gives for the plugin (cloud-provider-aws docs/credential_provider.md). */
export const UPSTREAM_MATCH_IMAGES = [
  '*.dkr.ecr.*.amazonaws.com',
  '*.dkr.ecr.*.amazonaws.com.cn',
  '*.dkr.ecr-fips.*.amazonaws.com',
  '*.dkr.ecr.us-iso-east-1.c2s.ic.gov',
  '*.dkr.ecr.us-isob-east-1.sc2s.sgov.gov',
];

export interface EcrCertifyLab {
  plugin: VendorPluginBinary;
  fake: FakeAws;
  registry: StartedRegistry;
  configFile: string;
  /** Two images under the same ECR registry host (one cache key for the plugin's Registry answers). */
  images: string[];
  ecrHost: string;
  /** `--registry-for` value: <ecr host>=<registry host:port>. */
  registryFor: string;
  caFile: string;
  /** The secrets in play (for a redactor or a "nothing leaked" assertion). */
  secrets: string[];
  stop(): Promise<void>;
}

export async function startEcrCertifyLab(o: {
  dir: string;
  account?: string;
  region?: string;
  progress?: Progress;
  log?: Logger;
}): Promise<EcrCertifyLab> {
  const plugin = await ensureVendorPlugin(ECR_RECIPE, {
    version: ECR_PLUGIN_VERSION,
    ...(o.progress ? { progress: o.progress } : {}),
    ...(o.log ? { log: o.log } : {}),
  });
  if (!plugin) throw new Error('ecr-credential-provider was neither cached nor built');
  const account = o.account ?? '123456789012';
  const region = o.region ?? 'us-east-1';
  const password = randomBytes(18).toString('base64url');
  const user = newIamUser('kubelet-node', account);
  await mkdir(o.dir, { recursive: true });
  const fake = new FakeAws({
    users: [user],
    ecr: { password: () => password, lifetimeMs: () => 12 * 3600_000 },
    logFile: join(o.dir, 'fake-aws-requests.jsonl'),
  });
  let registry: StartedRegistry | undefined;
  try {
    const endpoints = await fake.start();
    registry = await processProvider(o.log ? { logger: o.log } : {}).start({
      name: `ecr-cert-${randomBytes(3).toString('hex')}`,
      auth: Auth.htpasswd([{ username: 'AWS', password }]),
      tls: true,
      ...(o.log ? { logger: o.log } : {}),
    });
    const image = await busyboxImage({ marker: 'credprov-ecr-certify' });
    await registry.push(image, { name: 'credprov/app', tag: 'v1' });
    await registry.push(image, { name: 'credprov/other', tag: 'v1' });
    const host = ecrHost(account, region);
    const config: CredentialProviderConfig = {
      apiVersion: 'kubelet.config.k8s.io/v1',
      kind: 'CredentialProviderConfig',
      providers: [
        ecrProvider({ matchImages: UPSTREAM_MATCH_IMAGES, env: ecrPluginEnv(endpoints, { staticKeys: user }) }),
      ],
    };
    const configFile = join(o.dir, 'ecr-credential-provider.yaml');
    await writeFile(configFile, stringify(config), { mode: 0o600 });
    const reg = registry;
    return {
      plugin,
      fake,
      registry,
      configFile,
      ecrHost: host,
      images: [`${host}/credprov/app:v1`, `${host}/credprov/other:v1`],
      registryFor: `${host}=${registry.host}`,
      caFile: registry.caCertPath!,
      secrets: [password, user.secretAccessKey],
      async stop() {
        await fake.stop();
        await reg.stop();
      },
    };
  } catch (err) {
    await fake.stop();
    await registry?.stop();
    throw err;
  }
}
