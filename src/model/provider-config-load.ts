// credprov's model of how the kubelet reads --image-credential-provider-config
// at start: which files, in which order, the merged provider list, the hash
// it publishes, and the error it exits with. Pure (the files come in as bytes).
// Read from pkg/credentialprovider/plugin/config.go readCredentialProviderConfig,
// identical in v1.34.5, v1.35.4, v1.36.5, v1.37.1 and v1.38.0-alpha.0 (k/k PR
// #131658 the directory, #133016 the hash), and readCredentialProviderConfigFile
// of v1.33.13 (a file only):
//   - a directory: os.ReadDir, keep non-directories named *.json, *.yaml, *.yml,
//     sort.Strings on the joined paths (byte order); none → "no configuration
//     files found in directory %q";
//   - sha256 over, per file in that order, its length as a big-endian uint64
//     then its bytes; published as "sha256:<hex>" (also for a single file);
//   - providers merged in file order; a name seen before → "duplicate provider
//     name %q found in configuration file(s)" (also within one file);
//   - 1.33 reads the path with os.ReadFile: a directory fails with
//     `unable to read external registry credential provider configuration from %q: read <path>: is a directory`.
// Any of these makes RegisterCredentialProviderPlugins fail, and the kubelet
// logs "Failed to register CRI auth plugins" with the error and exits 1
// (pkg/kubelet/kuberuntime/kuberuntime_manager.go).
import { createHash } from 'node:crypto';
import { behaviourFor, type KubeBehaviour } from '../versions/table.ts';

// Which files, in which order: the wire-level reading of the directory, shared with
// the config loader (src/api), which must not depend on this model.
export { CONFIG_EXTENSIONS, configFileOrder, type DirEntry } from '../api/credentialprovider/config-files.ts';

export const REGISTER_FAILED = 'Failed to register CRI auth plugins';

/** The hash the kubelet publishes as kubelet_credential_provider_config_info{hash}. */
export function configHash(files: readonly Uint8Array[]): string {
  const h = createHash('sha256');
  for (const data of files) {
    const len = Buffer.alloc(8);
    len.writeBigUInt64BE(BigInt(data.length));
    h.update(len);
    h.update(data);
  }
  return `sha256:${h.digest('hex')}`;
}

/** One config file as the kubelet will read it: its path and the provider names it declares, in order. */
export interface ConfigFileProviders {
  path: string;
  providers: string[];
}

export type ConfigLoad =
  | { outcome: 'starts'; providers: string[]; because: string }
  | { outcome: 'refuses to start'; error: string; because: string };

/** Go's %q of a plain string (paths and provider names here are printable). */
const goQuote = (s: string) => JSON.stringify(s);

/**
 * What the kubelet does at start with a config path: a file, or a directory
 * whose files (already in the kubelet's order, configFileOrder) declare these
 * providers. Assumes every file decodes and validates on its own.
 */
export function predictConfigLoad(
  path: string,
  kind: 'file' | 'directory',
  files: ConfigFileProviders[],
  version: string | KubeBehaviour,
): ConfigLoad {
  const b = typeof version === 'string' ? behaviourFor(version) : version;
  if (kind === 'directory' && !b.configDirectory) {
    return {
      outcome: 'refuses to start',
      error: `unable to read external registry credential provider configuration from ${goQuote(path)}: read ${path}: is a directory`,
      because: `kubelet 1.${b.minor} reads the path with os.ReadFile (directories from 1.34, k/k PR #131658)`,
    };
  }
  if (kind === 'directory' && files.length === 0) {
    return {
      outcome: 'refuses to start',
      error: `no configuration files found in directory ${goQuote(path)}`,
      because: 'the directory holds no *.json, *.yaml or *.yml file',
    };
  }
  const merged: string[] = [];
  for (const f of files) {
    for (const name of f.providers) {
      if (merged.includes(name)) {
        return {
          outcome: 'refuses to start',
          error: `duplicate provider name ${goQuote(name)} found in configuration file(s)`,
          because: `${name} is declared again in ${f.path}; the kubelet merges files in lexical order and stops at a repeated name`,
        };
      }
      merged.push(name);
    }
  }
  return {
    outcome: 'starts',
    providers: merged,
    because:
      kind === 'directory'
        ? `files merged in lexical order (${files.map((f) => f.path.split('/').pop()).join(', ')}): providers ${merged.join(', ')}`
        : `one file: providers ${merged.join(', ')}`,
  };
}

/**
 * Whether a kubelet's start error carries the predicted error: klog prints it
 * as err="…" with inner quotes escaped, so both forms count. `path`: the config
 * path in the prediction, which a provider may hand the kubelet under another
 * parent (kind copies it into the node): any path ending in its last element matches.
 */
export function errorCarries(observed: string, predicted: string, path?: string): boolean {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = (text: string) => {
    if (!path) return escape(text);
    const last = path.split('/').filter(Boolean).pop() ?? path;
    return text
      .split(path)
      .map(escape)
      .join(`[^\\s"]*/${escape(last)}`);
  };
  const klogQuoted = predicted.replace(/["\\]/g, (c) => `\\${c}`);
  return [predicted, klogQuoted].some((text) => new RegExp(pattern(text)).test(observed));
}
