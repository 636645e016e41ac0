// A real client (kubectl, client-go, client-node, python: src/clients) running
// an exec credential plugin against the cluster, as the exec-plugin suites
// drive it: not run where this machine lacks the client; a kubeconfig of one
// user whose exec stanza is the one under test; a session started, its steps
// (requests, and revocations between them) run on a schedule, then closed; and
// each plugin run attributed to the request during which it started. Runs
// outside every request would be a client refreshing on its own.
// kubectlAs is the other client shape: one kubectl process per call, as users
// run it, in an environment of nothing but PATH and HOME.
import { execa } from 'execa';
import type { ExecConfig } from '../api/exec/types.ts';
import { ensureClientGoProbe } from '../clients/client-go.ts';
import { availableProbes, type ProbeAvailability } from '../clients/index.ts';
import { writeProbeKubeconfig } from '../clients/kubeconfig.ts';
import { kubectlOutcome } from '../clients/kubectl-output.ts';
import {
  CLIENT_NAMES,
  EXEC_CLIENT_NAMES,
  type ClientName,
  type ClientProbe,
  type ExecClientName,
  type ProbeResponse,
} from '../clients/probe.ts';
import type { Environment } from '../cluster/provider.ts';
import { errorMessage } from '../core/errors.ts';
import type { Redactor } from '../core/redact.ts';
import { sleep, systemClock, type Clock } from '../core/time.ts';
import type { Check, CheckResult, Evidence } from '../report/model.ts';
import type { ClusterView } from './cluster-view.ts';
import { notRun } from './results.ts';
import type { SuiteRun } from './suite.ts';

export {
  CLIENT_NAMES,
  EXEC_CLIENT_NAMES,
  type ClientName,
  type ExecClientName,
  type ProbeAvailability,
  type ProbeResponse,
};

/** The check not run (skipped, or failed under CI) when `client` cannot run here; undefined when it can. */
export function clientNotRun(
  check: Check,
  client: ExecClientName,
  probe: ProbeAvailability | undefined,
  ci: boolean,
): CheckResult | undefined {
  if (probe?.availability.ok) return undefined;
  const why = probe && !probe.availability.ok ? probe.availability.reason : 'no probe';
  return notRun(check, `${client} is not available here: ${why}`, ci);
}

export interface ClientSessionOptions {
  /** Where the session's kubeconfig is written (0600: exec.env may hold secrets). */
  kubeconfig: string;
  cluster: ClusterView;
  /** The exec stanza under test; its command as client-go resolves it (an absolute path) unless `resolvedCommand`. */
  exec: ExecConfig;
  resolvedCommand?: string;
  /** The cluster's client.authentication.k8s.io/exec extension (spec.cluster.config with provideClusterInfo). */
  clusterConfig?: unknown;
  /** The user's name in the kubeconfig (the client's error messages quote it). */
  user: string;
  /** Per-request limit. */
  timeoutMs: number;
  redactor: Redactor;
  /** The client's (and so the plugin's) environment; default credprov's, minus its secrets. */
  env?: NodeJS.ProcessEnv;
  /** A pseudo-terminal as stdin (interactiveMode IfAvailable/Always). */
  terminal?: boolean;
}

/** A request, or a revocation (`revoke` in runSteps); each `afterMs` after the step before ended. */
export type ClientStep = { do: 'request' | 'revoke'; afterMs: number };

export interface ObservedStep {
  do: 'request' | 'revoke';
  /** ms from the first step's start. */
  at: number;
  ms: number;
  response?: ProbeResponse;
}

export interface ClientSession {
  client: ExecClientName;
  kubeconfig: string;
  request(path: string): Promise<ProbeResponse>;
  /** The steps on their schedule; times from the first step's start (`startedAt`, ms since the epoch). */
  runSteps(
    steps: readonly ClientStep[],
    o: { path: string; revoke?: () => void; clock?: Clock },
  ): Promise<{ steps: ObservedStep[]; startedAt: number }>;
  /** What the session could not do as asked (a client that never gives its plugin a terminal). */
  notes: readonly string[];
  /** The client's own log so far, redacted. */
  log(): string;
  close(): Promise<void>;
}

