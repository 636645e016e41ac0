// The e2e table: every suite × the providers it runs on, each run through the
// same helper (src/testing/suite-on-provider.ts), one jest test per check so
// JUnit names the check. A row says what its checks are expected to read where
// that is not a plain pass (a finding, a check of a shape the provider lacks),
// and which further tests it makes over the same run (suite-extras.ts).
// A suite has a kind leg when kind's capabilities meet its needs; the kind
// leg runs all of them on one kind cluster (suites-kind.e2e.test.ts).
import type { Check } from '../../src/report/model.ts';
import type { Suite } from '../../src/run/suite.ts';
import type { SuitesOnProvider, SuitesOnProviderOptions, TableProvider } from '../../src/testing/suite-on-provider.ts';
import { skewProblem } from '../../src/versions/skew.ts';
import { DEFAULT_KUBE_VERSION, parseKubeVersion } from '../../src/versions/table.ts';
import { availableProbes } from '../../src/clients/index.ts';
import { AUTH_PROVIDER_GCP_RECIPE, AUTH_PROVIDER_GCP_VERSION } from '../../src/plugin/vendors/auth-provider-gcp.ts';
import { AZURE_KUBELOGIN_RECIPE, AZURE_KUBELOGIN_VERSION } from '../../src/plugin/vendors/azure-kubelogin.ts';
import { ensureOciCli, OCI_CLI_VERSION } from '../../src/plugin/vendors/oci-cli.ts';
import { AWS_CLI_VERSION, ensureAwsCli } from '../../src/plugin/vendors/aws-cli.ts';
import { IAM_AUTHENTICATOR_RECIPE, IAM_AUTHENTICATOR_VERSION } from '../../src/plugin/vendors/aws-iam-authenticator.ts';
import { ensureVendorPlugin, type VendorPluginRecipe } from '../../src/plugin/vendors/build.ts';
import { GKE_PLUGIN_RECIPE, GKE_PLUGIN_VERSION } from '../../src/plugin/vendors/gke-gcloud-auth-plugin.ts';
import { KUBELOGIN_RECIPE, KUBELOGIN_VERSION } from '../../src/plugin/vendors/kubelogin.ts';
import type { Prerequisite } from '../../src/testing/prerequisites.ts';
import { findGcloud } from '../../src/vendor-labs/gcloud-sdk.ts';
import { cacheSuite } from '../../suites/cache/index.ts';
import { downgradeSuite } from '../../suites/downgrade/index.ts';
import { execPlugin401Suite } from '../../suites/exec-plugin-401/index.ts';
import { ensureSecretPulledImagesSuite } from '../../suites/ensure-secret-pulled-images/index.ts';
import { matchingSuite } from '../../suites/matching/index.ts';
import { mirrorsSuite } from '../../suites/mirrors/index.ts';
import { providerConfigDirectorySuite } from '../../suites/provider-config-directory/index.ts';
import { DEFAULT_PATH_FAILS_OPEN } from '../../suites/kuberc-policy/checks.ts';
import { kubercPolicySuite } from '../../suites/kuberc-policy/index.ts';
import { imageVolumesSuite } from '../../suites/image-volumes/index.ts';
import { serviceAccountRecreateSuite } from '../../suites/service-account-recreate/index.ts';
import { CLIENT_NODE as XSC_CLIENT_NODE, PYTHON as XSC_PYTHON } from '../../suites/exec-static-credentials/checks.ts';
import { execStaticCredentialsSuite } from '../../suites/exec-static-credentials/index.ts';
import { STAYS_PRELOADED } from '../../suites/preloaded-images/checks.ts';
import { preloadedImagesSuite } from '../../suites/preloaded-images/index.ts';
import { parallelPullsSuite } from '../../suites/parallel-pulls/index.ts';
import { pluginReplacementSuite } from '../../suites/plugin-replacement/index.ts';
import { pullSecretsSuite } from '../../suites/pull-secrets/index.ts';
import { serviceAccountTokenSuite } from '../../suites/service-account-token/index.ts';
import { smokeSuite } from '../../suites/smoke/index.ts';
import { versionSkewSuite } from '../../suites/version-skew/index.ts';
import { vendorAcrSuite } from '../../suites/vendor-acr/index.ts';
import { vendorAwsIamAuthenticatorSuite } from '../../suites/vendor-aws-iam-authenticator/index.ts';
import { vendorEcrSuite } from '../../suites/vendor-ecr/index.ts';
import { EXEC_INFO_V1, GCLOUD_ACCOUNT_SWITCH, GCLOUD_REUSE, GCLOUD_STALE } from '../../suites/vendor-gke/checks.ts';
import { vendorGkeSuite } from '../../suites/vendor-gke/index.ts';
import { vendorKubeloginSuite } from '../../suites/vendor-kubelogin/index.ts';
import { CACHE_WITHIN_TOKEN, OUTAGE } from '../../suites/vendor-gcp/checks.ts';
import { vendorGcpSuite } from '../../suites/vendor-gcp/index.ts';
import { CACHE_IGNORES_SECRET, CONVERT_NO_SECRET } from '../../suites/vendor-azure-kubelogin/checks.ts';
import { vendorAzureKubeloginSuite } from '../../suites/vendor-azure-kubelogin/index.ts';
import { EXEC_INFO_V1 as OCI_EXEC_INFO_V1 } from '../../suites/vendor-oci/checks.ts';
import { vendorOciSuite } from '../../suites/vendor-oci/index.ts';
import { vendorExtras } from './vendor-extras.ts';
import {
  downgradeExtras,
  espiExtras,
  exec401Extras,
  matchingExtras,
  mirrorsExtras,
  saExtras,
  teardownExtra,
} from './suite-extras.ts';
import { acrExtras, awsIamExtras, ecrExtras, gkeExtras, kubeloginExtras } from './suite-extras-vendor.ts';

