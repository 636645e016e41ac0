// What the vendor-aws-iam-authenticator cases share while they run, one after
// another: the view role for the mapped group, a kubeconfig with one user per
// plan entry, the crafted tokens, and kubectl runs, each with the plugin runs,
// STS requests and server log lines of its own window (which is why the cases
// never run side by side), and how those read as evidence.
import { randomBytes } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { parse } from 'yaml';
import { apply, kubectl, type KubeTarget } from '../../src/cluster/kubectl.ts';
import { errorMessage } from '../../src/core/errors.ts';
import { waitFor } from '../../src/core/time.ts';
import { describeToken } from '../../src/model/aws-iam-authenticator.ts';
import type { IamAuthenticatorLab } from '../../src/vendor-labs/iam-authenticator-lab.ts';
import type { Evidence } from '../../src/report/model.ts';
import type { SuiteRun } from '../../src/run/suite.ts';
import { type Attempt } from './observe.ts';
import {
  execRunEvidence,
  readExecRuns,
  tokenOf,
  type RecordedExecRun,
} from '../../src/plugin/exec-recording-wrapper.ts';
import { kubectlOutcome } from '../../src/clients/kubectl-output.ts';
import {
  KUBECTL_TIMEOUT_MS,
  otherClusterId,
  RBAC_TIMEOUT_MS,
  USERS,
  type CraftedToken,
  type UserName,
  type UserPlan,
} from './plan.ts';
import type { TokenCommand } from '../../src/model/eks-token-commands.ts';
import { craftedTokens } from './predict.ts';

export interface Session {
  run: SuiteRun;
  lab: IamAuthenticatorLab;
  crafted: Record<CraftedToken, string>;
  /** kubectl as `user` of the suite's kubeconfig. */
  attempt(user: UserName, args: string[]): Promise<Attempt>;
}

/** Gives the mapped group the view role (removed after the suite), crafts the tokens and writes the users' kubeconfig. */
export async function openSession(run: SuiteRun, lab: IamAuthenticatorLab, dir: string): Promise<Session> {
  const env = run.environment;
  const admin: KubeTarget = { kubectl: env.kubectl, kubeconfig: env.kubeconfig };
  const mapping = lab.mappings[0]!;
  const group = mapping.groups[0]!;
  const binding = `credprov-iam-view-${randomBytes(3).toString('hex')}`;
  run.defer(async () => {
    await kubectl(admin, ['delete', 'clusterrolebinding', binding, '--ignore-not-found']).catch((e: unknown) =>
      run.log.warn(`removing ${binding}: ${errorMessage(e)}`),
    );
  });
  await apply(admin, [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: binding },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
    },
  ]);
  // The RBAC authorizer sees a new binding through its informer, a moment later: a 403 now would not be the plugin's.
  const canList = async () => {
    const answer = await kubectl(admin, [
      'auth',
      'can-i',
      'list',
      'pods',
      '-n',
      'default',
      '--as',
      mapping.username,
      '--as-group',
      group,
    ]).catch(() => 'no');
    return answer.trim() === 'yes' ? true : undefined;
  };
  await waitFor(`ClusterRoleBinding ${binding} to take effect`, canList, {
    timeoutMs: RBAC_TIMEOUT_MS,
    intervalMs: 200,
  });

  // The cluster as the admin kubeconfig names it.
  type ClusterEntry = { server: string; 'certificate-authority'?: string; 'certificate-authority-data'?: string };
  const cluster = (parse(await readFile(env.kubeconfig, 'utf8')) as { clusters: Array<{ cluster: ClusterEntry }> })
    .clusters[0]!.cluster;
  const crafted = craftedTokens(lab, lab.users.mapped, Date.now());
  run.redactor.add(...Object.values(crafted));
  const users = Object.fromEntries(
    Object.entries(USERS).map(([name, plan]) => [
      name,
      'crafted' in plan
        ? { token: crafted[plan.crafted] }
        : {
            exec: lab.execFor(plan.profile, {
              ...('via' in plan ? { via: plan.via } : {}),
              ...('apiVersion' in plan ? { apiVersion: plan.apiVersion } : {}),
              ...('otherCluster' in plan ? { clusterId: otherClusterId(lab.clusterId) } : {}),
            }),
          },
    ]),
  );
  const kubeconfig = await lab.writeKubeconfig(
    join(dir, 'users.kubeconfig'),
    {
      server: cluster.server,
      ...(cluster['certificate-authority'] ? { caFile: cluster['certificate-authority'] } : {}),
      ...(cluster['certificate-authority-data'] ? { caData: cluster['certificate-authority-data'] } : {}),
    },
    users,
  );

  return {
    run,
    lab,
    crafted,
    async attempt(user, args) {
      const runsDir = lab.runsDirOf(viaOf(user));
      const runsBefore = (await readExecRuns(runsDir)).length;
      const stsBefore = lab.fake.requests().length;
      const logBefore = await stat(lab.serverLog).then(
        (s) => s.size,
        () => 0,
      );
      // A clean environment: no ~/.aws, ~/.kube or AWS_* of the caller's; kuberc off.
      const r = await execa(env.kubectl, ['--kubeconfig', kubeconfig, '--user', user, ...args, '-v=6'], {
        reject: false,
        timeout: KUBECTL_TIMEOUT_MS,
        extendEnv: false,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, KUBERC: 'off' },
      });
      const runs = (await readExecRuns(runsDir)).slice(runsBefore);
      for (const recorded of runs) run.redactor.add(tokenOf(recorded));
      return {
        exitCode: r.exitCode ?? -1,
        stdout: String(r.stdout),
        runs,
        sts: lab.fake.requests().slice(stsBefore),
        serverLines: await linesFrom(lab.serverLog, logBefore),
        ...kubectlOutcome(String(r.stderr)),
      };
    },
  };
}

