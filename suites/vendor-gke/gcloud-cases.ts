// The plugin's default provider, with the real gcloud (when installed): its
// token cache file, where it lands (#920), its reuse, a change of gcloud
// configuration under the same kube context (#1122), and a cached token revoked
// server-side. Each case has its own $HOME (so its own cache file) and counts
// gcloud's runs by the log file each invocation leaves in its CLOUDSDK_CONFIG.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { tokenFingerprint } from '../../src/authn/token-book.ts';
import type { ExecConfig } from '../../src/api/exec/types.ts';
import type { ProbeAvailability } from '../../src/clients/index.ts';
import { writeProbeKubeconfig } from '../../src/clients/kubeconfig.ts';
import { errorMessage } from '../../src/core/errors.ts';
import { readExecRuns, type RecordedExecRun, answerOf } from '../../src/plugin/exec-recording-wrapper.ts';
import { gcloudInvocations } from '../../src/vendor-labs/gcloud-sdk.ts';
import { GKE_CACHE_FILE } from '../../src/plugin/vendors/gke-gcloud-auth-plugin.ts';
import type { GcloudSetup, GkeLab } from '../../src/vendor-labs/gke-lab.ts';
import { caseOf, judge, notRun, sleep, type Case, type Check, type Evidence } from '../../src/run/kit.ts';
import { kubectlOutcome } from '../../src/clients/kubectl-output.ts';
import { GCLOUD_ACCOUNT_SWITCH, GCLOUD_REUSE, GCLOUD_STALE } from './checks.ts';
import { AFTER_REVOKE_MS, KUBECTL_TIMEOUT_MS, PROBE_PATH } from './plan.ts';
import { predictAccountSwitch, predictGcloudReuse, predictStale, type CachePlace, type StaleView } from './predict.ts';
import { existing, reducedAnswer, type Cluster } from './session.ts';

type GcloudUser = 'gcloud-a' | 'gcloud-b';
const LABEL = 'gcloud-kubectl';

export interface GcloudShared {
  kubectl: string;
  lab: GkeLab;
  cluster: Cluster;
  dir: string;
  clientGo: ProbeAvailability | undefined;
}

interface Call {
  status?: number;
  exitCode: number;
  stdout: string;
  runs: RecordedExecRun[];
  gcloudRuns: number;
}

/** kubectl --kubeconfig <gcloud users> with $HOME = `home` (no KUBECONFIG: the plugin's cache goes to $HOME/.kube). */
async function kubectlAs(s: GcloudShared, g: GcloudSetup, home: string, user: GcloudUser, args: string[]) {
  const kubeconfig = join(s.dir, 'gcloud', 'users.kubeconfig');
  const users: Record<string, Record<string, unknown>> = {};
  for (const u of ['gcloud-a', 'gcloud-b'] as const) {
    const exec = await s.lab.execFor(u, { label: LABEL });
    users[u] = { ...exec, args: [], env: Object.entries(g.envOf(u)).map(([name, value]) => ({ name, value })) };
  }
  await s.lab.writeKubeconfig(kubeconfig, { server: s.cluster.server, caData: b64(s.cluster.caPem) }, users);
  await mkdir(join(home, '.kube'), { recursive: true, mode: 0o700 });
  const before = (await readExecRuns(s.lab.runsDir(LABEL))).length;
  const gBefore = await gcloudInvocations(g.configDirOf(user));
  const out = await execa(s.kubectl, ['--kubeconfig', kubeconfig, '--user', user, ...args, '-v=6'], {
    reject: false,
    timeout: KUBECTL_TIMEOUT_MS,
    extendEnv: false,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, KUBERC: 'off' },
  });
  const call: Call = {
    exitCode: out.exitCode ?? -1,
    stdout: String(out.stdout),
    runs: (await readExecRuns(s.lab.runsDir(LABEL))).slice(before),
    gcloudRuns: (await gcloudInvocations(g.configDirOf(user))) - gBefore,
    ...kubectlOutcome(String(out.stderr)),
  };
  return { call };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const tokenOf = (c: Call) => (c.runs[0] ? answerOf(c.runs[0]).token : undefined);

