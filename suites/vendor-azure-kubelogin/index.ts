// The vendor-azure-kubelogin suite: the real Azure kubelogin
// (github.com/Azure/kubelogin, built unmodified from the Go module proxy), the
// exec plugin AKS kubeconfigs run, as every real client's plugin against a live
// kube-apiserver:
// - the identity provider: a fake Entra ID tenant under login.microsoftonline.com
//   (src/fake-clouds/azure/entra.ts, a hosts line and a CA the user's environment
//   trusts), holding a principal for each non-browser login mode, minting v2.0
//   JWTs for the AKS server app, recording every request without secrets;
// - the API server: a structured JWT authenticator trusting that tenant's issuer
//   for aud = the server id, username aad:<oid>;
// - the client side: kubeconfig users whose exec is what convert-kubeconfig writes
//   for the mode, the secret or identity in the user's environment as AKS documents,
//   the plugin behind a recording wrapper, each call in a home of its own.
// Every case predicts from credprov's model of kubelogin and of the JWT
// authenticator (predict.ts) before it runs a client. The cases run one at a
// time: each call's window of plugin runs and Entra requests must be its own.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AZURE_KUBELOGIN_VERSION,
  clientProbes,
  notRun,
  runCases,
  startAzureKubeloginLab,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { cacheCase, wrongSecretCase } from './cache-cases.ts';
import { VENDOR_AZURE_KUBELOGIN_CHECKS } from './checks.ts';
import { convertCase, envOverFlagsCase, execInfoCase } from './config-cases.ts';
import { loginCase } from './login-cases.ts';
import { AKS_CLIENT_ID, CLIENTS, MODES, SERVER_ID, TOKEN_LIFETIME_S, USERNAME_PREFIX, WORKLOAD } from './plan.ts';
import { openSession } from './session.ts';

export const vendorAzureKubeloginSuite: Suite = {
  name: 'vendor-azure-kubelogin',
  summary:
    "the real Azure kubelogin (AKS's exec plugin, unmodified) in its non-browser modes (spn, ropc, workload identity, msi) through kubectl, client-go, " +
    "client-node and the Python client, against a fake Entra ID tenant and kube-apiserver's JWT authenticator; its MSAL token cache and convert-kubeconfig's output",
  checks: VENDOR_AZURE_KUBELOGIN_CHECKS,
  needsBuild:
    `Azure kubelogin ${AZURE_KUBELOGIN_VERSION} from the Go module proxy (github.com/Azure/kubelogin, with GOTOOLCHAIN go1.27.3; ` +
    "built into <cache>/plugins on first use, about 15 minutes cold), and the client-go probe against the cluster's client-go",
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    // Kubeconfigs, homes (token caches) and the federated token: a temp dir, not the (kept) artifacts dir.
    const dir = await mkdtemp(join(tmpdir(), 'credprov-azure-kubelogin-'));
    ctx.defer(() => rm(dir, { recursive: true, force: true }));
    const lab = await startAzureKubeloginLab(ctx, {
      serverId: SERVER_ID,
      publicClientId: AKS_CLIENT_ID,
      usernamePrefix: USERNAME_PREFIX,
      tokenLifetimeS: TOKEN_LIFETIME_S,
      workload: WORKLOAD,
    });
    const authenticationConfigFile = lab.authenticationConfigFile;
    return {
      needs: ['apiserverAuthn'],
      spec: { apiserver: { authenticationConfigFile } },
      async run(run) {
        const env = run.environment;
        if (env.spec.apiserver.authenticationConfigFile !== authenticationConfigFile) {
          const why = `environment '${env.name}' (provider ${env.provider}) does not run kube-apiserver with the lab's AuthenticationConfiguration`;
          return VENDOR_AZURE_KUBELOGIN_CHECKS.map((c) => notRun(c, why, run.ci));
        }
        const s = await openSession(run, lab, dir);
        const probes = await clientProbes(run);
        const cases = [
          ...MODES.flatMap((m) => CLIENTS.map((c) => loginCase(s, m, c, probes.get(c)))),
          cacheCase(s),
          wrongSecretCase(s),
          execInfoCase(s),
          envOverFlagsCase(s),
          convertCase(s),
        ];
        return runCases(run, cases, { concurrency: 1 });
      },
    };
  },
};
