// What the vendor-oci cases share while they run, one after another: the lab,
// the cluster as a client sees it, and one call of a client (kubectl or a
// probe) running `oci ce cluster generate-token` from a home holding a given
// profile, with the plugin runs and Container Engine answers of its own window
// (which is why the cases never run side by side), read as predict.ts states them.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseOciToken } from '../../src/model/oci-generate-token.ts';
import {
  answerOf,
  clusterOf,
  execCall,
  execRunEvidence,
  tokenOf,
  tokenFingerprint,
  uniqueSuffix,
  type CaseContext,
  type ClientProbe,
  type ClusterView,
  type Evidence,
  type ExecCall,
  type OciLab,
  type OciRecord,
  type SuiteRun,
} from '../../src/run/kit.ts';
import { CALL_TIMEOUT_MS, CLIENT_PATH, generateTokenArgs, OKE_EXEC_API_VERSION, type Profile } from './plan.ts';
import type { LoginView } from './predict.ts';

export interface Session {
  run: SuiteRun;
  lab: OciLab;
  cluster: ClusterView;
  /** Where the homes are (a temp dir: each holds an API key). */
  dir: string;
  /** When the last call ended (ms): the next starts in a later second. */
  lastCallEndedAt?: number;
}

export async function openSession(run: SuiteRun, lab: OciLab, dir: string): Promise<Session> {
  return { run, lab, cluster: await clusterOf(run.environment), dir };
}

export type Call = ExecCall<OciRecord>;

/** A fresh home holding ~/.oci/config with `profile`'s key. */
export async function homeFor(s: Session, label: string, profile: Profile): Promise<string> {
  const home = join(s.dir, 'homes', `${label}-${uniqueSuffix()}`);
  await mkdir(home, { recursive: true, mode: 0o700 });
  await s.lab.profile(home, profile);
  return home;
}

/** One call: kubectl auth whoami, or a probe's GET, as OKE's kubeconfig user (`apiVersion` for another). */
export async function callAs(
  s: Session,
  ctx: CaseContext,
  client: 'kubectl' | ClientProbe,
  home: string,
  apiVersion = OKE_EXEC_API_VERSION,
): Promise<Call> {
  // oci's token is a function of the second it signs in, and kube-apiserver keeps a successful token
  // authentication for 10 s whatever the webhook's cache TTL (TokenSuccessCacheTTL, no flag): a call in the
  // same second as the last would print the same token, answered without asking Container Engine. So each call
  // starts in a second of its own.
  const last = s.lastCallEndedAt;
  if (last !== undefined && Math.floor(Date.now() / 1000) <= Math.floor(last / 1000))
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
  const call = await execCall({
    environment: ctx.environment,
    cluster: s.cluster,
    exec: {
      command: s.lab.command,
      args: generateTokenArgs(s.lab.identity.clusterId, s.lab.identity.region),
      apiVersion,
    },
    client,
    path: CLIENT_PATH,
    home,
    // oci-cli reads the profile from ~/.oci/config in the home, as a user's shell has it.
    env: {},
    runs: () => s.lab.runs(),
    cloud: () => s.lab.oci(),
    redactor: s.run.redactor,
    timeoutMs: CALL_TIMEOUT_MS,
    user: client === 'kubectl' ? 'oke-user' : `oke-${client.name}`,
  });
  s.lastCallEndedAt = Date.now();
  return call;
}

/** A call as predict.ts's LoginView. */
export function viewOf(c: Call, withUsername: boolean): LoginView {
  const run = c.runs[0];
  const ce = [...new Set(c.cloud.filter((r) => r.path.startsWith('/cluster_request/')).map((r) => String(r.status)))];
  return {
    pluginExit: run && run.exitCode === 0 ? 0 : 'non-zero',
    apiVersion: run ? (answerOf(run).apiVersion ?? '') : '',
    containerEngine: ce,
    status: c.status ?? 'no request',
    ...(withUsername && c.username ? { username: c.username } : {}),
  };
}

/** Each run's token with the Date its signature covers (a token that does not parse keeps '' as its Date). */
export function signedTokens(runs: Call['runs']): Array<{ token: string; date: string }> {
  return runs.map((r) => {
    const token = tokenOf(r);
    const t = parseOciToken(token);
    return { token, date: 'malformed' in t ? '' : t.date };
  });
}

/** The plugin's time per exec (Python start-up, loading the SDK, signing): the figure the suite reports. */
export const execSeconds = (c: Call): string =>
  c.runs.map((r) => (r.durationMs === undefined ? '?' : `${(r.durationMs / 1000).toFixed(1)} s`)).join(', ') ||
  'no run';

/** A token as evidence: the request it carries (host, path, keyId, the signed headers, Date), never its signature. */
function describeToken(token: string): Record<string, unknown> {
  if (!token) return { contents: '(none)' };
  const t = parseOciToken(token);
  if ('malformed' in t) return { contents: `(${t.malformed})`, fingerprint: tokenFingerprint(token) };
  return {
    url: t.url,
    keyId: t.authorization.keyId,
    signedHeaders: t.authorization.headers,
    date: t.date,
    fingerprint: tokenFingerprint(token),
  };
}

export function callEvidence(calls: Call[]): Evidence[] {
  return calls.flatMap((c) => [
    ...c.evidence,
    {
      kind: 'invocation' as const,
      label: 'oci ce cluster generate-token runs (exec recording wrapper)',
      data: c.runs.map((r) => execRunEvidence(r, describeToken)),
    },
    { kind: 'data' as const, label: "Container Engine's answers (fake OCI; no signatures)", data: c.cloud },
  ]);
}
