// One call of a real client through an exec plugin, as the vendor exec suites
// make it: kubectl (`auth whoami`, its own process, the status and username)
// or a client's probe (one GET in a session of its own), as a user whose exec
// stanza is the one under test, in a home of the case's, with the user's
// environment; and what the plugin's recording wrapper and a fake cloud's log
// gained meanwhile. Every token the plugin printed goes to the redactor.
import { join } from 'node:path';
import type { ExecConfig } from '../api/exec/types.ts';
import type { ClientProbe } from '../clients/probe.ts';
import { defaultClientEnv } from '../clients/common.ts';
import { userInfoOf } from '../clients/kubectl-output.ts';
import type { Environment } from '../cluster/provider.ts';
import type { Redactor } from '../core/redact.ts';
import { tokenOf, type RecordedExecRun } from '../plugin/exec-recording-wrapper.ts';
import type { Evidence } from '../report/model.ts';
import { clientLogEvidence, kubectlAs, startClientSession } from './client-session.ts';
import type { ClusterView } from './cluster-view.ts';
import { writeUsersKubeconfig } from '../vendor-labs/users-kubeconfig.ts';
import { since } from './window.ts';

/** The exec stanza under test (a v1beta1 or v1 user, interactiveMode Never). */
export interface ExecUnderTest {
  command: string;
  args: string[];
  apiVersion: string;
}

export interface ExecCallOptions<C> {
  environment: Pick<Environment, 'kubectl'>;
  cluster: ClusterView;
  exec: ExecUnderTest;
  /** kubectl (`auth whoami -o json`) or a probe's GET of `path`. */
  client: 'kubectl' | ClientProbe;
  path: string;
  /** The case's home (its kubeconfig is written there; the plugin's caches live there). */
  home: string;
  /** The user's environment besides PATH and HOME (what the plugin reads, the CA the shell trusts). */
  env: Record<string, string>;
  /** The wrapper's runs, and the fake cloud's requests: each read before and after the call. */
  runs: () => Promise<RecordedExecRun[]>;
  cloud: () => Promise<readonly C[]> | readonly C[];
  redactor: Redactor;
  timeoutMs: number;
  /** Another kubeconfig (a user a tool wrote) instead of one of the exec above; `user` names its user. */
  kubeconfig?: string;
  user?: string;
}

export interface ExecCall<C> {
  runs: RecordedExecRun[];
  cloud: C[];
  /** The API server's status, when the client got one. */
  status?: number;
  /** kubectl auth whoami's username. */
  username?: string;
  error?: string;
  evidence: Evidence[];
}

export const WHOAMI = ['auth', 'whoami', '-o', 'json'];

export async function execCall<C>(o: ExecCallOptions<C>): Promise<ExecCall<C>> {
  const user = o.user ?? 'exec-user';
  const stanza: ExecConfig = { ...o.exec, env: [], provideClusterInfo: false, interactiveMode: 'Never' };
  const runs = await since(o.runs);
  const cloud = await since(async () => [...(await o.cloud())]);
  let out: Omit<ExecCall<C>, 'runs' | 'cloud'>;
  if (o.client === 'kubectl') {
    const kubeconfig =
      o.kubeconfig ??
      (await writeUsersKubeconfig(
        join(o.home, 'kubeconfig'),
        { server: o.cluster.server, caData: o.cluster.caData },
        { [user]: { exec: { ...stanza } } },
      ));
    const k = await kubectlAs(o.environment, {
      kubeconfig,
      user,
      args: WHOAMI,
      home: o.home,
      timeoutMs: o.timeoutMs,
      env: o.env,
    });
    const username = userInfoOf(k.stdout)?.username;
    out = {
      ...(k.status !== undefined ? { status: k.status } : {}),
      ...(username ? { username } : {}),
      ...(k.kubectlError ? { error: k.kubectlError } : {}),
      evidence: [
        {
          kind: 'data',
          label: `kubectl --user ${user} ${WHOAMI.join(' ')}`,
          data: { exitCode: k.exitCode, status: k.status, username, error: k.kubectlError },
        },
      ],
    };
  } else {
    const probe = o.client;
    const session = await startClientSession(probe, {
      kubeconfig: join(o.home, `${probe.name}.kubeconfig.json`),
      cluster: o.cluster,
      exec: stanza,
      user,
      timeoutMs: o.timeoutMs,
      redactor: o.redactor,
      env: { ...defaultClientEnv(), ...o.env, HOME: o.home },
    });
    let response;
    try {
      response = await session.request(o.path);
    } finally {
      await session.close();
    }
    const error = response.error ? o.redactor.text(response.error) : undefined;
    out = {
      ...(response.status !== undefined ? { status: response.status } : {}),
      ...(error ? { error } : {}),
      evidence: [
        { kind: 'data', label: `${probe.name} GET ${o.path}`, data: { status: response.status, error } },
        ...clientLogEvidence(`${probe.name} log`, session.log(), 4000),
      ],
    };
  }
  const ran = await runs.added();
  for (const r of ran) o.redactor.add(tokenOf(r));
  return { runs: ran, cloud: await cloud.added(), ...out };
}
