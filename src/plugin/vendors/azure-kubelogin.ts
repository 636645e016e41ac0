// Azure/kubelogin (`kubelogin get-token`), unmodified: the exec credential
// plugin `az aks get-credentials` writes into AKS kubeconfigs (a different
// program from int128's kubelogin, kubelogin.ts). What it does is modelled in
// src/model/azure-kubelogin.ts.
//
// v0.2.22's go.mod says `go 1.26.10`; this machine's Go is 1.26.8, so the
// build (and the module download, which reads that line) runs with
// GOTOOLCHAIN=go1.27.3, the one newer toolchain the Go module proxy serves
// here (golang.org/toolchain, ~76 MB, fetched once into the module cache).
// The toolchain builds the vendor's source unchanged.
import {
  ensureVendorPlugin,
  type VendorPluginBinary,
  type VendorPluginOptions,
  type VendorPluginRecipe,
} from './build.ts';
import { systemGo } from '../../cluster/binaries/go.ts';

export const AZURE_KUBELOGIN = 'kubelogin';
export const AZURE_KUBELOGIN_MODULE = 'github.com/Azure/kubelogin';
export const AZURE_KUBELOGIN_VERSION = 'v0.2.22';
/** The Go toolchain its go.mod needs (go 1.26.10 or newer). */
export const AZURE_KUBELOGIN_TOOLCHAIN = 'go1.27.3';
/** Where the behaviour lives, for check sources. */
export const AZURE_KUBELOGIN_SOURCE = `Azure/kubelogin ${AZURE_KUBELOGIN_VERSION}`;

export const AZURE_KUBELOGIN_RECIPE: VendorPluginRecipe = {
  binary: AZURE_KUBELOGIN,
  module: AZURE_KUBELOGIN_MODULE,
  packageDir: '.',
  // The Makefile's LDFLAGS: -X main.gitTag=$(GIT_TAG); its release pipeline sets GIT_TAG to the tag.
  ldflags: (v) => `-X main.gitTag=${v}`,
  // cobra's --version prints "kubelogin version \ngit hash: v0.2.22\nGo version: …" (version.go String()).
  versionArgs: ['--version'],
  reportedVersion: (v) => `git hash: ${v}`,
};

/** The cached build, or one build from the Go module proxy with the toolchain its go.mod needs. */
export function ensureAzureKubelogin(
  o: Omit<VendorPluginOptions, 'version'> & { version?: string } = {},
): Promise<VendorPluginBinary | undefined> {
  return ensureVendorPlugin(AZURE_KUBELOGIN_RECIPE, {
    ...o,
    version: o.version ?? AZURE_KUBELOGIN_VERSION,
    go: o.go ?? systemGo({ ...(o.log ? { log: o.log } : {}), env: { GOTOOLCHAIN: AZURE_KUBELOGIN_TOOLCHAIN } }),
  });
}
