// The exec-plugin-401 suite: client exec credential plugins (KEP-541) against
// a live kube-apiserver that can say 401. credprov's token webhook
// (src/authn) authenticates the tokens the fake exec plugin fetches from it,
// issuing, expiring and revoking them as each behaviour scripts; client
// certificates come from the cluster CA. Every real client credprov knows
// (kubectl, client-go, @kubernetes/client-node, the Python client, and the
// field clients fabric8, kube-rs and kubernetes_asyncio; probes in
// src/clients) runs the same scripted sessions. Each check first states what
// credprov's models predict for that client (src/model/exec-credential-cache.ts,
// exec-info.ts, apiserver-authn.ts), then compares with the requests' statuses
// and the plugin runs (the plugin's own log) the client really made.
// Differences between clients are facts for users, not failures: a check
// fails only when a client does what the model did not predict.
//
// The webhook must answer where the API server was told at its start, so it
// listens on the environment's own loopback address and port with a CA kept
// under the state dir (src/authn/webhook-files.ts): a running environment
// with the same spec is reused run after run. credprov's OIDC issuer
// (src/authn/oidc-issuer.ts) sits beside it on the same address and CA, and
// an AuthenticationConfiguration (--authentication-config) points the API
// server's structured JWT authenticator at it: the second real 401 mechanism,
// checked by the API-server checks in jwt.ts.
import {
  caseOf,
  EXEC_CLIENT_NAMES,
  clientProbes,
  clusterCAOf,
  clusterOf,
  ensureAuthenticationConfig,
  EXEC_PLUGIN_GROUP,
  grantGroupRead,
  harnessFailed,
  runCases,
  startOidcIssuer,
  startTokenWebhookFor,
  TokenBook,
  type Case,
  type CheckResult,
  type PreparedSuite,
  type Suite,
  type SuiteRun,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { checkRevocationDelay, checkWebhookAuthenticates, type Target } from './apiserver.ts';
import { BEHAVIOURS } from './plan.ts';
import { EXEC401_CHECKS, REVOCATION_DELAY, WEBHOOK_AUTHENTICATES } from './checks.ts';
import { clientCase, NAMESPACE, REQUEST_PATH, sessionLength, type Shared } from './clients.ts';
import { JwtProbe } from './jwt.ts';
import { jwtCase } from './jwt-checks.ts';

/** Client sessions side by side (each client's sessions are independent: own kubeconfig, plugin log, token subject). */
const CLIENT_CONCURRENCY = 8;
/** The audience the API server accepts JWTs for (jwt[].issuer.audiences) and the issuer signs them for. */
const JWT_AUDIENCE = 'credprov-exec-401';

export const execPlugin401Suite: Suite = {
  name: 'exec-plugin-401',
  summary:
    "client exec credential plugins against a live API server that says 401 (credprov's token webhook): caching until expirationTimestamp, " +
    're-exec after a 401, revoked and expired tokens, a plugin repeating a refused token, client certificates and their rotation, provideClusterInfo, ' +
    "interactiveMode × terminal, v1 and v1beta1; per real client (kubectl, client-go, client-node, python, fabric8, kube-rs, kubernetes-asyncio), credprov's model predicts and the client " +
    'is compared. Cells read <status>/<plugin runs> per request',
  checks: EXEC401_CHECKS,
  needsBuild:
    "the client-go probe against the cluster's client-go (src/clients/client-go-probe, from the Go module proxy; built on first use, seconds with a warm Go build cache); " +
    'the fabric8, kube-rs and kubernetes_asyncio probes (`credprov binaries ensure --for tests`, or `node scripts/build-field.ts fabric8 kube-rs kubernetes-asyncio`)',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    // Every token the webhook issues is a secret from birth.
    const book = new TokenBook({ onIssue: (t) => ctx.redactor.add(t) });
    const { hook, files } = await startTokenWebhookFor(ctx, book);
    const { address, certFile, keyFile } = files;
    // Up before the environment, as the webhook: a freshly started API server discovers the issuer at once.
    const issuer = await ctx.own(
      startOidcIssuer({ address, port: files.issuerPort, certFile, keyFile, audiences: [JWT_AUDIENCE], log: ctx.log }),
    );
    const authenticationConfigFile = await ensureAuthenticationConfig(files, [JWT_AUDIENCE], ctx.kubeVersion);
    return {
      // Only the files' paths are in the spec: the API server is not tied to this webhook (issue-iam wires another one the same way).
      spec: { apiserver: { tokenWebhookConfigFile: files.kubeconfigFile, authenticationConfigFile } },
      needs: ['apiserverAuthn', 'clusterCA'],
      run: async (run) => {
        const cluster = await clusterOf(run.environment);
        // The CA the API server trusts for client certificates: the client-certificate behaviours sign theirs with it.
        const ca = clusterCAOf(run.environment);
        return runSuite(run, { hook, files, cluster, ca }, new JwtProbe(issuer, cluster, ctx.redactor));
      },
    };
  },
};

async function runSuite(ctx: SuiteRun, shared: Shared, jwtProbe: JwtProbe): Promise<CheckResult[]> {
  const env = ctx.environment;
  const target = (c: Target['ctx']): Target => ({ cluster: shared.cluster, path: REQUEST_PATH, ctx: c });
  await grantGroupRead(env, {
    group: EXEC_PLUGIN_GROUP,
    namespace: NAMESPACE,
    resources: ['configmaps'],
    name: 'credprov-exec-401',
  });
  // The precondition of every other check: without it, none of them is a verdict.
  const [wired] = await runCases(ctx, [
    caseOf(WEBHOOK_AUTHENTICATES, (c) => checkWebhookAuthenticates(target(c), shared.hook)),
  ]);
  if (wired!.status !== 'passed') {
    const why = `not run: the API server does not authenticate through credprov's token webhook (${WEBHOOK_AUTHENTICATES.id}: ${wired!.message})`;
    return [wired!, ...EXEC401_CHECKS.filter((c) => c !== WEBHOOK_AUTHENTICATES).map((c) => harnessFailed(c, why))];
  }
  const probes = await clientProbes(ctx, EXEC_CLIENT_NAMES);
  const clients = BEHAVIOURS.flatMap((b) => EXEC_CLIENT_NAMES.map((c) => ({ b, c })))
    .sort((x, y) => sessionLength(y.b) - sessionLength(x.b))
    .map(({ b, c }) => clientCase(b, c, probes.get(c), shared));
  // The revocation check waits out the API server's cache, and the JWT checks run one after another (its cached JWKS carries over):
  // both beside the client sessions, which the pool bounds.
  const cases: Case[] = [
    caseOf(REVOCATION_DELAY, (c) => checkRevocationDelay(target(c), shared.hook)),
    jwtCase(jwtProbe),
    ...clients,
  ];
  return [wired!, ...(await runCases(ctx, cases, { concurrency: CLIENT_CONCURRENCY + 2 }))];
}
