// The vendor-kubelogin suite: the real kubelogin (int128/kubelogin, built
// unmodified from the Go module proxy) as the client exec plugin of a live
// API server whose structured JWT authenticator (--authentication-config)
// trusts credprov's OIDC issuer:
// - the client side: kubeconfig users exec `kubectl oidc-login get-token …`
//   (upstream's kubeconfig form; the plugin behind a recording wrapper) with
//   the password or client-credentials grant, each with a token cache dir of its own;
// - the identity provider: credprov's OIDC issuer with an OAuth2 token endpoint
//   on the environment's webhook address (src/vendor-labs/kubelogin-lab.ts),
//   checking client auth, passwords and refresh tokens, and recording every
//   request without secrets;
// - the API server: the issuer's JWTs with aud = a client id are accepted as
//   oidc:<sub>; anything else is a 401.
//
// Every case first predicts from credprov's model of kubelogin and the API
// server (predict.ts), then runs real kubectl (or another real client) and
// compares. The cases run one at a time: each call's window of plugin runs and
// token-endpoint requests must be its own.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  accessTokenCase,
  caCase,
  cacheCase,
  clientCredentialsCase,
  passwordCase,
  refreshCase,
  revokedRefreshCase,
  wrongSecretCase,
} from './cases.ts';
import { VENDOR_KUBELOGIN_CHECKS } from './checks.ts';
import { clientCase } from './client-cases.ts';
import { openSession } from './session.ts';
import {
  clientProbes,
  cacheDir,
  CLIENT_NAMES,
  ensureAuthenticationConfig,
  ensureTokenWebhookFiles,
  KUBELOGIN_VERSION,
  LAB_CLIENT_IDS,
  notRun,
  runCases,
  startKubeloginLab,
  type KubeloginLab,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';

export const vendorKubeloginSuite: Suite = {
  name: 'vendor-kubelogin',
  summary:
    "the real kubelogin (int128/kubelogin, unmodified) as kubectl's exec plugin (`kubectl oidc-login get-token`), logging in to credprov's OIDC issuer " +
    "and token endpoint, against kube-apiserver's structured JWT authenticator: password and client-credentials grants, the token cache, " +
    'refresh at expiry and a revoked refresh token, id_token vs access_token, the issuer CA, and the four clients (the JWT row)',
  checks: VENDOR_KUBELOGIN_CHECKS,
  needsBuild:
    `kubelogin ${KUBELOGIN_VERSION} from the Go module proxy (github.com/int128/kubelogin; built into <cache>/plugins on first use), ` +
    "and the client-go probe against the cluster's client-go",
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    // The lab holds passwords, client secrets and token caches: a temp dir, not the (kept) artifacts dir.
    const dir = await mkdtemp(join(tmpdir(), 'credprov-kubelogin-'));
    ctx.defer(() => rm(dir, { recursive: true, force: true }));
    const files = await ensureTokenWebhookFiles(ctx.environmentName, ctx.processEnv);
    let lab: KubeloginLab | undefined;
    ctx.defer(async () => {
      await lab?.stop();
      // The token endpoint's requests and the discovery/JWKS fetches hold no secret (fingerprints only); keep them as evidence.
      const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
      if (lab)
        await Promise.all([
          writeFile(
            join(ctx.artifactsDir, 'token-endpoint-requests.jsonl'),
            jsonl(lab.issuer.tokenEndpoint!.requests()),
          ),
          writeFile(join(ctx.artifactsDir, 'issuer-fetches.jsonl'), jsonl(lab.issuer.fetches())),
        ]).catch(() => {});
    });
    lab = await startKubeloginLab({
      dir,
      files,
      cacheDir: cacheDir(ctx.processEnv),
      onSecret: (s) => ctx.redactor.add(s),
      progress: ctx.progress,
      log: ctx.log,
    });
    // In the apiVersion the environment's kube-apiserver reads (v1beta1 on 1.33: the version table).
    const authenticationConfigFile = await ensureAuthenticationConfig(
      files,
      [LAB_CLIENT_IDS.user, LAB_CLIENT_IDS.robot],
      ctx.kubeVersion,
    );
    return {
      needs: ['apiserverAuthn'],
      spec: { apiserver: { authenticationConfigFile } },
      async run(run) {
        const env = run.environment;
        if (env.spec.apiserver.authenticationConfigFile !== authenticationConfigFile) {
          const why = `environment '${env.name}' (provider ${env.provider}) does not run kube-apiserver with the lab's AuthenticationConfiguration`;
          return VENDOR_KUBELOGIN_CHECKS.map((c) => notRun(c, why, run.ci));
        }
        // kubectl for the plugin's `kubectl oidc-login` dispatch is the environment's: known only now.
        lab!.setKubectl(env.kubectl);
        const s = await openSession(run, lab!, dir);
        const probes = await clientProbes(run);
        const cases = [
          passwordCase(s),
          clientCredentialsCase(s),
          cacheCase(s),
          accessTokenCase(s),
          caCase(s),
          wrongSecretCase(s),
          refreshCase(s),
          revokedRefreshCase(s),
          ...CLIENT_NAMES.map((c) => clientCase(s, c, probes.get(c))),
        ];
        return runCases(run, cases, { concurrency: 1 });
      },
    };
  },
};