/** What a check must read: `passed` (with the prediction agreeing), or this "<status>: <message>". */
export type Expected = { passed: true } | { reads: RegExp };

export interface SuiteRow {
  suite: Suite;
  /** The local environment's name (e2eEnvName of it). */
  env: string;
  /** Whether kind's capabilities meet the suite's needs: it runs on the shared kind cluster too. */
  kind: boolean;
  /** Where a check does not plainly pass on a provider: what it must read instead. */
  expected?(check: Check, on: TableProvider): Expected | undefined;
  /** What the local run needs beyond the defaults (its own redactor, keep for later tests). */
  local?: Partial<Omit<SuitesOnProviderOptions, 'provider' | 'envName'>>;
  /** Further tests over the run, by provider. */
  extras?(h: SuitesOnProvider, timeoutMs: number): void;
  timeoutMs: number;
}

const PASSED: Expected = { passed: true };

/** A check of a capability the provider lacks: skipped with that as the reason (the kind leg runs without CI=true). */
const cannot = (provider: TableProvider, capability: string): Expected => ({
  reads: new RegExp(`^skipped: needs what provider ${provider} cannot do: ${capability} `),
});

const apiMinor = parseKubeVersion(DEFAULT_KUBE_VERSION).minor;

/** The real clients the exec-plugin suites drive, but client-go (whose probe they build): each must be there. */
const CLIENTS_BUT_CLIENT_GO = (await availableProbes())
  .filter((p) => p.probe.name !== 'client-go')
  .map((p) => (p.availability.ok ? { ok: true } : { ok: false, reason: `${p.probe.name}: ${p.availability.reason}` }));

/** A SHOULD check that fails on the plugin's own behaviour (a finding in docs/findings.md): it reads failed. */
const finding =
  (ids: string[]) =>
  (c: Check): Expected | undefined =>
    ids.includes(c.id) ? { reads: /^failed: .*, as predicted .*; but / } : undefined;

/** A vendor plugin's build, in the cache (scripts/test.sh makes it), as a prerequisite. */
async function built(
  recipe: VendorPluginRecipe,
  version: string,
  suite: string,
  name = recipe.binary,
): Promise<Prerequisite> {
  const there = await ensureVendorPlugin(recipe, { version, cachedOnly: true }).catch(() => undefined);
  return there
    ? { ok: true }
    : {
        ok: false,
        reason: `${name} ${version} is not built (scripts/test.sh builds it; or credprov run --suite ${suite})`,
      };
}

/** The gcloud cases need the Google Cloud SDK; without it they are skipped (it is not something credprov builds). */
const gcloud = await findGcloud();