/** Writes the kubeconfig and starts `probe` on it; the caller closes the session (ctx.defer, or finally). */
export async function startClientSession(probe: ClientProbe, o: ClientSessionOptions): Promise<ClientSession> {
  const kubeconfig = await writeProbeKubeconfig(o.kubeconfig, {
    server: o.cluster.server,
    caPem: o.cluster.caPem,
    exec: o.exec,
    resolvedCommand: o.resolvedCommand ?? o.exec.command,
    ...(o.clusterConfig !== undefined ? { clusterConfig: o.clusterConfig } : {}),
    names: { user: o.user },
  });
  const session = await probe.start(
    { kubeconfig },
    {
      timeoutMs: o.timeoutMs,
      redactor: o.redactor,
      ...(o.env ? { env: o.env } : {}),
      ...(o.terminal !== undefined ? { terminal: o.terminal } : {}),
    },
  );
  return {
    client: probe.name,
    kubeconfig,
    request: (path) => session.request(path),
    async runSteps(steps, r) {
      const clock = r.clock ?? systemClock;
      const observed: ObservedStep[] = [];
      let first: number | undefined;
      let lastEnd = clock.now();
      for (const s of steps) {
        await sleep(lastEnd + s.afterMs - clock.now(), clock);
        const t0 = clock.now();
        first ??= t0;
        if (s.do === 'revoke') r.revoke?.();
        const response = s.do === 'request' ? await session.request(r.path) : undefined;
        lastEnd = clock.now();
        observed.push({ do: s.do, at: t0 - first, ms: lastEnd - t0, ...(response ? { response } : {}) });
      }
      return { steps: observed, startedAt: first ?? lastEnd };
    },
    get notes() {
      return session.notes ?? [];
    },
    log: () => o.redactor.text(session.log()),
    close: () => session.close(),
  };
}

/**
 * Each run put under the request during which it started (within 5 ms of its
 * bounds: clocks of two processes), the others outside every request.
 */
export function runsDuring<R>(
  steps: readonly ObservedStep[],
  startedAt: number,
  runs: readonly R[],
  startOf: (r: R) => number,
): { during: R[][]; outside: R[] } {
  const during = steps.map((): R[] => []);
  const outside: R[] = [];
  for (const r of runs) {
    const t = startOf(r) - startedAt;
    const i = steps.findIndex((s) => s.do === 'request' && t >= s.at - 5 && t <= s.at + s.ms + 5);
    if (i >= 0) during[i]!.push(r);
    else outside.push(r);
  }
  return { during, outside };
}

/** `+1.2s, +31.5s`: when the steps ran, for a message that says the schedule slipped. */
export const stepTimes = (steps: readonly ObservedStep[]): string =>
  steps.map((s) => `+${(s.at / 1000).toFixed(1)}s`).join(', ');

/** The client's own log as evidence, its tail when long. */
export function clientLogEvidence(label: string, log: string, max = 4000): Evidence[] {
  return log.trim() ? [{ kind: 'log', label, text: log.length > max ? `…${log.slice(-max)}` : log }] : [];
}

export interface KubectlAttempt {
  /** The HTTP status kube-apiserver answered (-v=6), when kubectl got one. */
  status?: number;
  exitCode: number;
  kubectlError?: string;
  stdout: string;
  /** kubectl's stderr (statuses, no headers), its last 4000 characters. */
  stderr: string;
}

/**
 * kubectl as `user` of `kubeconfig`, with -v=6 so its stderr names the statuses,
 * in an environment of PATH and `home` only (no caller's KUBECONFIG, ~/.kube,
 * cloud variables) and kuberc off, plus `env` when the case gives the user one.
 */
export async function kubectlAs(
  env: Pick<Environment, 'kubectl'>,
  o: {
    kubeconfig: string;
    user: string;
    args: string[];
    home: string;
    timeoutMs: number;
    /** More of the user's environment (a cloud's variables the plugin reads, the CA a corporate shell trusts). */
    env?: Record<string, string>;
  },
): Promise<KubectlAttempt> {
  const r = await execa(env.kubectl, ['--kubeconfig', o.kubeconfig, '--user', o.user, ...o.args, '-v=6'], {
    reject: false,
    timeout: o.timeoutMs,
    extendEnv: false,
    env: { ...o.env, PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: o.home, KUBERC: 'off' },
  });
  return {
    exitCode: r.exitCode ?? -1,
    stdout: String(r.stdout),
    stderr: String(r.stderr).slice(-4000),
    ...kubectlOutcome(String(r.stderr)),
  };
}

/**
 * The clients `names` lists (default the four every exec suite runs; EXEC_CLIENT_NAMES for the seven of the matrix),
 * by name, with whether this machine can run each. The client-go probe is built against the cluster's client-go first;
 * a failed build leaves client-go unavailable, with the reason. The field clients' probes are built by
 * `credprov binaries ensure --for tests` (or scripts/build-field.ts): a missing one is unavailable, with the command.
 */
export async function clientProbes(
  run: Pick<SuiteRun, 'environment' | 'processEnv' | 'progress' | 'log'>,
  names: readonly ExecClientName[] = CLIENT_NAMES,
): Promise<Map<ExecClientName, ProbeAvailability>> {
  const kubeVersion = run.environment.kubeVersion;
  await ensureClientGoProbe({ kubeVersion, env: run.processEnv, progress: run.progress }).catch((e: unknown) =>
    run.log.warn(`building the client-go probe: ${errorMessage(e)}`),
  );
  return new Map((await availableProbes({ kubeVersion, env: run.processEnv }, names)).map((p) => [p.probe.name, p]));
}
