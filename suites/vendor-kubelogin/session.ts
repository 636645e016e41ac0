// What the vendor-kubelogin cases share while they run, one after another: a
// kubeconfig with one user per plan entry (each its own token cache dir), and
// kubectl runs, each with the plugin runs, token-endpoint requests and
// discovery fetches of its own window (which is why the cases never run side
// by side), and how those read as evidence: tokens only as what they say.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { decodeJwt } from 'jose';
import { parse } from 'yaml';
import { tokenFingerprint } from '../../src/authn/token-book.ts';
import type { TokenRequestRecord } from '../../src/authn/oauth-token-endpoint.ts';
import { redactArgs, type KubeloginExec, type KubeloginLab } from '../../src/vendor-labs/kubelogin-lab.ts';
import type { Evidence } from '../../src/report/model.ts';
import type { SuiteRun } from '../../src/run/suite.ts';
import { writeUsersKubeconfig } from '../../src/vendor-labs/users-kubeconfig.ts';
import {
  execRunEvidence,
  readExecRuns,
  tokenOf,
  type RecordedExecRun,
} from '../../src/plugin/exec-recording-wrapper.ts';
import { kubectlOutcome, userInfoOf } from '../../src/clients/kubectl-output.ts';
import { KUBECTL_TIMEOUT_MS, USERS, type UserName } from './plan.ts';

export interface Attempt {
  status?: number;
  exitCode: number;
  kubectlError?: string;
  stdout: string;
  username?: string;
  runs: RecordedExecRun[];
  tokenRequests: TokenRequestRecord[];
  discoveries: number;
}

export interface ClusterAccess {
  server: string;
  caPem: string;
}

export interface Session {
  run: SuiteRun;
  lab: KubeloginLab;
  dir: string;
  cluster: ClusterAccess;
  exec(user: UserName): KubeloginExec;
  /** kubectl as `user` of the suite's kubeconfig. */
  attempt(user: UserName, args: string[]): Promise<Attempt>;
}

/** `<grant_type>/<client auth>:<status>`, as predict.ts names a token-endpoint request. */
export const tokenCall = (r: TokenRequestRecord): string => `${r.grantType}/${r.clientAuth}:${r.status}`;

export async function clusterAccess(kubeconfig: string): Promise<ClusterAccess> {
  type ClusterEntry = { server: string; 'certificate-authority'?: string; 'certificate-authority-data'?: string };
  const c = (parse(await readFile(kubeconfig, 'utf8')) as { clusters: Array<{ cluster: ClusterEntry }> }).clusters[0]!
    .cluster;
  const caPem = c['certificate-authority-data']
    ? Buffer.from(c['certificate-authority-data'], 'base64').toString('utf8')
    : await readFile(c['certificate-authority']!, 'utf8');
  return { server: c.server, caPem };
}

export async function openSession(run: SuiteRun, lab: KubeloginLab, dir: string): Promise<Session> {
  const env = run.environment;
  const cluster = await clusterAccess(env.kubeconfig);
  const exec = (user: UserName): KubeloginExec => ({ ...USERS[user], cacheDir: join(dir, 'cache', user) });
  const kubeconfig = join(dir, 'users.kubeconfig');
  await writeUsersKubeconfig(
    kubeconfig,
    { server: cluster.server, caData: Buffer.from(cluster.caPem).toString('base64') },
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
      const runsBefore = (await readExecRuns(lab.runsDir)).length;
      const tokenBefore = lab.issuer.tokenEndpoint!.requests().length;
      const fetchesBefore = lab.issuer.fetches().length;
      // A clean environment: no ~/.kube of the caller's; kuberc off.
      const r = await execa(env.kubectl, ['--kubeconfig', kubeconfig, '--user', user, ...args, '-v=6'], {
        reject: false,
        timeout: KUBECTL_TIMEOUT_MS,
        extendEnv: false,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, KUBERC: 'off' },
      });
      const runs = (await readExecRuns(lab.runsDir)).slice(runsBefore);
      for (const recorded of runs) run.redactor.add(tokenOf(recorded));
      const username = userInfoOf(String(r.stdout))?.username;
      return {
        exitCode: r.exitCode ?? -1,
        stdout: String(r.stdout),
        ...(username ? { username } : {}),
        runs,
        tokenRequests: lab.issuer.tokenEndpoint!.requests().slice(tokenBefore),
        discoveries: lab.issuer
          .fetches()
          .slice(fetchesBefore)
          .filter((f) => f.what === 'discovery').length,
        ...kubectlOutcome(String(r.stderr)),
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
