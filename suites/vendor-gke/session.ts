// What the vendor-gke cases share: a kubeconfig with one user per lab account
// (each execs the plugin in ADC mode behind the recording wrapper), kubectl
// runs with the plugin runs and token grants of their own window (so the
// kubectl cases run one at a time), and how those read as evidence: never a
// token, only its fingerprint.
import { access, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KUBECTL_TIMEOUT_MS } from './plan.ts';
import {
  answerOf,
  clusterOf,
  GKE_CACHE_FILE,
  kubectlAs,
  readExecRuns,
  since,
  tokenFingerprint,
  V1,
  type ClusterView,
  type Evidence,
  type GkeAccount,
  type GkeLab,
  type GoogleTokenRequest,
  type KubectlAttempt,
  type PluginAnswer,
  type RecordedExecRun,
  type SuiteRun,
  type Window,
} from '../../src/run/kit.ts';

/** The kubectl cases' users: an account each, and the viewer once more with a client.authentication.k8s.io/v1 stanza. */
export const KUBECTL_USERS = ['viewer', 'viewer-v1', 'bad-key', 'unknown'] as const;
export type KubectlUser = (typeof KUBECTL_USERS)[number];
const accountOf = (u: KubectlUser): GkeAccount => (u === 'viewer-v1' ? 'viewer' : u);
/** The wrapper label of the kubectl cases (the client matrix's kubectl session has its own). */
const KUBECTL_CASES = 'kubectl-cases';

/** What one kubectl call did, with the plugin runs and token grants meanwhile. */
export interface Attempt extends KubectlAttempt {
  runs: RecordedExecRun[];
  grants: GoogleTokenRequest[];
}

export interface GkeSession {
  run: SuiteRun;
  lab: GkeLab;
  cluster: ClusterView;
  kubeconfig: string;
  /** The HOME kubectl and the plugin get: its .kube/ exists, so the plugin could write its cache there. */
  home: string;
  attempt(user: KubectlUser, args: string[]): Promise<Attempt>;
  /** Where the plugin's cache file would be (cred.go:350-356), for HOME and for the kubeconfig's own dir. */
  cacheCandidates(): string[];
}

/** The token grants the fake Google endpoint made for `account` (by its key id) since now. */
export async function grantsSince(lab: GkeLab, account: GkeAccount): Promise<Window<GoogleTokenRequest>> {
  const kid = lab.keyIdOf(account);
  const grants = await since(() => lab.fake.requests());
  return { added: async () => (await grants.added()).filter((g) => g.assertion?.header.kid === kid) };
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
    { server: cluster.server, caData: cluster.caData },
    users,
  );
  return {
    run,
    lab,
    cluster,
    kubeconfig,
    home,
    cacheCandidates: () => [join(home, '.kube', GKE_CACHE_FILE), join(dirname(kubeconfig), GKE_CACHE_FILE)],
    async attempt(user, args) {
      const runs = await since(() => readExecRuns(lab.runsDir(KUBECTL_CASES)));
      // The client sessions make grants meanwhile, for accounts of their own: this user's are those naming its key.
      const grants = await grantsSince(lab, accountOf(user));
      const k = await kubectlAs(run.environment, { kubeconfig, user, args, home, timeoutMs: KUBECTL_TIMEOUT_MS });
      const ran = await runs.added();
      for (const x of ran) run.redactor.add(answerOf(x).token);
      return { ...k, runs: ran, grants: await grants.added() };
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
