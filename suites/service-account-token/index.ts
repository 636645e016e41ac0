// The service-account-token suite: KEP-4412 on the real kubelet and API
// server. ONE kubelet config holds a provider per question (each matching its
// own <x>.sa.test host, all routed through containerd hosts.toml), so the
// kubelet restarts once and the cases run side by side:
// - an htpasswd lab registry stands behind most hosts (the fakes answer its password);
// - an exchange registry (token auth) stands behind echosa.sa.test and
//   xchg.sa.test: its token server takes an SA token as the password and
//   validates it offline (JWKS from OIDC discovery) and online (TokenReview),
//   then maps the SA to repositories (registry/sa-token-auth.ts).
// A namespace per run holds the service accounts; RBAC grants the node the
// audiences a case needs (one is left ungranted, one narrowed by
// resourceNames, one granted by a namespaced Role). Every case states its
// prediction from the model (predict.ts over src/model/service-account-token.ts)
// and the version table before its pods exist. With a second node (capability
// secondNode) one case asks both kubelets, with their own certificates, for a
// token for a pod on the first (other-node.ts).
//
// Files: plan.ts (the data), predict.ts (the predictions, unit-tested),
// prepare.ts (registries and fakes), fixture.ts (the cluster side), one file
// per group of cases.
import { runCases, runNamespace, type PreparedSuite, type Suite, type SuiteSetup } from '../../src/run/kit.ts';
import { annotationsCase } from './annotations.ts';
import { audienceCase } from './audience.ts';
import { cacheCase } from './cache.ts';
import { SA_TOKEN_CHECKS } from './checks.ts';
import { exchangeCase } from './exchange.ts';
import { setUpCluster } from './fixture.ts';
import { otherNodeCase } from './other-node.ts';
import { namespaceOfRun } from './plan.ts';
import { prepareRegistriesAndFleet } from './prepare.ts';
import { requireServiceAccountCases } from './require-service-account.ts';
import { tokenAsPasswordCase } from './token-as-password.ts';
import { tokenClaimsCase } from './token-claims.ts';

export const serviceAccountTokenSuite: Suite = {
  name: 'service-account-token',
  summary:
    'KEP-4412 on the real kubelet: the token itself (claims, JWKS signature, lifetime), annotations, requireServiceAccount ' +
    'with static pods, cacheType Token vs ServiceAccount, node audience RBAC, the token as a password, and a real token exchange ' +
    "with revocation, and (with a second node) that only the pod's own kubelet gets its token",
  checks: SA_TOKEN_CHECKS,
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const prepared = await prepareRegistriesAndFleet(ctx);
    const { spec } = prepared.fleet;
    return {
      // --v=5: the kubelet logs why it skipped a plugin (missing required annotation, no SA name) only at V5.
      spec: { ...spec, kubelet: { ...spec.kubelet, extraArgs: ['--v=5'] } },
      needs: ['installPlugins', 'hostRegistries'],
      async run(run) {
        // Kept, with its events, when a check failed.
        const namespace = await runNamespace(run, namespaceOfRun(prepared.runId));
        const fixture = await setUpCluster(run, prepared, namespace.name);
        const results = await runCases(run, [
          tokenClaimsCase(fixture),
          annotationsCase(fixture),
          ...requireServiceAccountCases(fixture),
          cacheCase(fixture),
          audienceCase(fixture),
          tokenAsPasswordCase(fixture),
          exchangeCase(fixture),
          otherNodeCase(fixture),
        ]);
        return namespace.settle(results);
      },
    };
  },
};
