// Builds (or finds in the cache) what issue 31 adds, and says how long each
// took: the three real plugins (auth-provider-gcp, Azure's kubelogin, oci-cli)
// and the three field clients' probes (fabric8, kube-rs, kubernetes_asyncio).
// Run: node scripts/build-field.ts [name...]   (default: all, one after the other)
// For a cold build, point the caches somewhere empty, e.g.
//   CREDPROV_CACHE_DIR=$(mktemp -d) GOCACHE=$(mktemp -d) GOMODCACHE=$(mktemp -d) \
//   node scripts/build-field.ts --maven-repo "$(mktemp -d)" --cargo-home "$(mktemp -d)"
import { parseArgs } from 'node:util';
import { ensureVendorPlugin } from '../src/plugin/vendors/build.ts';
import { AUTH_PROVIDER_GCP_RECIPE, AUTH_PROVIDER_GCP_VERSION } from '../src/plugin/vendors/auth-provider-gcp.ts';
import { ensureAzureKubelogin } from '../src/plugin/vendors/azure-kubelogin.ts';
import { ensureOciCli } from '../src/plugin/vendors/oci-cli.ts';
import { ensureFabric8Probe } from '../src/clients/fabric8/fabric8.ts';
import { ensureKubeRsProbe } from '../src/clients/kube-rs/kube-rs.ts';
import { ensureKubernetesAsyncio } from '../src/clients/kubernetes-asyncio/kubernetes-asyncio.ts';
import { stderrProgress } from '../src/core/progress.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'maven-repo': { type: 'string' }, 'cargo-home': { type: 'string' } },
});
const progress = stderrProgress();
type Built = { path?: string; dir?: string; fromCache: boolean } | undefined;
const TARGETS: Record<string, () => Promise<Built>> = {
  'auth-provider-gcp': () =>
    ensureVendorPlugin(AUTH_PROVIDER_GCP_RECIPE, { version: AUTH_PROVIDER_GCP_VERSION, progress }),
  kubelogin: () => ensureAzureKubelogin({ progress }),
  'oci-cli': () => ensureOciCli({ progress }),
  fabric8: () => ensureFabric8Probe({ progress, ...(values['maven-repo'] ? { mavenRepo: values['maven-repo'] } : {}) }),
  'kube-rs': () =>
    ensureKubeRsProbe({ progress, ...(values['cargo-home'] ? { cargoHome: values['cargo-home'] } : {}) }),
  'kubernetes-asyncio': () => ensureKubernetesAsyncio({ progress }),
};
const names = positionals.length > 0 ? positionals : Object.keys(TARGETS);
let failed = 0;
for (const name of names) {
  const target = TARGETS[name];
  if (!target) {
    console.error(`error: unknown target '${name}' (one of ${Object.keys(TARGETS).join(', ')})`);
    process.exit(2);
  }
  const t0 = performance.now();
  try {
    const built = await target();
    const s = ((performance.now() - t0) / 1000).toFixed(1);
    console.log(`${name}: ${built?.fromCache ? 'cached' : 'built'} in ${s} s: ${built?.path ?? built?.dir ?? '?'}`);
  } catch (err) {
    failed++;
    const e = err as Error & { detail?: string; hint?: string };
    console.log(`${name}: FAILED after ${((performance.now() - t0) / 1000).toFixed(1)} s: ${e.message}`);
    if (e.detail) console.error(e.detail);
    if (e.hint) console.error(`hint: ${e.hint}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
