// The vendor-gke suite: the real gke-gcloud-auth-plugin (kubernetes/cloud-provider-gcp,
// built unmodified from the Go module proxy) as an exec plugin in ADC mode:
// - kubeconfig users exec `gke-gcloud-auth-plugin --use_application_default_credentials`
//   (behind the exec recording wrapper) with GOOGLE_APPLICATION_CREDENTIALS naming a
//   service-account key file whose token_uri is the fake Google token endpoint on
//   loopback (src/fake-clouds/google/: RFC 7523 assertions verified);
// - kube-apiserver's token webhook is credprov's (src/authn/token-webhook.ts), reviewing
//   with the fake's TokenBook: exactly the tokens it issued and has not revoked pass.
// The kubectl cases run one at a time (each reads the plugin runs and grants of its own
// window; the last revokes the viewer's tokens); the four client sessions run side by
// side, each with its own account, wrapper and run dir. The gcloud cases (gcloud-cases.ts)
// run the default provider with the real gcloud, kept on loopback (src/vendor-labs/gcloud-sdk.ts).
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  adc200Case,
  assertionCase,
  badAssertionCase,
  expiryCase,
  noCacheCase,
  revokedCase,
  v1UserCase,
  whoamiCase,
} from './cases.ts';
import { VENDOR_GKE_CHECKS } from './checks.ts';
import { clientCase } from './clients.ts';
import { gcloudAccountSwitchCase, gcloudReuseCase, gcloudStaleCase } from './gcloud-cases.ts';
import { openSession } from './session.ts';
import {
  cacheDir,
  CLIENT_NAMES,
  clientProbes,
  GKE_PLUGIN_VERSION,
  notRun,
  runCases,
  startGkeLab,
  startTokenWebhookFor,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';

export const vendorGkeSuite: Suite = {
  name: 'vendor-gke',
  summary:
    'the real gke-gcloud-auth-plugin (kubernetes/cloud-provider-gcp, unmodified) as an exec plugin in ADC mode against a fake ' +
    "Google token endpoint on loopback and credprov's token webhook: 200 and whoami, the RFC 7523 assertion, expiry, " +
    'no token cache in ADC mode, refused assertions, a revoked token, a v1 user, the four clients (kubectl, client-go, client-node, python); ' +
    "and with the real gcloud, when installed, the default provider's cache file (#920), an account switch (#1122) and a revoked cached token",
  checks: VENDOR_GKE_CHECKS,
  needsBuild:
    `gke-gcloud-auth-plugin ${GKE_PLUGIN_VERSION} from the Go module proxy ` +
    '(k8s.io/cloud-provider-gcp; built into <cache>/plugins on first use, ~2 min with cold Go caches)',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    // Key files and the wrapper's run records (live tokens): a temp dir, not the (kept) artifacts dir.
    const dir = await mkdtemp(join(tmpdir(), 'credprov-gke-'));
    ctx.defer(() => rm(dir, { recursive: true, force: true }));
    const lab = await startGkeLab({
      dir,
      cacheDir: cacheDir(ctx.processEnv),
      progress: ctx.progress,
      log: ctx.log,
      onIssue: (t) => ctx.redactor.add(t),
    });
    ctx.redactor.add(...lab.secrets);
    ctx.defer(async () => {
      await lab.stop();
      // The fake's request log holds claims and fingerprints, no secret: kept as evidence.
      await copyFile(lab.requestLog, join(ctx.artifactsDir, 'fake-google-requests.jsonl')).catch(() => {});
    });
    const { files } = await startTokenWebhookFor(ctx, lab.book);
    return {
      needs: ['apiserverAuthn'],
      spec: { apiserver: { tokenWebhookConfigFile: files.kubeconfigFile } },
      async run(run) {
        const env = run.environment;
        if (env.spec.apiserver.tokenWebhookConfigFile !== files.kubeconfigFile) {
          const why = `environment '${env.name}' (provider ${env.provider}) does not run kube-apiserver with credprov's token webhook`;
          return VENDOR_GKE_CHECKS.map((c) => notRun(c, why, run.ci));
        }
        const s = await openSession(run, lab, dir);
        const probes = await clientProbes(run);
        const g = { kubectl: env.kubectl, lab, cluster: s.cluster, dir, clientGo: probes.get('client-go') };
        const kubectlCases = [
          adc200Case(s),
          whoamiCase(s),
          assertionCase(s),
          expiryCase(s),
          noCacheCase(s),
          badAssertionCase(s),
          v1UserCase(s),
          revokedCase(s),
          // The gcloud provider (real gcloud, when installed): accounts of their own, one $HOME each.
          gcloudReuseCase(g),
          gcloudAccountSwitchCase(g),
          gcloudStaleCase(g),
        ];
        const clients = CLIENT_NAMES.map((c) => clientCase(c, probes.get(c), lab, s.cluster, dir));
        // The client sessions spend most of their time waiting out the API server's cache: beside the kubectl cases.
        const [k, c] = await Promise.all([
          runCases(run, kubectlCases, { concurrency: 1 }),
          runCases(run, clients, { concurrency: clients.length }),
        ]);
        return [...k, ...c];
      },
    };
  },
};
