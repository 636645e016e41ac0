// The files of a --image-credential-provider-config directory the kubelet reads,
// in its order (pkg/credentialprovider/plugin/config.go readCredentialProviderConfig,
// 1.34+): os.ReadDir, non-directories named *.json, *.yaml or *.yml, sorted by
// sort.Strings on the joined paths (byte order). Both the config loader here and
// the model of the kubelet's config load (src/model/provider-config-load.ts) use it.
import { join } from 'node:path';

export const CONFIG_EXTENSIONS = ['.json', '.yaml', '.yml'] as const;

export interface DirEntry {
  name: string;
  isDirectory: boolean;
}

/** The files of a config directory the kubelet reads, in its order (full paths). */
export function configFileOrder(dir: string, entries: DirEntry[]): string[] {
  return entries
    .filter((e) => !e.isDirectory && CONFIG_EXTENSIONS.some((x) => extensionOf(e.name) === x))
    .map((e) => join(dir, e.name))
    .sort(byteOrder);
}

/** Go's filepath.Ext: from the last dot of the last element (".yaml"; "" without one). */
function extensionOf(name: string): string {
  const i = name.lastIndexOf('.');
  return i < 0 ? '' : name.slice(i);
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
