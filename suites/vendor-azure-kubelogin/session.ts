// What the vendor-azure-kubelogin cases share while they run, one after
// another: the lab, the cluster as a client sees it, the federated token file,
// and one call of a client (kubectl or a probe) running kubelogin, with the
// plugin runs and Entra ID requests of its own window (which is why the cases
// never run side by side), read the way predict.ts states them.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  answerOf,
  clusterOf,
  execCall,
  execRunEvidence,
  tokenFingerprint,
  tokenOf,
  uniqueSuffix,
  type AzureKubeloginLab,
  type CaseContext,
  type ClientProbe,
  type ClusterView,
  type Evidence,
  type ExecCall,
  type FakeAzureRequest,
  type SuiteRun,
} from '../../src/run/kit.ts';
import { CALL_TIMEOUT_MS, CLIENT_PATH, type ModeExec, type Principals } from './plan.ts';
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
export type Call = ExecCall<FakeAzureRequest>;

/** A fresh home for a call (its own MSAL cache), or `home` to share one. */
export async function homeFor(s: Session, label: string): Promise<string> {
  const home = join(s.dir, 'homes', `${label}-${uniqueSuffix()}`);
  await mkdir(home, { recursive: true, mode: 0o700 });
  return home;
}

/** One call: kubectl auth whoami, or a probe's GET, as a user whose exec is `exec`, the user's environment holding exec.env. */
export async function callAs(
  s: Session,
  ctx: CaseContext,
  client: 'kubectl' | ClientProbe,
  exec: ModeExec,
  home: string,
  o: { apiVersion?: string; kubeconfig?: string; user?: string } = {},
): Promise<Call> {
  return execCall({
    environment: ctx.environment,
    cluster: s.cluster,
    exec: {
      command: s.lab.command,
      args: exec.args,
      apiVersion: o.apiVersion ?? 'client.authentication.k8s.io/v1beta1',
    },
    client,
    path: CLIENT_PATH,
    home,
    env: exec.env,
    runs: () => s.lab.runs(),
    cloud: () => s.lab.entraRequests(),
    redactor: s.run.redactor,
    timeoutMs: CALL_TIMEOUT_MS,
    ...(o.kubeconfig ? { kubeconfig: o.kubeconfig } : {}),
    user: o.user ?? (client === 'kubectl' ? 'aks-user' : `aks-${client.name}`),
  });
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
  const calls = entraCalls(c.cloud);
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
    { kind: 'data' as const, label: 'Entra ID requests (no secrets)', data: c.cloud },
  ]);
}
