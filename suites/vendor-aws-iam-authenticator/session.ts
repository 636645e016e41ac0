// What the vendor-aws-iam-authenticator cases share while they run, one after
// another: the view role for the mapped group, a kubeconfig with one user per
// plan entry, the crafted tokens, and kubectl runs, each with the plugin runs,
// STS requests and server log lines of its own window (which is why the cases
// never run side by side), and how those read as evidence.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describeToken } from '../../src/model/aws-iam-authenticator.ts';
import { type Attempt } from './observe.ts';
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
import {
  bindClusterRole,
  clusterOf,
  execRunEvidence,
  kubectlAs,
  linesSince,
  readExecRuns,
  since,
  systemClock,
  tokenOf,
  userMay,
  waitFor,
  type Evidence,
  type IamAuthenticatorLab,
  type RecordedExecRun,
  type SuiteRun,
} from '../../src/run/kit.ts';

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
  const mapping = lab.mappings[0]!;
  const group = mapping.groups[0]!;
  const binding = `credprov-iam-view-${randomBytes(3).toString('hex')}`;
  await bindClusterRole(env, { name: binding, clusterRole: 'view', group }, run);
  // The RBAC authorizer sees a new binding through its informer, a moment later: a 403 now would not be the plugin's.
  const canList = { user: mapping.username, groups: [group], verb: 'list', resource: 'pods', namespace: 'default' };
  await waitFor(
    `ClusterRoleBinding ${binding} to take effect`,
    async () => ((await userMay(env, canList).catch(() => false)) ? true : undefined),
    { timeoutMs: RBAC_TIMEOUT_MS, intervalMs: 200 },
  );

  const cluster = await clusterOf(env);
  const crafted = craftedTokens(lab, lab.users.mapped, systemClock.now());
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
    { server: cluster.server, caData: cluster.caData },
    users,
  );

  return {
    run,
    lab,
    crafted,
    async attempt(user, args) {
      const runsDir = lab.runsDirOf(viaOf(user));
      const runs = await since(() => readExecRuns(runsDir));
      const sts = await since(() => lab.fake.requests());
      const serverLines = await linesSince(lab.serverLog);
      // A clean environment: no ~/.aws, ~/.kube or AWS_* of the caller's; kuberc off.
      const { stderr: _, ...k } = await kubectlAs(env, {
        kubeconfig,
        user,
        args,
        home: dir,
        timeoutMs: KUBECTL_TIMEOUT_MS,
      });
      const ran = await runs.added();
      for (const recorded of ran) run.redactor.add(tokenOf(recorded));
      return { ...k, runs: ran, sts: await sts.added(), serverLines: await serverLines.added() };
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
