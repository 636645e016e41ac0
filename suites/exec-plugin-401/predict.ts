// credprov's prediction for one session of one client: the client models
// (src/model/exec-credential-cache.ts, exec-info.ts) driven through the
// session's steps against a world that knows what the scripted fake plugin
// answers and how the API server judges it (src/model/apiserver-authn.ts, the
// webhook's own TokenBook on a virtual clock). The same function replays the
// model at the times the steps really ran: if that changes the prediction,
// the schedule slipped and the comparison is not a verdict on the client.
import { ApiServerAuthModel } from '../../src/model/apiserver-authn.ts';
import { clientSessionModel, type ModelWorld } from '../../src/model/exec-credential-cache.ts';
import { pluginLaunch, type ClientSetting } from '../../src/model/exec-info.ts';
import { probeKubeconfig, TokenBook, type ExecClientName, type ClusterView } from '../../src/run/kit.ts';
import type { SessionPlan } from './plan.ts';

/** What the plugin was told on a run (KUBERNETES_EXEC_INFO parsed; null when unset). */
export interface Told {
  execInfo: unknown;
  stdinIsTerminal: boolean;
}

/** One session as the check compares it, predicted or observed. */
export interface SessionView {
  label: string;
  /** Per request: `<status>/<plugin runs>`, or `error/<runs>` when the client sent nothing. */
  requests: string[];
  /** The distinct things the plugin was told over its runs, in order. */
  told: Told[];
  /** Plugin runs while no request was in flight (a client refreshing on its own); the models know of none. */
  runsOutsideRequests: number;
}

export interface SessionPrediction {
  view: SessionView;
  /** The model's steps, one line per request. */
  because: string[];
}

const SUBJECT = 'session';
const DEFAULT_LIFETIME_MS = 3_600_000;

/** Planned step start times: each step `afterMs` after the one before (requests take no time in the plan). */
export function plannedTimes(plan: SessionPlan): number[] {
  let t = 0;
  return plan.steps.map((s) => (t += s.afterMs));
}

export function predictSession(
  client: ExecClientName,
  plan: SessionPlan,
  setting: ClientSetting,
  times: number[],
): SessionPrediction {
  const launch = pluginLaunch(client, setting);
  let clock = 0;
  const book = new TokenBook({ now: () => clock });
  if (plan.plugin.kind === 'issuer')
    book.setPolicy(SUBJECT, {
      lifetimeMs: plan.plugin.lifetimeMs ?? DEFAULT_LIFETIME_MS,
      rejectNext: plan.plugin.rejectFirst ?? 0,
    });
  const certNotAfter = new Map<string, number>();
  let runs = 0;
  const p = plan.plugin;
  const world: ModelWorld = {
    runPlugin(now) {
      clock = now;
      runs++;
      if (p.kind === 'cert') {
        const id = `cert-${runs}`;
        const notAfter = now + p.lifetimeSeconds * 1000;
        certNotAfter.set(id, notAfter);
        return { ok: true, credential: { cert: id, expiresAt: notAfter } };
      }
      // The plan runs the plugin at the request's start; the real run starts up to a second or two later and writes
      // whole seconds (up to 1s earlier): the plans keep every request at least 2s away from an expiry.
      const expiresAt = p.claimSeconds === null ? {} : { expiresAt: now + p.claimSeconds * 1000 };
      if (p.kind === 'same-refused-token') return { ok: true, credential: { token: 'refused', ...expiresAt } };
      return { ok: true, credential: { token: book.issue(SUBJECT).token, ...expiresAt } };
    },
    serve: (now, presented) => server.serve(now, presented).status,
  };
  const server = new ApiServerAuthModel({
    review: (token, now) => {
      clock = now;
      return book.lookup(token).verdict;
    },
    // Go's x509 verification: invalid once now is after NotAfter.
    certValid: (cert, now) => now <= (certNotAfter.get(cert) ?? -Infinity),
  });
  const session = clientSessionModel(client, world, launch.runs ? {} : { refusal: launch.error });
  const requests: string[] = [];
  const because: string[] = [];
  plan.steps.forEach((s, i) => {
    const at = times[i] ?? 0;
    if (s.do === 'revoke') {
      clock = at;
      book.revoke({ subject: SUBJECT });
      because.push(`+${(at / 1000).toFixed(1)}s revoke every token issued so far`);
      return;
    }
    const r = session.request(at);
    requests.push(`${r.status ?? 'error'}/${r.runs}`);
    because.push(`+${(at / 1000).toFixed(1)}s ${r.because}`);
  });
  const told: Told[] =
    runs > 0 && launch.runs ? [{ execInfo: launch.execInfo, stdinIsTerminal: launch.stdinIsTerminal }] : [];
  return { view: { label: plan.label, requests, told, runsOutsideRequests: 0 }, because: [launch.because, ...because] };
}

/** What the client models know of a session's setting: its user, its terminal, and the cluster as its kubeconfig names it. */
export function settingFor(plan: SessionPlan, c: ClusterView): ClientSetting {
  // The cluster mapping exactly as the probe's kubeconfig writes it (what the Python client passes on as spec.cluster).
  const kc = probeKubeconfig({
    server: c.server,
    caPem: c.caPem,
    exec: {
      command: '',
      args: [],
      env: [],
      apiVersion: plan.user.apiVersion,
      interactiveMode: plan.user.interactiveMode,
      provideClusterInfo: plan.user.provideClusterInfo,
    },
    resolvedCommand: '',
    ...(plan.clusterConfig !== undefined ? { clusterConfig: plan.clusterConfig } : {}),
  }) as { clusters: Array<{ cluster: Record<string, unknown> }> };
  return {
    user: plan.user,
    cluster: { raw: kc.clusters[0]!.cluster, server: c.server, caData: c.caData },
    terminal: plan.terminal,
  };
}
