// Everything the project's tests need built, as one list of named builds
// (`credprov binaries ensure --for tests`): the default kube binaries and
// containerd, the older kubelets of the version-skew tests, the unmodified
// vendor plugins (issue 31's auth-provider-gcp, Azure kubelogin and oci-cli
// too), the client-go probe, the probes of the three field clients (fabric8,
// kube-rs, kubernetes_asyncio), the kubelet probe of the differential
// tests, and kubeadm, etcd and the kind CLI for the kind tier. Each is cached on its own (a warm run takes seconds). They
// run a few at a time; those that compile the same Kubernetes packages wait
// for the kube build, whose Go build cache they then reuse instead of
// compiling those packages a second time beside it.
//
// Two stages: `early` (the kube binaries, containerd, the client-go probe) is
// what most test files need; `late` (older kubelets, vendor plugins, the kind
// tier's builds) is needed only by the test files each late build names, so
// the test command builds it niced beside the other files and runs each of
// those once the builds that name it have ended (scripts/late-tests.ts).
// A suite that needs a late build is named too: the e2e table's local leg runs
// it in the file its builds name (test/e2e/suites-local-late.e2e.test.ts for
// the vendor plugins and field clients, suites-local-skew.e2e.test.ts for the
// older kubelets, which build last).
import { ensureContainerd } from '../cluster/binaries/containerd.ts';
import { ensureKubeadm } from '../cluster/binaries/kubeadm.ts';
import { resolveKubeBinaries } from '../cluster/binaries/resolve.ts';
import { ensureEtcd, etcdOfKubeadm, ensureKind } from '../cluster/kind/builds/index.ts';
import { ensureClientGoProbe } from '../clients/client-go.ts';
import { ensureFabric8Probe } from '../clients/fabric8/fabric8.ts';
import { ensureKubeRsProbe } from '../clients/kube-rs/kube-rs.ts';
import { ensureKubernetesAsyncio } from '../clients/kubernetes-asyncio/kubernetes-asyncio.ts';
import { ensureKubeletProbe } from '../differential/kubelet-probe.ts';
import type { Logger } from '../core/logger.ts';
import type { Progress } from '../core/progress.ts';
import { errorMessage } from '../core/errors.ts';
import { ACR_PLUGIN_VERSION, ACR_RECIPE } from '../plugin/vendors/acr.ts';
import { AUTH_PROVIDER_GCP_RECIPE, AUTH_PROVIDER_GCP_VERSION } from '../plugin/vendors/auth-provider-gcp.ts';
import { ensureAzureKubelogin } from '../plugin/vendors/azure-kubelogin.ts';
import { ensureOciCli } from '../plugin/vendors/oci-cli.ts';
import { ensureAwsCli } from '../plugin/vendors/aws-cli.ts';
import { IAM_AUTHENTICATOR_RECIPE, IAM_AUTHENTICATOR_VERSION } from '../plugin/vendors/aws-iam-authenticator.ts';
import { ensureVendorPlugin, type VendorPluginRecipe } from '../plugin/vendors/build.ts';
import { ECR_PLUGIN_VERSION, ECR_RECIPE } from '../plugin/vendors/ecr.ts';
import { GKE_PLUGIN_RECIPE, GKE_PLUGIN_VERSION } from '../plugin/vendors/gke-gcloud-auth-plugin.ts';
import { KUBELOGIN_RECIPE, KUBELOGIN_VERSION } from '../plugin/vendors/kubelogin.ts';
import { SKEW_KUBELET_VERSIONS } from '../versions/skew.ts';
import { DEFAULT_KUBE_VERSION, parseKubeVersion } from '../versions/table.ts';

/** The first kubectl minor with kuberc's credential-plugin policy (the version table's kubercPluginPolicy). */
const KUBERC_POLICY_FIRST_MINOR = 35;

export interface BuildContext {
  progress: Progress;
  log: Logger;
  signal?: AbortSignal;
}

export type BuildStage = 'early' | 'late';

export interface TestBuild {
  /** Its name in the progress lines and the timing table. */
  name: string;
  /** The tests that need it. */
  for: string;
  stage: BuildStage;
  /** A late build: the test files that need it (the only ones that may), run after the late builds. */
  tests?: string[];
  /** A late build: the suites whose runs need it (the e2e table runs them in its late file). */
  suites?: string[];
  /** Builds to finish first (by name). */
  after?: string[];
  run(ctx: BuildContext): Promise<unknown>;
}

