// What the vendor-ecr cases share while they run, one after another: the
// pods they create (each with the plugin execs and AWS requests of its own
// window, which is why the cases never run side by side), how those read in
// messages and evidence, and what earlier cases recorded for later ones.
import { kubeApi, type KubeApi } from '../../src/cluster/api.ts';
import type { KubeTarget } from '../../src/cluster/kubectl.ts';
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { clusterOidc } from '../../src/vendor-labs/cluster-oidc.ts';
import type { FakeAws, FakeAwsRequest } from '../../src/fake-clouds/aws/index.ts';
import type { FakeAwsEndpoints } from '../../src/plugin/vendors/ecr.ts';
import { reachFromPlugins } from '../../src/run/kit.ts';
import {
  invocationEvidence,
  readWrappedInvocations,
  type WrappedInvocation,
} from '../../src/plugin/recording-wrapper.ts';
import type { Evidence } from '../../src/report/model.ts';
import { runPod, type LabRegistry, type PodRun } from '../../src/run/lab.ts';
import type { SuiteRun } from '../../src/run/suite.ts';
import { HOSTS, POD_TIMEOUT_MS, type RunNames } from './plan.ts';
import type { RecordedAnswer } from './predict.ts';

/** What prepare started for the run. */
export interface EcrLab {
  names: RunNames;
  main: LabRegistry;
  refresh: LabRegistry;
  fake: FakeAws;
  /** The fake's URLs, which the plugin's env names: reached from the nodes. */
  endpoints: FakeAwsEndpoints;
  config: CredentialProviderConfig;
  /** Where the recording wrappers log each exec. */
  logDir: string;
}

/** What one pod did, with the plugin execs and AWS requests that happened meanwhile. */
export interface Window {
  run: PodRun;
  createdAt: number;
  doneAt: number;
  execs: WrappedInvocation[];
  aws: FakeAwsRequest[];
}

export interface Session {
  run: SuiteRun;
  lab: EcrLab;
  admin: KubeTarget;
  api: KubeApi;
  pod(label: string, ref: string, o?: { serviceAccountName?: string }): Promise<Window>;
  windowEvidence(windows: Window[], label?: string): Evidence[];
  /** Set by ECR-PULL-VIA-PLUGIN: the first pull, whose exec the answer and cache cases read. */
  first?: Window;
  /** Set by ECR-ANSWER-FROM-EXPIRY: the plugin's answer, which the SA cases assume too. */
  answer?: RecordedAnswer;
}

/** Routes the ECR hosts to the lab registries, lets the fake STS trust the cluster's issuer, and opens the session. */
export async function openSession(run: SuiteRun, lab: EcrLab): Promise<Session> {
  const env = run.environment;
  // clusterOidc (src/plugin/vendors/) still reads the issuer through kubectl; the suite's own calls go through the API client.
  const admin: KubeTarget = { kubectl: env.kubectl, kubeconfig: env.kubeconfig };
  const api = await kubeApi(admin);
  for (const host of [HOSTS.static, HOSTS.other, HOSTS.public, HOSTS.sa, HOSTS.wrongAud])
    await lab.main.serveAs(run, host);
  await lab.refresh.serveAs(run, HOSTS.refresh);
  const reach = await reachFromPlugins(run, Object.values(lab.endpoints));
  run.defer(() => reach.stop());
  lab.fake.trustOidc(await clusterOidc(admin));
  let seq = 0;
  return {
    run,
    lab,
    admin,
    api,
    async pod(label, ref, o = {}) {
      const execsBefore = (await readWrappedInvocations(lab.logDir)).length;
      const awsBefore = lab.fake.requests().length;
      const createdAt = Date.now();
      const name = `ecr-${label}-${lab.names.id}-${++seq}`;
      const pod = await runPod(env, { name, image: ref, pullPolicy: 'Always', timeoutMs: POD_TIMEOUT_MS, ...o });
      const doneAt = Date.now();
      const execs = (await readWrappedInvocations(lab.logDir)).slice(execsBefore);
      return { run: pod, createdAt, doneAt, execs, aws: lab.fake.requests().slice(awsBefore) };
    },
    windowEvidence: (windows, label = '') => [
      invocationEvidence(
        lab.logDir,
        windows.flatMap((w) => w.execs),
        label,
      ),
      { kind: 'data', label: 'fake AWS requests (ECR, STS, anything else)', data: windows.flatMap((w) => w.aws) },
      ...windows.flatMap((w) => w.run.evidence),
    ],
  };
}

export const showExec = (i: WrappedInvocation): string =>
  `${i.provider}(${i.request.image ?? '?'}) exit ${i.exitCode ?? '?'}`;

export function showAws(r: FakeAwsRequest): string {
  const outcome = `${r.status}${r.error ? ` ${r.error.code}` : ''}`;
  if (r.service === 'sts')
    return `STS ${r.operation} ${r.sts?.roleArn ?? ''} aud=${JSON.stringify(r.sts?.tokenClaims?.aud ?? null)} → ${outcome}`;
  return `${r.service.toUpperCase()} ${r.region ?? '?'} by ${r.principal ?? r.accessKeyId ?? 'anonymous'} → ${outcome}`;
}

export const pullShown = (r: PodRun): string =>
  r.pull === 'success' ? 'pull success' : `pull failure (${r.failure ?? 'unknown'})`;

/** How many times `provider` ran in a window. */
export const execsOf = (w: Window, provider: string): number => w.execs.filter((i) => i.provider === provider).length;