export const SUITE_TABLE: SuiteRow[] = [
  { suite: smokeSuite, env: 'smoke', kind: true, extras: teardownExtra('SMOKE'), timeoutMs: 240_000 },
  { suite: cacheSuite, env: 'cache', kind: true, extras: teardownExtra('CACHE'), timeoutMs: 300_000 },
  {
    suite: matchingSuite,
    env: 'matching',
    kind: true,
    // keep: explain --live reuses the environment and only restarts its kubelet.
    local: { keep: true },
    extras: matchingExtras,
    timeoutMs: 300_000,
  },
  { suite: pullSecretsSuite, env: 'secrets', kind: true, extras: teardownExtra('SECRETS'), timeoutMs: 300_000 },
  {
    suite: ensureSecretPulledImagesSuite,
    env: 'espi',
    kind: false,
    local: { keep: true },
    extras: espiExtras,
    timeoutMs: 600_000,
  },
  {
    suite: serviceAccountTokenSuite,
    env: 'sa',
    kind: true,
    // SA-TOKEN-OTHER-NODE passes on both: the local provider's second node is a kubelet of its own, kind's a worker.
    expected: (c, on) =>
      on === 'kind' && KIND_SA_WITHOUT_KUBELET_FILES.includes(c.id) ? cannot('kind', 'kubeletFiles') : undefined,
    local: { keep: true },
    extras: saExtras,
    timeoutMs: 420_000,
  },
  {
    suite: mirrorsSuite,
    env: 'mirrors',
    kind: true,
    // A crossing fails its SHOULD by name (finding 15): the extras judge those.
    expected: (c) => (c.level === 'SHOULD' ? { reads: /^(passed|failed): / } : undefined),
    extras: mirrorsExtras,
    timeoutMs: 300_000,
  },
  {
    suite: downgradeSuite,
    env: 'downgrade',
    kind: true,
    // kind cannot write the node's own config.json or read the kubelet's log here, nor swap the kubelet binary.
    expected: (c, on) =>
      on !== 'kind'
        ? undefined
        : c.id === 'DOWN-KUBELET-ONE-MINOR'
          ? cannot('kind', 'swapKubeletBinary')
          : ['DOWN-NO-PROVIDER-CONFIG-FALLBACK', 'DOWN-RESPONSE-APIVERSION'].includes(c.id)
            ? cannot('kind', 'kubeletFiles')
            : undefined,
    local: { keep: true },
    extras: downgradeExtras,
    timeoutMs: 600_000,
  },
  {
    suite: versionSkewSuite,
    env: 'skew',
    kind: true,
    // The suite asks the skew policy by minors (1.37 under 1.38), and says so in the reason.
    // An older minor's kubelet is swapped in: kind cannot (its node image holds one kubelet).
    expected: (c, on) => {
      const minor = /^SKEW-(1\.\d+)-/.exec(c.id)![1]!;
      const outOfPolicy = skewProblem(`1.${apiMinor}`, minor);
      if (outOfPolicy) return { reads: new RegExp(`^skipped: not applicable here: ${escape(outOfPolicy)}$`) };
      return on === 'kind' && minor !== `1.${apiMinor}` ? cannot('kind', 'swapKubeletBinary') : undefined;
    },
    timeoutMs: 900_000,
  },
  { suite: providerConfigDirectorySuite, env: 'cfgdir', kind: true, timeoutMs: 400_000 },
  {
    suite: execPlugin401Suite,
    env: 'exec-plugin-401',
    // kube-apiserver's token webhook and authentication config, and client certificates from the cluster CA.
    kind: false,
    // keep: a second run must reuse the environment (EX401-REUSE). The suite builds the client-go probe itself;
    // the other clients come from setup (python) and npm (client-node).
    local: { keep: true, prerequisites: CLIENTS_BUT_CLIENT_GO },
    extras: exec401Extras,
    timeoutMs: 600_000,
  },
  {
    suite: vendorEcrSuite,
    env: 'ecr',
    kind: true,
    // The plugin's audience RBAC check reads the kubelet's log on this host.
    expected: (c, on) =>
      on === 'kind' && c.id === 'ECR-SA-NODE-AUDIENCE-RBAC' ? cannot('kind', 'kubeletFiles') : undefined,
    extras: ecrExtras,
    // A cold cache builds the plugin first (about a minute with a warm Go build cache, several on a cold one).
    timeoutMs: 900_000,
  },
  {
    suite: vendorAcrSuite,
    env: 'acr',
    // The fake login servers and Azure AD are reached by name from the nodes (reachFromPlugins).
    kind: true,
    extras: acrExtras,
    // A cold cache builds the plugin first (about 4 minutes with a warm module cache, 7 on a busy machine).
    timeoutMs: 900_000,
  },
  // The exec-plugin vendor suites need kube-apiserver's authenticators (apiserverAuthn): local only. Their
  // builds are prerequisites (scripts/test.sh makes them): missing, the tests skip, and fail under CI=true.
  {
    suite: vendorGkeSuite,
    env: 'gke',
    kind: false,
    // Findings: the plugin's fixed v1beta1 answer, and with the real gcloud #1122 and a refused token from its cache.
    expected: (c) =>
      c.id === EXEC_INFO_V1.id
        ? { reads: /^failed: .*as predicted.*but the plugin answers client\.authentication\.k8s\.io\/v1beta1/s }
        : [GCLOUD_REUSE.id, GCLOUD_ACCOUNT_SWITCH.id, GCLOUD_STALE.id].includes(c.id) && !gcloud
          ? { reads: /^skipped: gcloud \(the Google Cloud SDK\) is not installed here$/ }
          : c.id === GCLOUD_ACCOUNT_SWITCH.id
            ? {
                reads:
                  /^failed: .*first credprov:exec:gke-gcloud-a, then credprov:exec:gke-gcloud-a .*as predicted.*cloud-provider-gcp#1122/s,
              }
            : c.id === GCLOUD_STALE.id
              ? {
                  reads:
                    /^failed: .*kubectl 401\/2; client-go 401\/2 401\/1; 0 gcloud run\(s\); always the cached token, as predicted/s,
                }
              : undefined,
    local: { prerequisites: [await built(GKE_PLUGIN_RECIPE, GKE_PLUGIN_VERSION, 'vendor-gke')] },
    extras: gkeExtras,
    timeoutMs: 600_000,
  },
  {
    suite: vendorKubeloginSuite,
    env: 'kubelogin',
    kind: false,
    local: { prerequisites: [await built(KUBELOGIN_RECIPE, KUBELOGIN_VERSION, 'vendor-kubelogin', 'kubelogin')] },
    extras: kubeloginExtras,
    timeoutMs: 600_000,
  },
  {
    suite: vendorAwsIamAuthenticatorSuite,
    env: 'iam',
    kind: false,
    local: {
      prerequisites: [
        await built(IAM_AUTHENTICATOR_RECIPE, IAM_AUTHENTICATOR_VERSION, 'vendor-aws-iam-authenticator'),
        (await ensureAwsCli({ cachedOnly: true }).catch(() => undefined))
          ? { ok: true }
          : {
              ok: false,
              reason: `awscli ${AWS_CLI_VERSION} is not installed (scripts/test.sh installs it; or credprov run --suite vendor-aws-iam-authenticator)`,
            },
      ],
    },
    extras: awsIamExtras,
    timeoutMs: 600_000,
  },
  {
    suite: vendorGcpSuite,
    env: 'gcp',
    // installPlugins, hostRegistries and pluginsReachHost (metadata.google.internal mapped in each node): kind has them.
    kind: true,
    expected: finding([CACHE_WITHIN_TOKEN.id, OUTAGE.id]),
    extras: vendorExtras('GCP', { findings: [CACHE_WITHIN_TOKEN.id, OUTAGE.id], minSecrets: 3 }),
    // A cold cache builds auth-provider-gcp first (about 3 minutes).
    local: { prerequisites: [await built(AUTH_PROVIDER_GCP_RECIPE, AUTH_PROVIDER_GCP_VERSION, 'vendor-gcp')] },
    timeoutMs: 900_000,
  },
  // Issue 31's exec plugins need kube-apiserver's authenticators (apiserverAuthn): local only.
  {
    suite: vendorAzureKubeloginSuite,
    env: 'azkl',
    kind: false,
    local: {
      prerequisites: [
        await built(AZURE_KUBELOGIN_RECIPE, AZURE_KUBELOGIN_VERSION, 'vendor-azure-kubelogin', 'Azure kubelogin'),
        ...CLIENTS_BUT_CLIENT_GO,
      ],
    },
    // Findings 27 and 28: the cache answers a wrong secret; convert-kubeconfig writes the secret into args.
    expected: finding([CACHE_IGNORES_SECRET.id, CONVERT_NO_SECRET.id]),
    extras: vendorExtras('AZKL', { findings: [CACHE_IGNORES_SECRET.id, CONVERT_NO_SECRET.id], minSecrets: 3 }),
    // A cold cache builds Azure kubelogin first (about 15 minutes with its Go toolchain).
    timeoutMs: 900_000,
  },
  {
    suite: vendorOciSuite,
    env: 'oci',
    kind: false,
    // The plugin answers v1beta1 to a v1 user (a finding): that check reads failed.
    expected: finding([OCI_EXEC_INFO_V1.id]),
    local: {
      prerequisites: [
        (await ensureOciCli({ cachedOnly: true }).catch(() => undefined))
          ? { ok: true }
          : {
              ok: false,
              reason: `oci-cli ${OCI_CLI_VERSION} is not installed (scripts/test.sh installs it; or credprov run --suite vendor-oci)`,
            },
        ...CLIENTS_BUT_CLIENT_GO,
      ],
    },
    extras: vendorExtras('OCI', { findings: [OCI_EXEC_INFO_V1.id], minSecrets: 3 }),
    timeoutMs: 900_000,
  },
  // The preload (ctr) and the KEP-2535 record (the kubelet's root dir) are this host's: local only.
  { suite: imageVolumesSuite, env: 'iv', kind: false, timeoutMs: 300_000 },
  // The preload (ctr) and the record are this host's: local only. k/k #138175 (finding 22): the SHOULD reads failed.
  {
    suite: preloadedImagesSuite,
    env: 'pre',
    kind: false,
    expected: finding([STAYS_PRELOADED.id]),
    timeoutMs: 300_000,
  },
  // The KEP-2535 record is read from the kubelet's root dir on this host: local only.
  { suite: serviceAccountRecreateSuite, env: 'sar', kind: false, timeoutMs: 300_000 },
  // The kubelet's config and log are this host's, and the expected exit of PP-STRIPED-LOCKS (kubelets without
  // #138937: not v1.37.1) is left unwatched by the local provider only.
  { suite: parallelPullsSuite, env: 'pp', kind: false, timeoutMs: 300_000 },
  // The bin dir the suite renames into and the kubelet's log are this host's: local only.
  { suite: pluginReplacementSuite, env: 'upg', kind: false, timeoutMs: 300_000 },
  {
    suite: kubercPolicySuite,
    env: 'kuberc',
    // kubectl and the API server only: the provider makes no difference, so one leg (local) is enough.
    kind: false,
    // kubectl 1.36 and 1.37 drop an Allowlist at ~/.kube/kuberc that does not decode (finding 17): a SHOULD failure.
    expected: (c) =>
      c.id === DEFAULT_PATH_FAILS_OPEN.id
        ? { reads: /^failed: .*as predicted.*kubectl dropped the Allowlist and ran the plugin.*finding 17/s }
        : undefined,
    // The older minors' kubectl comes from the cache (built with their kubelets); a cold cache builds it first.
    // KRC-OTHER-CLIENTS builds the client-go probe itself; client-node and Python come from setup.
    local: { prerequisites: CLIENTS_BUT_CLIENT_GO },
    timeoutMs: 600_000,
  },
  {
    suite: execStaticCredentialsSuite,
    env: 'xsc',
    // The four clients and the API server only: one leg (local) is enough.
    kind: false,
    // client-node and Python differ from client-go (findings 19 and 20): their SHOULD checks read failed, as predicted.
    expected: finding([XSC_CLIENT_NODE.id, XSC_PYTHON.id]),
    local: { prerequisites: CLIENTS_BUT_CLIENT_GO },
    timeoutMs: 300_000,
  },
];

/** The service-account-token checks that read the kubelet's log on this host (capability kubeletFiles). */
const KIND_SA_WITHOUT_KUBELET_FILES = ['SA-AUDIENCE-DENIED', 'SA-AUDIENCE-RESOURCENAMES', 'SA-TOKEN-AS-PASSWORD'];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What `check` of `row` must read on `on`. */
export function expectedOf(row: SuiteRow, check: Check, on: TableProvider): Expected {
  return row.expected?.(check, on) ?? PASSED;
}