function callEvidence(label: string, calls: Call[], g: GcloudSetup): Evidence[] {
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

function withGcloud(check: Check, s: GcloudShared, body: (g: GcloudSetup) => ReturnType<Parameters<typeof caseOf>[1]>) {
  return caseOf(check, async (ctx) => {
    let g: GcloudSetup | undefined;
    try {
      g = await s.lab.gcloud();
    } catch (e) {
      return notRun(check, `gcloud could not activate the lab's service accounts: ${errorMessage(e)}`, ctx.ci);
    }
    // gcloud is an optional tool on the host, not something credprov can build: skipped without it, CI included.
    if (!g) return notRun(check, 'gcloud (the Google Cloud SDK) is not installed here', false);
    return body(g);
  });
}

export const gcloudReuseCase = (s: GcloudShared): Case =>
  withGcloud(GCLOUD_REUSE, s, async (g) => {
    const startedAt = new Date();
    const home = join(s.dir, 'gcloud', 'home-reuse');
    const first = await kubectlAs(s, g, home, 'gcloud-a', ['get', '--raw', PROBE_PATH]);
    const second = await kubectlAs(s, g, home, 'gcloud-a', ['get', '--raw', PROBE_PATH]);
    const beside = join(s.dir, 'gcloud', GKE_CACHE_FILE);
    const inHome = join(home, '.kube', GKE_CACHE_FILE);
    const found = await existing([inHome, beside]);
    const cacheAt: CachePlace = found.includes(inHome)
      ? '$HOME/.kube'
      : found.includes(beside)
        ? 'beside --kubeconfig'
        : 'none';
    const [t1, t2] = [tokenOf(first.call), tokenOf(second.call)];
    return judge(GCLOUD_REUSE, {
      prediction: predictGcloudReuse(),
      observed: {
        statuses: [first.call.status ?? 'none', second.call.status ?? 'none'],
        gcloudRuns: first.call.gcloudRuns + second.call.gcloudRuns,
        cacheAt,
        sameToken: t1 !== undefined && t1 === t2,
      },
      actor: 'gke-gcloud-auth-plugin (gcloud provider) under kubectl',
      startedAt,
      show: (v) =>
        `HTTP ${v.statuses.join(', ')}; ${v.gcloudRuns} gcloud run(s); cache in ${v.cacheAt}; ${v.sameToken ? 'the same token' : 'different tokens'}`,
      evidence: [
        ...callEvidence('two kubectl calls as gcloud-a', [first.call, second.call], g),
        { kind: 'data', label: 'cache files found (the token reduced away)', data: await cacheSummary(found) },
      ],
    });
  });

async function cacheSummary(files: string[]) {
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

const whoami = (c: Call): string => {
  try {
    return (JSON.parse(c.stdout) as { status: { userInfo: { username: string } } }).status.userInfo.username;
  } catch {
    return `(none: ${c.status ?? c.exitCode})`;
  }
};

export const gcloudAccountSwitchCase = (s: GcloudShared): Case =>
  withGcloud(GCLOUD_ACCOUNT_SWITCH, s, async (g) => {
    const startedAt = new Date();
    const home = join(s.dir, 'gcloud', 'home-switch');
    const a = await kubectlAs(s, g, home, 'gcloud-a', ['auth', 'whoami', '-o', 'json']);
    const b = await kubectlAs(s, g, home, 'gcloud-b', ['auth', 'whoami', '-o', 'json']);
    const first = whoami(a.call);
    const second = whoami(b.call);
    const userB = `credprov:exec:${s.lab.subjectOf('gcloud-b')}`;
    return judge(GCLOUD_ACCOUNT_SWITCH, {
      prediction: predictAccountSwitch(`credprov:exec:${s.lab.subjectOf('gcloud-a')}`),
      observed: { first, second, gcloudRunsSecond: b.call.gcloudRuns },
      actor: 'gke-gcloud-auth-plugin (gcloud provider) under kubectl, CLOUDSDK_CONFIG switched',
      startedAt,
      show: (v) => `first ${v.first}, then ${v.second} (${v.gcloudRunsSecond} gcloud run(s) for the second)`,
      problems:
        second !== userB
          ? [
              `with CLOUDSDK_CONFIG naming ${s.lab.emailOf('gcloud-b')}, kubectl acted as ${second}: the cache ignores the gcloud configuration (cloud-provider-gcp#1122, fixed upstream by #1249 after this commit)`,
            ]
          : [],
      evidence: callEvidence('kubectl auth whoami as gcloud-a, then gcloud-b, one $HOME', [a.call, b.call], g),
    });
  });

/** Last of the gcloud cases: it revokes gcloud-a's tokens. */
export const gcloudStaleCase = (s: GcloudShared): Case =>
  withGcloud(GCLOUD_STALE, s, async (g) => {
    const startedAt = new Date();
    const home = join(s.dir, 'gcloud', 'home-stale');
    const warm = await kubectlAs(s, g, home, 'gcloud-a', ['get', '--raw', PROBE_PATH]);
    const cached = tokenOf(warm.call);
    const revoked = s.lab.fake.revoke({ subject: s.lab.subjectOf('gcloud-a') });
    await sleep(AFTER_REVOKE_MS);
    const after = await kubectlAs(s, g, home, 'gcloud-a', ['get', '--raw', PROBE_PATH]);
    const cg = await clientGoSession(s, g, home);
    const tokens = [...after.call.runs, ...cg.runs].map((r) => answerOf(r).token);
    const observed: StaleView = {
      kubectl: `${after.call.status ?? 'error'}/${after.call.runs.length}`,
      clientGo: cg.view,
      gcloudRuns: after.call.gcloudRuns + cg.gcloudRuns,
      sameToken: cached !== undefined && tokens.length > 0 && tokens.every((t) => t === cached),
    };
    return judge(GCLOUD_STALE, {
      prediction: predictStale(),
      observed,
      actor: 'gke-gcloud-auth-plugin (gcloud provider) under kubectl and client-go, its cached token revoked',
      startedAt,
      show: (v) =>
        `kubectl ${v.kubectl}; client-go ${v.clientGo.join(' ')}; ${v.gcloudRuns} gcloud run(s); ${v.sameToken ? 'always the cached token' : 'another token'}`,
      invalidBecause:
        warm.call.status !== 200 ? `the warm-up call got ${warm.call.status ?? 'no answer'}, not 200` : undefined,
      problems: observed.sameToken
        ? [
            'every re-run after a 401 answered the same refused token from the cache (until 10 s before its expiry): client-go re-runs the plugin for nothing',
          ]
        : [],
      evidence: [
        { kind: 'data', label: 'revoked token fingerprints', data: revoked },
        ...callEvidence('kubectl as gcloud-a: warm-up, then after the revocation', [warm.call, after.call], g),
        { kind: 'data', label: 'client-go session', data: cg.steps },
      ],
    });
  });

async function clientGoSession(s: GcloudShared, g: GcloudSetup, home: string) {
  if (!s.clientGo?.availability.ok) return { view: ['client-go not available'], runs: [], gcloudRuns: 0, steps: [] };
  const label = 'gcloud-client-go';
  const base = (await s.lab.execFor('gcloud-a', { label })) as unknown as ExecConfig;
  const exec: ExecConfig = {
    ...base,
    args: [],
    env: Object.entries(g.envOf('gcloud-a')).map(([name, value]) => ({ name, value })),
  };
  const file = await writeProbeKubeconfig(join(s.dir, 'gcloud', 'client-go.kubeconfig.json'), {
    server: s.cluster.server,
    caPem: s.cluster.caPem,
    exec,
    resolvedCommand: exec.command,
  });
  const gBefore = await gcloudInvocations(g.configDirOf('gcloud-a'));
  const session = await s.clientGo.probe.start(
    { kubeconfig: file },
    { timeoutMs: KUBECTL_TIMEOUT_MS, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home } },
  );
  const steps: Array<{ status?: number; runs: number }> = [];
  try {
    for (let i = 0; i < 2; i++) {
      const before = (await readExecRuns(s.lab.runsDir(label))).length;
      const r = await session.request(PROBE_PATH);
      steps.push({
        ...(r.status !== undefined ? { status: r.status } : {}),
        runs: (await readExecRuns(s.lab.runsDir(label))).length - before,
      });
    }
  } finally {
    await session.close();
  }
  return {
    view: steps.map((x) => `${x.status ?? 'error'}/${x.runs}`),
    runs: await readExecRuns(s.lab.runsDir(label)),
    gcloudRuns: (await gcloudInvocations(g.configDirOf('gcloud-a'))) - gBefore,
    steps,
  };
}