export interface BuildTiming {
  name: string;
  startedAt: number;
  endedAt: number;
  error?: string;
}

const KUBE = 'kube binaries';

export function testBuilds(kubeVersionSpec: string = DEFAULT_KUBE_VERSION): TestBuild[] {
  // What the kube build resolved (1.37 → v1.37.1): the builds after it use the exact release.
  let kubeVersion = kubeVersionSpec;
  const common = (c: BuildContext) => ({ progress: c.progress, log: c.log, ...(c.signal ? { signal: c.signal } : {}) });
  const vendor = (
    recipe: VendorPluginRecipe,
    version: string,
    why: string,
    suite: string,
    tests: string[],
  ): TestBuild => ({
    name: recipe.binary,
    for: why,
    stage: 'late',
    tests: [...tests, LOCAL_LATE],
    suites: [suite],
    run: (c) => ensureVendorPlugin(recipe, { version, ...common(c) }),
  });
  const [newestSkew, ...olderSkew] = SKEW_KUBELET_VERSIONS;
  // kuberc-policy runs kubectl of each minor with a credential-plugin policy (1.35+): it comes with that minor's kubelet.
  const withKubectl = (minor: string) => parseKubeVersion(minor).minor >= KUBERC_POLICY_FIRST_MINOR;
  const skew = (minor: string): TestBuild => ({
    name: withKubectl(minor) ? `kubelet and kubectl ${minor}` : `kubelet ${minor}`,
    for: `the version-skew tests${minor === newestSkew ? ' and the downgrade suite (which waits for it, or builds it)' : ''}${withKubectl(minor) ? ', and kubectl for the kuberc-policy suite' : ''}`,
    stage: 'late',
    tests: [LOCAL_SKEW, 'test/e2e/local-restart.e2e.test.ts'],
    suites: ['version-skew', ...(withKubectl(minor) ? ['kuberc-policy'] : [])],
    after: [KUBE],
    run: (c) =>
      resolveKubeBinaries({
        version: minor,
        names: withKubectl(minor) ? ['kubelet', 'kubectl'] : ['kubelet'],
        ...common(c),
      }),
  });
  return [
    // Early: what the unit tests and most end-to-end files need.
    {
      name: KUBE,
      for: `every cluster test, and kubectl of the client matrix (kube ${kubeVersionSpec})`,
      stage: 'early',
      run: async (c) => {
        kubeVersion = (await resolveKubeBinaries({ version: kubeVersionSpec, ...common(c) })).version;
      },
    },
    {
      name: 'containerd',
      for: 'every cluster test',
      stage: 'early',
      run: (c) => ensureContainerd({ kubeVersion: kubeVersionSpec, ...common(c) }),
    },
    {
      name: 'client-go probe',
      for: 'the exec-plugin client matrix (unit and e2e)',
      stage: 'early',
      after: [KUBE],
      run: (c) => ensureClientGoProbe({ kubeVersion, progress: c.progress, ...(c.signal ? { signal: c.signal } : {}) }),
    },
    // Late, in the order they are started (two at a time): the downgrade suite's kubelet first (an early end-to-end
    // file waits for it); then what the longest late files need, so that each starts once the other end-to-end
    // files are done: the kind tier's builds (test/e2e/kind.e2e.test.ts), the vendor plugins and field clients of
    // the e2e table's late file; the older kubelets last (the file that needs them is short).
    ...(newestSkew ? [skew(newestSkew)] : []),
    {
      // The longest cold build (its go.mod's Go toolchain first, then the Azure SDK): started early.
      name: 'Azure kubelogin',
      for: 'the vendor-azure-kubelogin tests',
      stage: 'late',
      tests: [LOCAL_LATE],
      suites: ['vendor-azure-kubelogin'],
      run: (c) => ensureAzureKubelogin(common(c)),
    },
    {
      name: 'kubeadm',
      for: 'the kind tier (its node image)',
      stage: 'late',
      tests: ['test/e2e/kind.e2e.test.ts'],
      after: [KUBE],
      run: (c) => ensureKubeadm({ kubeVersion, ...common(c) }),
    },
    {
      name: 'etcd',
      for: "the kind tier (the etcd kubeadm's control plane runs; a unit test starts it)",
      stage: 'late',
      tests: ['src/cluster/kind/builds/etcd.test.ts', 'test/e2e/kind.e2e.test.ts'],
      after: ['kubeadm'],
      run: async (c) => {
        const kubeadm = await ensureKubeadm({ kubeVersion, ...common(c) });
        return ensureEtcd({ version: (await etcdOfKubeadm(kubeadm, kubeVersion)).version, ...common(c) });
      },
    },
    {
      name: 'kind CLI',
      for: 'the kind tier (a unit test runs it)',
      stage: 'late',
      tests: ['src/cluster/kind/builds/kind-cli.test.ts', 'test/e2e/kind.e2e.test.ts'],
      run: (c) => ensureKind(common(c)),
    },
    vendor(ACR_RECIPE, ACR_PLUGIN_VERSION, 'the vendor-acr tests', 'vendor-acr', [
      'src/fake-clouds/azure/fake-azure.test.ts',
      'test/e2e/vendor-acr.e2e.test.ts',
      'test/e2e/kind.e2e.test.ts',
    ]),
    vendor(ECR_RECIPE, ECR_PLUGIN_VERSION, 'the vendor-ecr tests and certify --live', 'vendor-ecr', [
      'src/fake-clouds/aws/fake-aws.test.ts',
      'test/e2e/certify-live.e2e.test.ts',
      'test/e2e/kind.e2e.test.ts',
    ]),
    vendor(AUTH_PROVIDER_GCP_RECIPE, AUTH_PROVIDER_GCP_VERSION, 'the vendor-gcp tests', 'vendor-gcp', [
      'src/fake-clouds/google/gce.test.ts',
      'test/e2e/kind.e2e.test.ts',
    ]),
    // The field clients of the exec matrix: the unit tests that drive them, and the exec-plugin-401 suite, which runs
    // every client. Maven and cargo downloads, then javac and rustc: no Go, so beside the Go builds.
    ...fieldClientBuilds(common),
    {
      // Mostly downloads and unpacking: beside the Go builds.
      name: 'oci-cli',
      for: '`oci ce cluster generate-token` in the vendor-oci tests',
      stage: 'late',
      tests: ['src/fake-clouds/oci/fake-oci.test.ts', LOCAL_LATE],
      suites: ['vendor-oci'],
      run: (c) => ensureOciCli(common(c)),
    },
    vendor(
      IAM_AUTHENTICATOR_RECIPE,
      IAM_AUTHENTICATOR_VERSION,
      'the exec-plugin vendor tests (client and server)',
      'vendor-aws-iam-authenticator',
      ['src/fake-clouds/aws/caller-identity.test.ts', 'test/e2e/vendor-aws-iam-authenticator.e2e.test.ts'],
    ),
    vendor(KUBELOGIN_RECIPE, KUBELOGIN_VERSION, 'the JWT exec-plugin vendor tests', 'vendor-kubelogin', [
      'test/e2e/vendor-kubelogin.e2e.test.ts',
    ]),
    vendor(GKE_PLUGIN_RECIPE, GKE_PLUGIN_VERSION, 'the vendor-gke tests', 'vendor-gke', [
      'test/e2e/vendor-gke.e2e.test.ts',
    ]),
    {
      name: 'awscli',
      for: '`aws eks get-token` in the exec-plugin vendor tests',
      stage: 'late',
      tests: ['test/e2e/vendor-aws-iam-authenticator.e2e.test.ts', LOCAL_LATE],
      suites: ['vendor-aws-iam-authenticator'],
      run: (c) => ensureAwsCli(common(c)),
    },
    {
      // The kubelet's credential provider package of the default release: it compiles kube packages, so after KUBE.
      name: 'kubelet probe',
      for: "the differential tests (the kubelet's own response decoding, matching and keyring)",
      stage: 'late',
      tests: ['src/differential/kubelet.test.ts'],
      after: [KUBE],
      run: (c) => ensureKubeletProbe({ kubeVersion, progress: c.progress, ...(c.signal ? { signal: c.signal } : {}) }),
    },
    ...olderSkew.map(skew),
  ];
}

