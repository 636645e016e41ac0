// Everything `credprov certify kubelet-plugin` needs to certify the real
// acr-credential-provider without Azure: the plugin (cached build), an azure.json
// with a static service principal (the mode that answers without any network), a
// registry (htpasswd user = the client id, password = the client secret, TLS with a
// credprov CA) holding two images, and a provider config as upstream's example
// (examples/out-of-tree/credential-provider-config.yaml: the four ACR clouds and
// mcr.microsoft.com, defaultCacheDuration 10m, the azure.json path as its argument).
// Images are named under an ACR login server; --registry-for says which registry serves it.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Auth, busyboxImage, processProvider, type StartedRegistry } from '../../registry/index.ts';
import type { CredentialProviderConfig } from '../api/credentialprovider/types.ts';
import type { Logger } from '../core/logger.ts';
import type { Progress } from '../core/progress.ts';
import {
  ACR_PLUGIN,
  ACR_PLUGIN_VERSION,
  ACR_RECIPE,
  ACR_REGISTRY_URLS,
  type AzureJson,
} from '../plugin/vendors/acr.ts';
import { ensureVendorPlugin, type VendorPluginBinary } from '../plugin/vendors/build.ts';
import { kubeletCertifyArgv } from './certify-argv.ts';

export const UPSTREAM_ACR_MATCH_IMAGES = [...ACR_REGISTRY_URLS, 'mcr.microsoft.com'];

export interface AcrCertifyLab {
  plugin: VendorPluginBinary;
  registry: StartedRegistry;
  configFile: string;
  /** Two images under the same login server (one cache key for the plugin's Registry answers). */
  images: string[];
  loginServer: string;
  /** `--registry-for` value: <login server>=<registry host:port>. */
  registryFor: string;
  caFile: string;
  /** The secrets in play (for a redactor or a "nothing leaked" assertion). */
  secrets: string[];
  stop(): Promise<void>;
}

export async function startAcrCertifyLab(o: {
  dir: string;
  progress?: Progress;
  log?: Logger;
}): Promise<AcrCertifyLab> {
  const plugin = await ensureVendorPlugin(ACR_RECIPE, {
    version: ACR_PLUGIN_VERSION,
    ...(o.progress ? { progress: o.progress } : {}),
    ...(o.log ? { log: o.log } : {}),
  });
  if (!plugin) throw new Error('acr-credential-provider was neither cached nor built');
  const clientId = randomUUID();
  const clientSecret = randomBytes(24).toString('base64url');
  await mkdir(o.dir, { recursive: true });
  const azureJsonFile = join(o.dir, 'azure.json');
  const azure: AzureJson = {
    cloud: 'AzurePublicCloud',
    tenantId: randomUUID(),
    aadClientId: clientId,
    aadClientSecret: clientSecret,
  };
  await writeFile(azureJsonFile, JSON.stringify(azure, null, 2), { mode: 0o600 });
  const registry = await processProvider(o.log ? { logger: o.log } : {}).start({
    name: `acr-cert-${randomBytes(3).toString('hex')}`,
    auth: Auth.htpasswd([{ username: clientId, password: clientSecret }]),
    tls: true,
    ...(o.log ? { logger: o.log } : {}),
  });
  try {
    const image = await busyboxImage({ marker: 'credprov-acr-certify' });
    await registry.push(image, { name: 'credprov/app', tag: 'v1' });
    await registry.push(image, { name: 'credprov/other', tag: 'v1' });
    const loginServer = `credprov${randomBytes(3).toString('hex')}.azurecr.io`;
    const config: CredentialProviderConfig = {
      apiVersion: 'kubelet.config.k8s.io/v1',
      kind: 'CredentialProviderConfig',
      providers: [
        {
          name: ACR_PLUGIN,
          apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
          defaultCacheDuration: '10m',
          matchImages: UPSTREAM_ACR_MATCH_IMAGES,
          args: [azureJsonFile],
        },
      ],
    };
    const configFile = join(o.dir, 'acr-credential-provider.yaml');
    await writeFile(configFile, stringify(config), { mode: 0o600 });
    return {
      plugin,
      registry,
      configFile,
      loginServer,
      images: [`${loginServer}/credprov/app:v1`, `${loginServer}/credprov/other:v1`],
      registryFor: `${loginServer}=${registry.host}`,
      caFile: registry.caCertPath!,
      secrets: [clientSecret],
      stop: () => registry.stop(),
    };
  } catch (err) {
    await registry.stop();
    throw err;
  }
}

/** `credprov certify kubelet-plugin` on the lab: its plugin, config and images, pulls verified against its registry. */
export function acrCertifyArgv(lab: AcrCertifyLab, extraImages: string[] = []): string[] {
  return kubeletCertifyArgv({
    ...lab,
    pluginPath: lab.plugin.path,
    images: [...lab.images, ...extraImages],
    registryFor: [lab.registryFor],
  });
}
