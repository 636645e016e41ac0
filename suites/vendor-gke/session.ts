// What the vendor-gke cases share: a kubeconfig with one user per lab account
// (each execs the plugin in ADC mode behind the recording wrapper), kubectl
// runs with the plugin runs and token grants of their own window (so the
// kubectl cases run one at a time), and how those read as evidence: never a
// token, only its fingerprint.
import { access, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { parse } from 'yaml';
import { tokenFingerprint } from '../../src/authn/token-book.ts';
import {
  readExecRuns,
  type RecordedExecRun,
  answerOf,
  type PluginAnswer,
} from '../../src/plugin/exec-recording-wrapper.ts';
import type { GoogleTokenRequest } from '../../src/fake-clouds/google/index.ts';
import { GKE_CACHE_FILE } from '../../src/plugin/vendors/gke-gcloud-auth-plugin.ts';
import { V1, type GkeAccount, type GkeLab } from '../../src/vendor-labs/gke-lab.ts';
import type { Environment, Evidence, SuiteRun } from '../../src/run/kit.ts';
import { kubectlOutcome } from '../../src/clients/kubectl-output.ts';
import { KUBECTL_TIMEOUT_MS } from './plan.ts';

/** The kubectl cases' users: an account each, and the viewer once more with a client.authentication.k8s.io/v1 stanza. */
export const KUBECTL_USERS = ['viewer', 'viewer-v1', 'bad-key', 'unknown'] as const;
export type KubectlUser = (typeof KUBECTL_USERS)[number];
const accountOf = (u: KubectlUser): GkeAccount => (u === 'viewer-v1' ? 'viewer' : u);
/** The wrapper label of the kubectl cases (the client matrix's kubectl session has its own). */
const KUBECTL_CASES = 'kubectl-cases';

export interface Cluster {
  server: string;
  caPem: string;
}

/** What one kubectl call did, with the plugin runs and token grants meanwhile. */
export interface Attempt {
  status?: number;
  exitCode: number;
  kubectlError?: string;
  stdout: string;
  /** kubectl's stderr (-v=6: statuses, no headers), last 4000 characters. */
  stderr: string;
  runs: RecordedExecRun[];
  grants: GoogleTokenRequest[];
}

export interface GkeSession {
  run: SuiteRun;
  lab: GkeLab;
  cluster: Cluster;
  kubeconfig: string;
  /** The HOME kubectl and the plugin get: its .kube/ exists, so the plugin could write its cache there. */
  home: string;
  attempt(user: KubectlUser, args: string[]): Promise<Attempt>;
  /** Where the plugin's cache file would be (cred.go:350-356), for HOME and for the kubeconfig's own dir. */
  cacheCandidates(): string[];
}

export async function clusterOf(env: Environment): Promise<Cluster> {
  const kc = parse(await readFile(env.kubeconfig, 'utf8')) as {
    clusters: Array<{
      cluster: { server: string; 'certificate-authority'?: string; 'certificate-authority-data'?: string };
    }>;
  };
  const c = kc.clusters[0]!.cluster;
  const caPem = c['certificate-authority']
    ? await readFile(c['certificate-authority'], 'utf8')
    : Buffer.from(c['certificate-authority-data'] ?? '', 'base64').toString('utf8');
  return { server: c.server, caPem };
}

export async function openSession(run: SuiteRun, lab: GkeLab, dir: string): Promise<GkeSession> {
  const cluster = await clusterOf(run.environment);
  const home = join(dir, 'home');
  await mkdir(join(home, '.kube'), { recursive: true, mode: 0o700 });
  const users: Record<string, Record<string, unknown>> = {};
  for (const u of KUBECTL_USERS)
    users[u] = await lab.execFor(accountOf(u), {
      label: KUBECTL_CASES,
      ...(u === 'viewer-v1' ? { apiVersion: V1 } : {}),
    });
  const kubeconfig = await lab.writeKubeconfig(
    join(dir, 'users.kubeconfig'),
    { server: cluster.server, caData: Buffer.from(cluster.caPem).toString('base64') },
    users,
  );
  const env = run.environment;
  return {
    run,
    lab,
    cluster,
    kubeconfig,
    home,
    cacheCandidates: () => [join(home, '.kube', GKE_CACHE_FILE), join(dirname(kubeconfig), GKE_CACHE_FILE)],
    async attempt(user, args) {
      const runsBefore = (await readExecRuns(lab.runsDir(KUBECTL_CASES))).length;
      const grantsBefore = lab.fake.requests().length;
      // The client sessions make grants meanwhile, for accounts of their own: this user's are those naming its key.
      const kid = lab.keyIdOf(accountOf(user));
      // A clean environment: no KUBECONFIG, no CLOUDSDK_*, no GOOGLE_* of the caller's; kuberc off.
      const r = await execa(env.kubectl, ['--kubeconfig', kubeconfig, '--user', user, ...args, '-v=6'], {
        reject: false,
        timeout: KUBECTL_TIMEOUT_MS,
        extendEnv: false,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, KUBERC: 'off' },
      });
      const runs = (await readExecRuns(lab.runsDir(KUBECTL_CASES))).slice(runsBefore);
      for (const x of runs) run.redactor.add(answerOf(x).token);
      return {
        exitCode: r.exitCode ?? -1,
        stdout: String(r.stdout),
        stderr: String(r.stderr).slice(-4000),
        runs,
        grants: lab.fake
          .requests()
          .slice(grantsBefore)
          .filter((g) => g.assertion?.header.kid === kid),
        ...kubectlOutcome(String(r.stderr)),
      };
    },
  };
}

export async function existing(files: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const f of files)
    if (
      await access(f).then(
        () => true,
        () => false,
      )
    )
      found.push(f);
  return found;
}

/** The plugin's answer with its token reduced to a fingerprint. */
export function reducedAnswer(r: RecordedExecRun): Omit<PluginAnswer, 'token'> & { tokenFingerprint?: string } {
  const { token, ...rest } = answerOf(r);
  return { ...rest, ...(token ? { tokenFingerprint: tokenFingerprint(token) } : {}) };
}

export function attemptEvidence(label: string, attempts: Attempt[]): Evidence[] {
  return [
    {
      kind: 'data',
      label: `kubectl ${label}`,
      data: attempts.map((a) => ({
        status: a.status,
        exitCode: a.exitCode,
        ...(a.kubectlError ? { error: a.kubectlError } : {}),
      })),
    },
    {
      kind: 'invocation',
      label: 'plugin runs (recording wrapper in front of gke-gcloud-auth-plugin)',
      data: attempts.flatMap((a) =>
        a.runs.map((r) => ({
          args: r.args,
          exitCode: r.exitCode,
          durationMs: r.durationMs,
          answer: reducedAnswer(r),
          ...(r.exitCode ? { stderr: r.stderr.slice(-800) } : {}),
        })),
      ),
    },
    { kind: 'data', label: 'fake Google token endpoint requests', data: attempts.flatMap((a) => a.grants) },
  ];
}
