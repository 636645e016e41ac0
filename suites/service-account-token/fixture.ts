// What the cases share once the environment is up: every image host routed
// to its registry, the run's service accounts, the node's audience grants (in
// effect before any case starts), the exchange registry's token server
// validating SA tokens against this cluster, the model's predictor, and the
// ways a case runs a pod and gathers its evidence.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServiceAccountState } from '../../src/model/service-account-token.ts';
import {
  applyObjects,
  clusterIdentity,
  createSaPod,
  grantNodesAudience,
  kubeletFilesOf,
  kubeletLogLines,
  kubeletVersionOf,
  listServiceAccounts,
  nodeMayRequestAudience,
  observePod,
  readNode,
  routeRegistry,
  ServiceAccountTokenAuth,
  waitFor,
  type CaseContext,
  type Environment,
  type Evidence,
  type FakeInvocation,
  type Fleet,
  type LabRegistry,
  type ObservedPod,
  type StartedRegistry,
  type SuiteRun,
} from '../../src/run/kit.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import {
  GRANTS_TIMEOUT_MS,
  POD_TIMEOUT_MS,
  SERVICE_ACCOUNTS,
  audienceGrants,
  exchangeAccess,
  grantName,
  grantProbes,
  hostOf,
  type Audiences,
  type PlannedPod,
  type ProviderPlan,
  type ProviderPlans,
} from './plan.ts';
import { PullPredictor } from './predict.ts';

/** What prepare started for the run (outside any environment). */
export interface Prepared {
  /** Keeps this run's namespace, audiences and registry apart from other runs' on one cluster. */
  runId: string;
  audiences: Audiences;
  plans: ProviderPlans;
  lab: LabRegistry;
  /** The token-auth registry behind the tokenEcho and exchange providers' hosts. */
  exchangeRegistry: StartedRegistry;
  fleet: Fleet;
  /** Where the capturing fakes keep the tokens they get, as `<sha256>.jwt`. */
  tokensDir: string;
  /** The kubelet's staticPodPath. */
  staticPodDir: string;
}

export interface SuiteFixture extends Prepared {
  env: Environment;
  namespace: string;
  predictor: PullPredictor;
  node: { name: string; uid: string };
  /** The exchange registry's authenticator: its validations are the exchange cases' observations. */
  exchange: ServiceAccountTokenAuth;
  /** Creates the pod, pulling `image`, and waits until it ran or its pull failed. */
  runPod(pod: PlannedPod, image: string): Promise<ObservedPod>;
  invocations(plan: ProviderPlan): Promise<FakeInvocation[]>;
  /** The token a capturing fake got (added to the redactor), by its sha256. */
  capturedToken(sha256: string | undefined): Promise<string | undefined>;
  invocationEvidence(label: string, invocations: FakeInvocation[]): Evidence;
  eventsEvidence(ran: ObservedPod): Evidence;
  /** The kubelet log lines with every needle: none where the kubelet's log is not a file here (no kubeletFiles). */
  kubeletLog(needles: string[], max?: number): Promise<string[]>;
  kubeletLogEvidence(label: string, lines: string[]): Evidence[];
  /** What the node may request, asked now (SubjectAccessReview as the node). */
  grantEvidence(pairs: Array<[audience: string, serviceAccount: string]>): Promise<Evidence>;
  /** On the case's failure, the kubelet's lines about these pods. */
  kubeletLinesOnFailure(ctx: CaseContext, pods: string[]): void;
}

