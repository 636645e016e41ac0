// What the vendor-ecr cases share while they run, one after another: the
// pods they create (each with the plugin execs and AWS requests of its own
// window, which is why the cases never run side by side), how those read in
// messages and evidence, and what earlier cases recorded for later ones.
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import { HOSTS, POD_TIMEOUT_MS, type RunNames } from './plan.ts';
import type { RecordedAnswer } from './predict.ts';
import {
  clusterOidc,
  execsOf,
  invocationEvidence,
  reachFromPlugins,
  readWrappedInvocations,
  runPodWatching,
  type Evidence,
  type FakeAws,
  type FakeAwsEndpoints,
  type FakeAwsRequest,
  type LabRegistry,
  type PodRun,
  type SuiteRun,
  type WrappedInvocation,
} from '../../src/run/kit.ts';

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
  for (const host of [HOSTS.static, HOSTS.other, HOSTS.public, HOSTS.sa, HOSTS.wrongAud])
    await lab.main.serveAs(run, host);
  await lab.refresh.serveAs(run, HOSTS.refresh);
  const reach = await reachFromPlugins(run, Object.values(lab.endpoints));
  run.defer(() => reach.stop());
  lab.fake.trustOidc(await clusterOidc(env));
  let seq = 0;
  return {
    run,
    lab,
    async pod(label, ref, o = {}) {
      const name = `ecr-${label}-${lab.names.id}-${++seq}`;
      const pod = { name, image: ref, pullPolicy: 'Always' as const, timeoutMs: POD_TIMEOUT_MS, ...o };
      const logs = { execs: () => readWrappedInvocations(lab.logDir), aws: () => lab.fake.requests() };
      const w = await runPodWatching(env, pod, logs);
      return { run: w.run, createdAt: w.createdAt, doneAt: w.doneAt, ...w.added };
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
export const execsIn = (w: Window, provider: string): number => execsOf(w.execs, provider);
