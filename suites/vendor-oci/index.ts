// The vendor-oci suite: the real `oci ce cluster generate-token` (oci-cli
// 3.95.1 from PyPI, unmodified, in a venv of its own), the exec plugin OKE
// kubeconfigs run, as every real client's plugin against a live kube-apiserver:
// - OKE's authenticator: credprov's token webhook, which asks fake Container
//   Engine (src/fake-clouds/oci) about each token's signed cluster_request and
//   answers with the key's user OCID, or with OCI's refusal;
// - the client side: OKE's kubeconfig user (v1beta1, `oci ce cluster
//   generate-token --cluster-id … --region …`), a home holding ~/.oci/config
//   and an API key, the plugin behind a recording wrapper.
// Every case predicts from credprov's model of generate-token and of OKE's
// check (predict.ts) before a client runs. The cases run one at a time: each
// call's window of plugin runs and Container Engine answers must be its own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  clientProbes,
  notRun,
  OCI_CLI_VERSION,
  runCases,
  startOciLab,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { execInfoCase, freshCase, loginCase, refusedCase } from './cases.ts';
import { VENDOR_OCI_CHECKS } from './checks.ts';
import { CLIENTS, KEY_LABEL, REGION } from './plan.ts';
import { openSession } from './session.ts';

export const vendorOciSuite: Suite = {
  name: 'vendor-oci',
  summary:
    "the real `oci ce cluster generate-token` (OKE's exec plugin, oci-cli from PyPI, unmodified) through kubectl, client-go, client-node " +
    'and the Python client, against a token webhook asking fake Container Engine about each signed request: no cache, its 4-minute expiry, ' +
    'a key the tenancy does not hold, a missing key file, a v1 user',
  checks: VENDOR_OCI_CHECKS,
  needsBuild:
    `oci-cli ${OCI_CLI_VERSION} from PyPI (a venv of its own in <cache>/plugins, installed on first use, 9-15 minutes cold), ` +
    "and the client-go probe against the cluster's client-go",
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    // Homes hold API keys: a temp dir, not the (kept) artifacts dir.
    const dir = await mkdtemp(join(tmpdir(), 'credprov-oci-'));
    ctx.defer(() => rm(dir, { recursive: true, force: true }));
    const lab = await startOciLab(ctx, { region: REGION, keyLabel: KEY_LABEL });
    return {
      needs: ['apiserverAuthn'],
      spec: { apiserver: { tokenWebhookConfigFile: lab.webhookKubeconfig } },
      async run(run) {
        const env = run.environment;
        if (env.spec.apiserver.tokenWebhookConfigFile !== lab.webhookKubeconfig) {
          const why = `environment '${env.name}' (provider ${env.provider}) does not run kube-apiserver with the lab's token webhook`;
          return VENDOR_OCI_CHECKS.map((c) => notRun(c, why, run.ci));
        }
        const s = await openSession(run, lab, dir);
        const probes = await clientProbes(run);
        const cases = [
          ...CLIENTS.map((c) => loginCase(s, c, probes.get(c))),
          freshCase(s),
          refusedCase(s, 'unregistered'),
          refusedCase(s, 'missing'),
          execInfoCase(s),
        ];
        return runCases(run, cases, { concurrency: 1 });
      },
    };
  },
};
