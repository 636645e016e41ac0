// What the vendor-azure-kubelogin cases share while they run, one after
// another: the lab, the cluster as a client sees it, the federated token file,
// and one call of a client (kubectl or a probe) running kubelogin, with the
// plugin runs and Entra ID requests of its own window (which is why the cases
// never run side by side), read the way predict.ts states them.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  answerOf,
  clientLogEvidence,
  clusterOf,
  defaultClientEnv,
  execRunEvidence,
  kubectlAs,
  since,
  startClientSession,
  tokenFingerprint,
  tokenOf,
  uniqueSuffix,
  userInfoOf,
  writeUsersKubeconfig,
  type AzureKubeloginLab,
  type CaseContext,
  type ClientProbe,
  type ClusterView,
  type Evidence,
  type FakeAzureRequest,
  type RecordedExecRun,
  type SuiteRun,
} from '../../src/run/kit.ts';
import { CALL_TIMEOUT_MS, CLIENT_PATH, WHOAMI_ARGS, type ModeExec, type Principals } from './plan.ts';
import type { LoginView, Tenant } from './predict.ts';

export interface Session {
  run: SuiteRun;
  lab: AzureKubeloginLab;
  cluster: ClusterView;
  /** Where the session's kubeconfigs and homes are (a temp dir: they hold secrets and token caches). */
  dir: string;
  principals: Principals;
  tenant: Tenant;
  federatedTokenFile: string;
}

export async function openSession(run: SuiteRun, lab: AzureKubeloginLab, dir: string): Promise<Session> {
  const { federatedTokenFile } = await lab.trustCluster(run.environment, dir);
  const p = lab.principals;
  return {
    run,
    lab,
    cluster: await clusterOf(run.environment),
    dir,
    federatedTokenFile,
    principals: {
      tenantId: lab.tenantId,
      spn: p.spn,
      ropc: p.ropc,
      workload: p.workload,
      msi: p.msi,
      identityEndpoint: lab.entra.identityEndpoint,
      caFile: lab.entra.caFile,
    },
    tenant: {
      tenantId: lab.tenantId,
      spn: p.spn,
      ropc: p.ropc,
      workload: p.workload,
      msiObjectId: p.msi.objectId,
      federatedTokenValid: true,
    },
  };
}

/** One call's window: the plugin runs and Entra ID requests it caused, and what the client got. */
export interface Call {
  runs: RecordedExecRun[];
  entra: FakeAzureRequest[];
  status?: number;
  username?: string;
  error?: string;
  evidence: Evidence[];
}

/** A fresh home for a call (its own MSAL cache), or `home` to share one. */
export async function homeFor(s: Session, label: string): Promise<string> {
  const home = join(s.dir, 'homes', `${label}-${uniqueSuffix()}`);
  await mkdir(home, { recursive: true, mode: 0o700 });
  return home;
}

const execStanza = (s: Session, exec: ModeExec, apiVersion: string) => ({
  apiVersion,
  command: s.lab.command,
  args: exec.args,
  env: [] as Array<{ name: string; value: string }>,
  provideClusterInfo: false,
  interactiveMode: 'Never' as const,
});

/** kubectl auth whoami as a user whose exec is `exec`, in `home`, the user's environment holding exec.env. */
export async function kubectlCall(
  s: Session,
  ctx: CaseContext,
  exec: ModeExec,
  home: string,
  o: { apiVersion?: string; kubeconfig?: string; user?: string } = {},
): Promise<Call> {
  const user = o.user ?? 'aks-user';
  const kubeconfig =
    o.kubeconfig ??
    (await writeUsersKubeconfig(
      join(home, `kubeconfig-${uniqueSuffix(ctx.clock)}`),
      { server: s.cluster.server, caData: s.cluster.caData },
      { [user]: { exec: execStanza(s, exec, o.apiVersion ?? 'client.authentication.k8s.io/v1beta1') } },
    ));
  const runs = await since(() => s.lab.runs());
  const entra = await since(() => s.lab.entraRequests());
  const k = await kubectlAs(ctx.environment, {
    kubeconfig,
    user,
    args: WHOAMI_ARGS,
    home,
    timeoutMs: CALL_TIMEOUT_MS,
    env: exec.env,
  });
  const ran = await runs.added();
  for (const r of ran) s.run.redactor.add(tokenOf(r));
  const username = userInfoOf(k.stdout)?.username;
  return {
    runs: ran,
    entra: await entra.added(),
    ...(k.status !== undefined ? { status: k.status } : {}),
    ...(username ? { username } : {}),
    ...(k.kubectlError ? { error: k.kubectlError } : {}),
    evidence: [
      {
        kind: 'data',
        label: `kubectl --user ${user} ${WHOAMI_ARGS.join(' ')}`,
        data: { exitCode: k.exitCode, status: k.status, username, error: k.kubectlError },
      },
    ],
  };
}

