// The gcloud cases' session: kubectl (and client-go) as the lab's gcloud users,
// the plugin in its default provider with gcloud's configuration in its env,
// each call with the plugin runs and the gcloud runs of its own window (gcloud
// leaves a log file in its CLOUDSDK_CONFIG per run), and how those read as
// evidence: the cache file's token only as a fingerprint.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecConfig } from '../../src/api/exec/types.ts';
import { KUBECTL_TIMEOUT_MS, PROBE_PATH } from './plan.ts';
import { reducedAnswer } from './session.ts';
import {
  answerOf,
  caseOf,
  errorMessage,
  gcloudInvocations,
  kubectlAs,
  notRun,
  readExecRuns,
  since,
  startClientSession,
  tokenFingerprint,
  userInfoOf,
  type Check,
  type ClusterView,
  type Evidence,
  type GcloudSetup,
  type GkeLab,
  type KubectlAttempt,
  type ProbeAvailability,
  type Redactor,
  type RecordedExecRun,
} from '../../src/run/kit.ts';

export type GcloudUser = 'gcloud-a' | 'gcloud-b';
const LABEL = 'gcloud-kubectl';

export interface GcloudShared {
  kubectl: string;
  lab: GkeLab;
  cluster: ClusterView;
  dir: string;
  clientGo: ProbeAvailability | undefined;
}

export type Call = Omit<KubectlAttempt, 'stderr'> & { runs: RecordedExecRun[]; gcloudRuns: number };

/** The gcloud users' exec stanza: the default provider (no ADC flag), gcloud's configuration in its env. */
async function gcloudExec(s: GcloudShared, g: GcloudSetup, user: GcloudUser, label: string): Promise<ExecConfig> {
  const exec = (await s.lab.execFor(user, { label })) as unknown as ExecConfig;
  return { ...exec, args: [], env: Object.entries(g.envOf(user)).map(([name, value]) => ({ name, value })) };
}

/** kubectl as `user` with $HOME = `home` (no KUBECONFIG: the plugin's cache goes to $HOME/.kube), counting gcloud's runs. */
export async function kubectlWith(
  s: GcloudShared,
  g: GcloudSetup,
  home: string,
  user: GcloudUser,
  args: string[],
): Promise<Call> {
  const kubeconfig = join(s.dir, 'gcloud', 'users.kubeconfig');
  const users: Record<string, Record<string, unknown>> = {};
  for (const u of ['gcloud-a', 'gcloud-b'] as const) users[u] = { ...(await gcloudExec(s, g, u, LABEL)) };
  await s.lab.writeKubeconfig(kubeconfig, { server: s.cluster.server, caData: s.cluster.caData }, users);
  await mkdir(join(home, '.kube'), { recursive: true, mode: 0o700 });
  const runs = await since(() => readExecRuns(s.lab.runsDir(LABEL)));
  const gcloudRuns = await gcloudRunsSince(g, user);
  const { stderr: _, ...k } = await kubectlAs(
    { kubectl: s.kubectl },
    { kubeconfig, user, args, home, timeoutMs: KUBECTL_TIMEOUT_MS },
  );
  return { ...k, runs: await runs.added(), gcloudRuns: await gcloudRuns() } satisfies Call;
}

/** How many times gcloud ran for `user` since now (each run leaves a log file in its CLOUDSDK_CONFIG). */
async function gcloudRunsSince(g: GcloudSetup, user: GcloudUser): Promise<() => Promise<number>> {
  const before = await gcloudInvocations(g.configDirOf(user));
  return async () => (await gcloudInvocations(g.configDirOf(user))) - before;
}

export const tokenOf = (c: Call) => (c.runs[0] ? answerOf(c.runs[0]).token : undefined);

export function callEvidence(label: string, calls: Call[], g: GcloudSetup): Evidence[] {
  return [
    {
      kind: 'data',
      label,
      data: calls.map((c) => ({
        status: c.status,
        exitCode: c.exitCode,
        gcloudRuns: c.gcloudRuns,
        runs: c.runs.map((r) => ({ exitCode: r.exitCode, durationMs: r.durationMs, answer: reducedAnswer(r) })),
      })),
    },
    {
      kind: 'data',
      label: 'what gcloud tried beyond the fake token endpoint (catch-all)',
      data: g.catchAll.requests(),
    },
  ];
}

export function withGcloud(
  check: Check,
  s: GcloudShared,
  body: (g: GcloudSetup, redactor: Redactor) => ReturnType<Parameters<typeof caseOf>[1]>,
) {
  return caseOf(check, async (ctx) => {
    let g: GcloudSetup | undefined;
    try {
      g = await s.lab.gcloud();
    } catch (e) {
      return notRun(check, `gcloud could not activate the lab's service accounts: ${errorMessage(e)}`, ctx.ci);
    }
    // gcloud is an optional tool on the host, not something credprov can build: skipped without it, CI included.
    if (!g) return notRun(check, 'gcloud (the Google Cloud SDK) is not installed here', false);
    return body(g, ctx.redactor);
  });
}

export async function cacheSummary(files: string[]) {
  return Promise.all(
    files.map(async (f) => {
      const c = JSON.parse(await readFile(f, 'utf8')) as Record<string, string>;
      return {
        file: f,
        current_context: c.current_context,
        token_expiry: c.token_expiry,
        extra_args: c.extra_args,
        access_token: c.access_token ? tokenFingerprint(c.access_token) : '',
      };
    }),
  );
}

/** Who kubectl auth whoami says the call was. */
export const whoami = (c: Call): string => userInfoOf(c.stdout)?.username ?? `(none: ${c.status ?? c.exitCode})`;

export async function clientGoSession(s: GcloudShared, g: GcloudSetup, home: string, redactor: Redactor) {
  if (!s.clientGo?.availability.ok) return { view: ['client-go not available'], runs: [], gcloudRuns: 0, steps: [] };
  const label = 'gcloud-client-go';
  const gcloudRuns = await gcloudRunsSince(g, 'gcloud-a');
  const session = await startClientSession(s.clientGo.probe, {
    kubeconfig: join(s.dir, 'gcloud', 'client-go.kubeconfig.json'),
    cluster: s.cluster,
    exec: await gcloudExec(s, g, 'gcloud-a', label),
    user: 'gcloud-a',
    timeoutMs: KUBECTL_TIMEOUT_MS,
    redactor,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home },
  });
  const steps: Array<{ status?: number; runs: number }> = [];
  try {
    for (let i = 0; i < 2; i++) {
      const runs = await since(() => readExecRuns(s.lab.runsDir(label)));
      const r = await session.request(PROBE_PATH);
      steps.push({ ...(r.status !== undefined ? { status: r.status } : {}), runs: (await runs.added()).length });
    }
  } finally {
    await session.close();
  }
  return {
    view: steps.map((x) => `${x.status ?? 'error'}/${x.runs}`),
    runs: await readExecRuns(s.lab.runsDir(label)),
    gcloudRuns: await gcloudRuns(),
    steps,
  };
}
