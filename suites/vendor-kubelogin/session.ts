// What the vendor-kubelogin cases share while they run, one after another: a
// kubeconfig with one user per plan entry (each its own token cache dir), and
// kubectl runs, each with the plugin runs, token-endpoint requests and
// discovery fetches of its own window (which is why the cases never run side
// by side), and how those read as evidence: tokens only as what they say.
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import {
  clusterOf,
  execRunEvidence,
  kubectlAs,
  readExecRuns,
  redactArgs,
  since,
  tokenFingerprint,
  tokenOf,
  userInfoOf,
  writeUsersKubeconfig,
  type ClusterView,
  type Evidence,
  type KubectlAttempt,
  type KubeloginExec,
  type KubeloginLab,
  type RecordedExecRun,
  type SuiteRun,
  type TokenRequestRecord,
} from '../../src/run/kit.ts';
import { KUBECTL_TIMEOUT_MS, USERS, type UserName } from './plan.ts';

export interface Attempt extends Omit<KubectlAttempt, 'stderr'> {
  username?: string;
  runs: RecordedExecRun[];
  tokenRequests: TokenRequestRecord[];
  discoveries: number;
}

export interface Session {
  run: SuiteRun;
  lab: KubeloginLab;
  dir: string;
  cluster: ClusterView;
  exec(user: UserName): KubeloginExec;
  /** kubectl as `user` of the suite's kubeconfig. */
  attempt(user: UserName, args: string[]): Promise<Attempt>;
}

/** `<grant_type>/<client auth>:<status>`, as predict.ts names a token-endpoint request. */
export const tokenCall = (r: TokenRequestRecord): string => `${r.grantType}/${r.clientAuth}:${r.status}`;

export async function openSession(run: SuiteRun, lab: KubeloginLab, dir: string): Promise<Session> {
  const env = run.environment;
  const cluster = await clusterOf(env);
  const exec = (user: UserName): KubeloginExec => ({ ...USERS[user], cacheDir: join(dir, 'cache', user) });
  const kubeconfig = join(dir, 'users.kubeconfig');
  await writeUsersKubeconfig(
    kubeconfig,
    { server: cluster.server, caData: cluster.caData },
    Object.fromEntries(
      (Object.keys(USERS) as UserName[]).map((u) => {
        const { env: vars, ...e } = lab.execFor(exec(u));
        return [u, { exec: { ...e, ...(vars.length ? { env: vars } : {}) } }];
      }),
    ),
    'password',
  );

  return {
    run,
    lab,
    dir,
    cluster,
    exec,
    async attempt(user, args) {
      const runs = await since(() => readExecRuns(lab.runsDir));
      const tokenRequests = await since(() => lab.issuer.tokenEndpoint!.requests());
      const fetches = await since(() => lab.issuer.fetches());
      // A clean environment: no ~/.kube of the caller's; kuberc off.
      const { stderr: _, ...k } = await kubectlAs(env, {
        kubeconfig,
        user,
        args,
        home: dir,
        timeoutMs: KUBECTL_TIMEOUT_MS,
      });
      const ran = await runs.added();
      for (const recorded of ran) run.redactor.add(tokenOf(recorded));
      const username = userInfoOf(k.stdout)?.username;
      return {
        ...k,
        ...(username ? { username } : {}),
        runs: ran,
        tokenRequests: await tokenRequests.added(),
        discoveries: (await fetches.added()).filter((f) => f.what === 'discovery').length,
      };
    },
  };
}

/** What a token says, never the token: aud, sub, exp, its fingerprint. */
export function describeJwt(token: string): Record<string, unknown> {
  if (!token) return { contents: '(none)' };
  try {
    const c = decodeJwt(token);
    return { aud: c.aud, sub: c.sub, iss: c.iss, exp: c.exp, fingerprint: tokenFingerprint(token) };
  } catch {
    return { contents: '(not a JWT)', fingerprint: tokenFingerprint(token) };
  }
}

/** A run as evidence: the password argument redacted, the token reduced to its claims and a fingerprint. */
export const runEvidence = (r: RecordedExecRun) => execRunEvidence(r, describeJwt, redactArgs(r.args));

export function attemptEvidence(lab: KubeloginLab, user: string, attempts: Attempt[]): Evidence[] {
  return attempts.flatMap((a, i) => [
    {
      kind: 'data' as const,
      label: `kubectl --user ${user}${attempts.length > 1 ? ` (call ${i + 1})` : ''}`,
      data: {
        status: a.status,
        exitCode: a.exitCode,
        ...(a.username ? { username: a.username } : {}),
        ...(a.kubectlError ? { error: a.kubectlError } : {}),
        discoveries: a.discoveries,
      },
    },
    {
      kind: 'invocation' as const,
      label: `plugin runs (recording wrapper in front of ${lab.plugin.path})`,
      data: a.runs.map(runEvidence),
    },
    {
      kind: 'data' as const,
      label: 'token endpoint requests (no secrets: tokens as fingerprints)',
      data: a.tokenRequests,
    },
  ]);
}
