// Everything `credprov certify kubelet-plugin` needs to certify the real
// auth-provider-gcp (gcr flow) without Google: the plugin (cached build), the
// fake GCE metadata server (src/fake-clouds/google, the one vendor-gcp uses,
// with Google's own token life: 3600 s, refreshed 300 s before its end), and
// metadata.google.internal mapped to it in this host's /etc/hosts. The plugin's
// metadata URL is hard-coded (GCE_METADATA_HOST is not honoured), so the name
// must resolve for the hermetic probes (the plugin runs on this host) and for
// the kubelet of --live: on the local provider the nodes are this host, so the
// same line serves both. Two token-auth registries answer as gcr.io and as an
// Artifact Registry host; their token services accept `_token` with an
// unexpired access token the metadata server minted. The provider entry is GKE's
// node entry (cluster/gce/gci/configure.sh), unchanged.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Auth, busyboxImage, processProvider, type StartedRegistry } from '../../registry/index.ts';
import type { CredentialProviderConfig } from '../api/credentialprovider/types.ts';
import { mapHostnamesHere } from '../cluster/node-hostnames.ts';
import { createCA } from '../core/tls.ts';
import type { Logger } from '../core/logger.ts';
import type { Progress } from '../core/progress.ts';
import { FakeGce } from '../fake-clouds/google/index.ts';
import { GCE_METADATA_HOST, GCE_NODE_PROVIDER } from '../model/auth-provider-gcp.ts';
import { AUTH_PROVIDER_GCP_RECIPE, AUTH_PROVIDER_GCP_VERSION } from '../plugin/vendors/auth-provider-gcp.ts';
import { ensureVendorPlugin, type VendorPluginBinary } from '../plugin/vendors/build.ts';
import { kubeletCertifyArgv } from './certify-argv.ts';
import { acceptGoogleLogins } from './gcp-lab.ts';

const PROJECT = 'credprov-certify';
/** The image hosts the two registries answer as, and the token service each one is (the fake's login rule). */
const HOSTS = [
  { host: 'gcr.io', service: 'gcr.io', repository: `${PROJECT}/app` },
  { host: 'us-docker.pkg.dev', service: 'docker.pkg.dev', repository: `${PROJECT}/repo/app` },
] as const;

export interface GcpCertifyLab {
  plugin: VendorPluginBinary;
  fake: FakeGce;
  registries: StartedRegistry[];
  configFile: string;
  /** One image per registry: gcr.io and Artifact Registry. */
  images: string[];
  /** `--registry-for` values: <image host>=<registry host:port>. */
  registryFor: string[];
  /** The CA that signed both registries' certificates. */
  caFile: string;
  stop(): Promise<void>;
}

export async function startGcpCertifyLab(o: {
  dir: string;
  progress?: Progress;
  log?: Logger;
}): Promise<GcpCertifyLab> {
  const plugin = await ensureVendorPlugin(AUTH_PROVIDER_GCP_RECIPE, {
    version: AUTH_PROVIDER_GCP_VERSION,
    ...(o.progress ? { progress: o.progress } : {}),
    ...(o.log ? { log: o.log } : {}),
  });
  if (!plugin) throw new Error('auth-provider-gcp was neither cached nor built');
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    await mkdir(o.dir, { recursive: true });
    const fake = new FakeGce({
      email: `node-sa@${PROJECT}.iam.gserviceaccount.com`,
      tokenLifetimeS: 3600,
      refreshBeforeS: 300,
      logFile: join(o.dir, 'fake-gce-requests.jsonl'),
      loginLogFile: join(o.dir, 'google-registry-logins.jsonl'),
    });
    stops.push(() => fake.stop());
    const endpoints = await fake.start();
    const names = await mapHostnamesHere([
      { hostname: GCE_METADATA_HOST.replace(/\.$/, ''), address: endpoints.metadataAddress },
    ]);
    stops.push(() => names.stop());
    const image = await busyboxImage({ marker: 'credprov-gcp-certify' });
    const ca = await createCA(join(o.dir, 'ca'));
    const registries: StartedRegistry[] = [];
    for (const h of HOSTS) {
      const registry = await processProvider(o.log ? { logger: o.log } : {}).start({
        name: `gcp-cert-${h.service.replace(/\W+/g, '-')}-${randomBytes(3).toString('hex')}`,
        auth: Auth.token({ users: [] }),
        tls: true,
        ca,
        ...(o.log ? { logger: o.log } : {}),
      });
      stops.push(() => registry.stop());
      acceptGoogleLogins(registry, fake, h.service);
      await registry.push(image, { name: h.repository, tag: 'v1' });
      registries.push(registry);
    }
    const config: CredentialProviderConfig = {
      apiVersion: 'kubelet.config.k8s.io/v1',
      kind: 'CredentialProviderConfig',
      providers: [
        {
          name: GCE_NODE_PROVIDER.name,
          apiVersion: GCE_NODE_PROVIDER.apiVersion,
          matchImages: [...GCE_NODE_PROVIDER.matchImages],
          defaultCacheDuration: GCE_NODE_PROVIDER.defaultCacheDuration,
          args: [...GCE_NODE_PROVIDER.args],
        },
      ],
    };
    const configFile = join(o.dir, 'auth-provider-gcp.yaml');
    await writeFile(configFile, stringify(config), { mode: 0o600 });
    return {
      plugin,
      fake,
      registries,
      configFile,
      images: HOSTS.map((h) => `${h.host}/${h.repository}:v1`),
      registryFor: HOSTS.map((h, i) => `${h.host}=${registries[i]!.host}`),
      caFile: registries[0]!.caCertPath!,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** `credprov certify kubelet-plugin` on the lab: GKE's entry, the two images, pulls verified against the registries. */
export function gcpCertifyArgv(lab: GcpCertifyLab): string[] {
  return kubeletCertifyArgv({ ...lab, pluginPath: lab.plugin.path });
}