/** The e2e table's local leg for the suites that need a late build other than an older kubelet. */
export const LOCAL_LATE = 'test/e2e/suites-local-late.e2e.test.ts';
/** The e2e table's local leg for the suites that need an older kubelet (or its kubectl). */
export const LOCAL_SKEW = 'test/e2e/suites-local-skew.e2e.test.ts';

/** The test files that run the field clients' probes (each fails under CI when its probe is missing). */
const FIELD_CLIENT_TESTS = ['src/clients/field-probes.test.ts', 'src/certify/exec-plugin/clients.test.ts', LOCAL_LATE];

function fieldClientBuilds(common: (c: BuildContext) => { progress: Progress; signal?: AbortSignal }): TestBuild[] {
  const field = (name: string, what: string, run: TestBuild['run']): TestBuild => ({
    name,
    for: `${what} in the exec client matrix (unit tests, certify exec-plugin --clients, exec-plugin-401)`,
    stage: 'late',
    tests: FIELD_CLIENT_TESTS,
    suites: ['exec-plugin-401'],
    run,
  });
  return [
    // cargo: ~100 s of CPU cold (the dev profile, OpenSSL; src/clients/kube-rs/probe/Cargo.toml).
    field('kube-rs probe', 'kube-rs (the kube crate 5.0.0)', (c) => ensureKubeRsProbe(common(c))),
    field('fabric8 probe', 'fabric8 kubernetes-client 8.0.0', (c) => ensureFabric8Probe(common(c))),
    field('kubernetes_asyncio', 'kubernetes_asyncio 36.1.0', (c) => ensureKubernetesAsyncio(common(c))),
  ];
}