/** Sets the cluster up for the cases in `namespace`; what outlives a case is deferred to the suite's end. */
export async function setUpCluster(run: SuiteRun, prepared: Prepared, namespace: string): Promise<SuiteFixture> {
  const env = run.environment;
  const { audiences, plans, lab, exchangeRegistry, fleet } = prepared;

  for (const plan of Object.values(plans)) {
    if (plan.registry === 'lab') await lab.serveAs(run, hostOf(plan));
    else {
      const route = await routeRegistry(run, exchangeRegistry, hostOf(plan));
      run.defer(() => route.stop());
    }
  }

  await applyObjects(
    env,
    Object.entries(SERVICE_ACCOUNTS).map(([name, annotations]) => ({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace, annotations },
    })),
  );
  const serviceAccounts = new Map<string, ServiceAccountState>();
  for (const { metadata } of await listServiceAccounts(env, namespace)) {
    serviceAccounts.set(metadata!.name!, {
      name: metadata!.name!,
      uid: metadata!.uid!,
      annotations: metadata!.annotations ?? {},
    });
  }

  const grants = audienceGrants(audiences, namespace);
  // A namespaced Role goes with the namespace; a ClusterRole is removed after the suite.
  for (const grant of grants) {
    const { namespace: roleNamespace, serviceAccounts: names } = grant;
    const scope = {
      ...(roleNamespace ? { namespace: roleNamespace } : {}),
      ...(names ? { serviceAccounts: names } : {}),
    };
    await grantNodesAudience(env, grant.audience, { name: grantName(grant), ...scope }, run);
  }
  // RBAC reaches the authorizer through an informer: wait until every grant answers as the node.
  await waitFor(
    'the audience grants to take effect',
    async () => {
      const allowed = ([audience, sa]: [string, string]) =>
        nodeMayRequestAudience(env, env.nodeName, audience, namespace, sa);
      const answers = await Promise.all(grantProbes(audiences).map(allowed));
      return answers.every((a) => a.allowed) ? true : undefined;
    },
    { timeoutMs: GRANTS_TIMEOUT_MS, intervalMs: 500 },
  );

  const exchange = new ServiceAccountTokenAuth({
    cluster: clusterIdentity(env),
    audience: audiences.registry,
    access: exchangeAccess(namespace),
  });
  exchangeRegistry.tokenServer!.useAuthenticator(exchange.authenticator());

  const { metadata: nodeMeta } = await readNode(env, env.nodeName);
  const predictor = new PullPredictor({
    behaviour: behaviourFor(kubeletVersionOf(env)),
    apiServerBehaviour: behaviourFor(env.kubeVersion),
    gates: { kubelet: env.spec.featureGates.kubelet, apiserver: env.spec.featureGates.apiserver },
    grants,
    namespace,
    serviceAccounts,
  });

  const kubeletLog = (needles: string[], max?: number) =>
    run.can('kubeletFiles') ? kubeletLogLines(env, needles, max) : Promise.resolve([]);
  const kubeletLogEvidence = (label: string, lines: string[]): Evidence[] =>
    lines.length
      ? [{ kind: 'log', label, file: kubeletFilesOf(env).log, text: run.redactor.text(lines.join('\n')) }]
      : [];
  return {
    ...prepared,
    env,
    namespace,
    predictor,
    node: { name: nodeMeta!.name!, uid: nodeMeta!.uid! },
    exchange,
    async runPod(pod, image) {
      await createSaPod(env, namespace, {
        name: pod.name,
        image,
        serviceAccount: pod.serviceAccount,
        twice: pod.pulls === 2,
      });
      return observePod(env, pod.name, namespace, POD_TIMEOUT_MS);
    },
    invocations: async (plan) => (await fleet.invocations().catch(() => [])).filter((i) => i.provider === plan.name),
    async capturedToken(sha256) {
      const jwt = sha256
        ? await readFile(join(prepared.tokensDir, `${sha256}.jwt`), 'utf8').catch(() => undefined)
        : undefined;
      run.redactor.add(jwt);
      return jwt;
    },
    invocationEvidence: (label, invocations) => ({
      kind: 'invocation',
      label,
      data: run.redactor.value(
        invocations.map((i) => ({
          time: i.time,
          provider: i.provider,
          image: i.image,
          tokenPresent: i.tokenPresent,
          tokenSha256: i.tokenSha256?.slice(0, 16),
          tokenAud: i.tokenAud,
          tokenSub: i.tokenSub,
          tokenPod: i.tokenPod,
          annotations: i.annotations,
          decidedBy: i.decidedBy,
          exitCode: i.response.exitCode,
        })),
      ),
    }),
    eventsEvidence: (ran) => ({ kind: 'event', label: `events of pod ${namespace}/${ran.name}`, data: ran.events }),
    kubeletLog,
    kubeletLogEvidence,
    grantEvidence: async (pairs) => ({
      kind: 'data',
      label:
        `SubjectAccessReview as system:node:${env.nodeName} (verb request-serviceaccounts-token-audience, resource = audience, ` +
        `name = SA, namespace ${namespace})`,
      data: await Promise.all(
        pairs.map(async ([audience, serviceAccount]) => ({
          audience,
          serviceAccount,
          ...(await nodeMayRequestAudience(env, env.nodeName, audience, namespace, serviceAccount)),
        })),
      ),
    }),
    kubeletLinesOnFailure(ctx, pods) {
      ctx.onFailure(async () => {
        const lines = (await Promise.all(pods.map((pod) => kubeletLog([`${namespace}/${pod}`], 8)))).flat();
        return kubeletLogEvidence('kubelet log excerpt (the failing pods)', lines);
      });
    },
  };
}
