// The files every kind node mounts from the environment's state dir, written
// (or rewritten, for a kubelet restart) from the spec: the plugins, the
// provider config, containerd's certs.d with its closed-port default, and the
// host paths plugins need at the same place inside the node.
import { realpathSync } from 'node:fs';
import { chmod, copyFile, cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { providerConfigText } from '../../api/credentialprovider/config-text.ts';
import type { EnvironmentSpec } from '../../api/spec/types.ts';
import { cacheDir, exchangeDir } from '../../core/paths.ts';
import { NODE_PATHS, type KindInputs } from './config.ts';
import { nodeImageFor } from './images.ts';
import { DEFAULT_HOSTS_TOML } from './node-image/setup-script.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * What plugins need in a node, at their host paths: the Node that runs the
 * fakes, credprov's own files (the fakes' code), the exchange dir (their
 * scenarios and request logs) and the vendor plugins credprov built.
 */
export function samePathMounts(env: NodeJS.ProcessEnv): Array<{ path: string; readOnly: boolean }> {
  return [
    { path: dirname(dirname(realpathSync(process.execPath))), readOnly: true },
    { path: PACKAGE_ROOT, readOnly: true },
    { path: exchangeDir(env), readOnly: false },
    // Vendor plugins credprov built (ecr-credential-provider), which recording wrappers run from there.
    { path: join(cacheDir(env), 'plugins'), readOnly: true },
  ];
}

export interface NodeFilesOptions {
  spec: EnvironmentSpec;
  /** The environment's state dir. */
  root: string;
  cluster: string;
  nodeImage: string;
  workers: number;
  env: NodeJS.ProcessEnv;
}

/** Writes the mounted files; returns what the cluster config and the kubelet's flags name. */
export async function writeNodeFiles(o: NodeFilesOptions): Promise<KindInputs> {
  const certsDir = join(o.root, 'certs.d');
  await mkdir(join(certsDir, '_default'), { recursive: true });
  await writeFile(join(certsDir, '_default', 'hosts.toml'), DEFAULT_HOSTS_TOML);
  await mkdir(exchangeDir(o.env), { recursive: true });
  await mkdir(join(cacheDir(o.env), 'plugins'), { recursive: true });
  // Emptied, not removed: every node has them mounted.
  const pluginBinDir = await emptyDir(join(o.root, 'plugins'));
  const providerConfigRoot = await emptyDir(join(o.root, 'provider-config'));
  const inputs: KindInputs = {
    samePaths: samePathMounts(o.env),
    name: o.cluster,
    nodeImage: nodeImageFor(o.spec.kubeVersion, o.nodeImage),
    workers: o.workers,
    certsDir,
    pluginBinDir,
    providerConfigRoot,
  };
  const provider = o.spec.credentialProvider;
  if (provider) {
    for (const [plugin, source] of Object.entries(provider.plugins)) {
      await copyFile(source, join(pluginBinDir, plugin));
      await chmod(join(pluginBinDir, plugin), 0o755);
    }
    // A config file keeps its name; a config directory (1.34+) is copied whole.
    const configName = provider.configFile ? basename(provider.configFile) : 'credential-provider-config.yaml';
    if (provider.configFile) await cp(provider.configFile, join(providerConfigRoot, configName), { recursive: true });
    else if (provider.config)
      await writeFile(join(providerConfigRoot, configName), providerConfigText(provider.config));
    inputs.providerConfig = { nodePath: `${NODE_PATHS.providerConfigRoot}/${configName}` };
  }
  return inputs;
}

async function emptyDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const f of await readdir(dir)) await rm(join(dir, f), { recursive: true, force: true });
  return dir;
}