/** The test files that must wait for the late builds (each late build names those that use what it makes). */
export function lateTests(builds: TestBuild[]): string[] {
  return [...new Set(builds.filter((b) => b.stage === 'late').flatMap((b) => b.tests ?? []))].sort();
}

/** The suites whose runs need a late build (those whose builds name `file`, if given): the e2e table runs them in its late files. */
export function lateSuites(builds: TestBuild[], file?: string): string[] {
  const late = builds.filter((b) => b.stage === 'late' && (file === undefined || (b.tests ?? []).includes(file)));
  return [...new Set(late.flatMap((b) => b.suites ?? []))].sort();
}

/** Each test file that needs a late build, with the builds it waits for (by name, in start order). */
export function lateTestNeeds(builds: TestBuild[]): Map<string, string[]> {
  const needs = new Map<string, string[]>();
  for (const b of builds.filter((x) => x.stage === 'late'))
    for (const f of b.tests ?? []) needs.set(f, [...(needs.get(f) ?? []), b.name]);
  return needs;
}

/**
 * Runs `builds`, up to `concurrency` at a time, each once the builds it comes
 * after have ended (a failed one too: its dependants then report their own
 * error). A failure does not stop the others; every build's times come back.
 */
export async function runBuilds(
  builds: TestBuild[],
  ctx: BuildContext,
  concurrency: number,
  onEnd: (t: BuildTiming) => void = () => {},
): Promise<BuildTiming[]> {
  const ended = new Map<string, BuildTiming>();
  const pending = [...builds];
  const running = new Set<Promise<void>>();
  const ready = (b: TestBuild) => (b.after ?? []).every((a) => ended.has(a) || !builds.some((x) => x.name === a));
  while (pending.length > 0 || running.size > 0) {
    // Interrupted: start nothing more, and say so for each build that never started.
    if (ctx.signal?.aborted)
      for (const b of pending.splice(0)) {
        const now = Date.now();
        ended.set(b.name, { name: b.name, startedAt: now, endedAt: now, error: 'not started: interrupted' });
      }
    if (pending.length === 0 && running.size === 0) break;
    const next = running.size < Math.max(1, concurrency) ? pending.findIndex(ready) : -1;
    if (next < 0) {
      await Promise.race(running);
      continue;
    }
    const [b] = pending.splice(next, 1) as [TestBuild];
    const startedAt = Date.now();
    const p: Promise<void> = b.run(ctx).then(
      () => {
        ended.set(b.name, { name: b.name, startedAt, endedAt: Date.now() });
      },
      (err: unknown) => {
        ended.set(b.name, { name: b.name, startedAt, endedAt: Date.now(), error: errorMessage(err) });
      },
    );
    const tracked: Promise<void> = p.finally(() => {
      running.delete(tracked);
      onEnd(ended.get(b.name)!);
    });
    running.add(tracked);
  }
  return builds.map((b) => ended.get(b.name)!);
}