/** Which command makes `user`'s token (crafted users run none; their runs dir stays empty). */
export function viaOf(user: UserName): TokenCommand {
  const plan: UserPlan = USERS[user];
  return 'via' in plan && plan.via ? plan.via : 'aws-iam-authenticator';
}

export function attemptEvidence(
  lab: IamAuthenticatorLab,
  user: UserName,
  token: string,
  a: Attempt,
  whoami?: Attempt,
): Evidence[] {
  const all = [a, ...(whoami ? [whoami] : [])];
  const sts = all
    .flatMap((x) => x.sts)
    .map((r) => ({
      seq: r.seq,
      operation: r.operation,
      host: r.sts?.host,
      k8sAwsId: r.sts?.k8sAwsId,
      presigned: r.sts?.presigned,
      accessKeyId: r.accessKeyId,
      signature: r.signature,
      status: r.status,
      error: r.error,
      caller: r.sts?.caller,
    }));
  return [
    {
      kind: 'data',
      label: `kubectl --user ${user}`,
      data: {
        status: a.status,
        exitCode: a.exitCode,
        ...(a.kubectlError ? { error: a.kubectlError } : {}),
        tokenContents: describeToken(token),
      },
    },
    {
      kind: 'invocation',
      label: `plugin runs (recording wrapper in front of ${viaOf(user) === 'aws-eks-get-token' ? lab.awsCli?.install.path : lab.plugin.path})`,
      data: all.flatMap((x) => x.runs).map(runEvidence),
    },
    { kind: 'data', label: 'fake STS requests', data: sts },
    {
      kind: 'log',
      label: 'aws-iam-authenticator server log',
      file: lab.serverLog,
      text: all.flatMap((x) => x.serverLines).join('\n'),
    },
  ];
}

/** A run of either command as evidence: its token reduced to what it says (describeToken). */
const runEvidence = (r: RecordedExecRun) => execRunEvidence(r, describeToken);

/** The lines a log file gained since `offset`. */
async function linesFrom(file: string, offset: number): Promise<string[]> {
  const fh = await open(file, 'r').catch(() => undefined);
  if (!fh) return [];
  try {
    const { size } = await fh.stat();
    if (size <= offset) return [];
    const buf = Buffer.alloc(size - offset);
    await fh.read(buf, 0, buf.length, offset);
    return buf.toString('utf8').split('\n').filter(Boolean);
  } finally {
    await fh.close();
  }
}