/** A real client's probe GETs discovery as a user whose exec is `exec`, with the user's environment. */
export async function probeCall(
  s: Session,
  ctx: CaseContext,
  probe: ClientProbe,
  exec: ModeExec,
  home: string,
): Promise<Call> {
  const runs = await since(() => s.lab.runs());
  const entra = await since(() => s.lab.entraRequests());
  const session = await startClientSession(probe, {
    kubeconfig: join(home, `${probe.name}.kubeconfig.json`),
    cluster: s.cluster,
    exec: execStanza(s, exec, 'client.authentication.k8s.io/v1beta1'),
    user: `aks-${probe.name}`,
    timeoutMs: CALL_TIMEOUT_MS,
    redactor: s.run.redactor,
    env: { ...defaultClientEnv(), ...exec.env, HOME: home },
  });
  let response;
  try {
    response = await session.request(CLIENT_PATH);
  } finally {
    await session.close();
  }
  const ran = await runs.added();
  for (const r of ran) s.run.redactor.add(tokenOf(r));
  return {
    runs: ran,
    entra: await entra.added(),
    ...(response.status !== undefined ? { status: response.status } : {}),
    ...(response.error ? { error: s.run.redactor.text(response.error) } : {}),
    evidence: [
      {
        kind: 'data',
        label: `${probe.name} GET ${CLIENT_PATH}`,
        data: { status: response.status, error: response.error ? s.run.redactor.text(response.error) : undefined },
      },
      ...clientLogEvidence(`${probe.name} log`, session.log(), 4000),
    ],
  };
}

/** Entra ID's calls in a window as predict.ts names them. */
export function entraCalls(reqs: FakeAzureRequest[]): string[] {
  return reqs.flatMap((r) =>
    r.endpoint === 'identity'
      ? [`msi:${r.status}`]
      : r.method === 'POST' && r.path.endsWith('/oauth2/v2.0/token')
        ? [`${r.grantType ?? '?'}/${r.clientAuth ?? '?'}:${r.status}`]
        : [],
  );
}

/** A call as predict.ts's LoginView. */
export function viewOf(c: Call, withUsername: boolean): LoginView {
  const run = c.runs[0];
  const calls = entraCalls(c.entra);
  const exit = run?.exitCode ?? -1;
  return {
    entra: calls,
    pluginExit: exit,
    apiVersion: run ? (answerOf(run).apiVersion ?? '') : '',
    fromCache: exit === 0 && calls.length === 0 && !!run && tokenOf(run) !== '',
    status: c.status ?? 'no request',
    ...(withUsername && c.username ? { username: c.username } : {}),
  };
}

/** A token as evidence: what it says (aud, oid, exp) and its fingerprint, never the token. */
function describeToken(token: string): Record<string, unknown> {
  if (!token) return { contents: '(none)' };
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<
      string,
      unknown
    >;
    return { aud: claims.aud, oid: claims.oid, azp: claims.azp, exp: claims.exp, fingerprint: tokenFingerprint(token) };
  } catch {
    return { contents: '(not a JWT)', fingerprint: tokenFingerprint(token) };
  }
}

export function callEvidence(calls: Call[]): Evidence[] {
  return calls.flatMap((c) => [
    ...c.evidence,
    {
      kind: 'invocation' as const,
      label: 'kubelogin runs (exec recording wrapper)',
      data: c.runs.map((r) => execRunEvidence(r, describeToken)),
    },
    { kind: 'data' as const, label: 'Entra ID requests (no secrets)', data: c.entra },
  ]);
}
