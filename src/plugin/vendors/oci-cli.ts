// `oci ce cluster generate-token` from PyPI's oci-cli, unmodified: the exec
// credential plugin `oci ce cluster create-kubeconfig` writes into OKE
// kubeconfigs. Installed once into a venv of its own under the cache
// (cluster/binaries/pypi-venv.ts): <cacheDir>/plugins/oci-cli/<version>/{venv/,manifest.json}.
// What it does is modelled in src/model/oci-generate-token.ts.
import { join } from 'node:path';
import { ensurePypiVenv, type PypiVenvInstall, type PypiVenvOptions } from '../../cluster/binaries/pypi-venv.ts';
import { cacheDir as defaultCacheDir } from '../../core/paths.ts';

export const OCI_CLI_VERSION = '3.95.1';
/** Where the behaviour lives, for check sources. */
export const OCI_CLI_SOURCE = `oci-cli ${OCI_CLI_VERSION} services/container_engine/src/oci_cli_container_engine/containerengine_cli_extended.py`;

export function ociCliDir(version = OCI_CLI_VERSION, cacheDir = defaultCacheDir()): string {
  return join(cacheDir, 'plugins', 'oci-cli', version);
}

/** The cached install of oci-cli (the `oci` entry point), installed from PyPI first unless `cachedOnly`. */
export function ensureOciCli(
  o: PypiVenvOptions & { version?: string; cacheDir?: string } = {},
): Promise<PypiVenvInstall | undefined> {
  const version = o.version ?? OCI_CLI_VERSION;
  return ensurePypiVenv(
    { package: 'oci-cli', version, dir: ociCliDir(version, o.cacheDir ?? defaultCacheDir()), entry: 'oci' },
    o,
  );
}
