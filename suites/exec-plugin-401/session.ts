// One session, for real: a kubeconfig whose exec user is the fake plugin
// scripted as the plan says, a real client started on it (the kit's client
// session), the steps run on schedule, then the plugin's own log read back and
// each run put under the request during which it started. Runs outside every
// request would be a client refreshing on its own.
import { isDeepStrictEqual } from 'node:util';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ExecConfig } from '../../src/api/exec/types.ts';
import {
  EXEC_PLUGIN_GROUP,
  runsDuring,
  startClientSession,
  type ClientProbe,
  type ClusterView,
  type Clock,
  type ObservedStep,
  type Redactor,
  type StartedTokenWebhook,
  type TokenWebhookFiles,
} from '../../src/run/kit.ts';
import type { SessionPlan } from './plan.ts';
import type { SessionView, Told } from './predict.ts';

export const FAKE_EXEC_PLUGIN = resolve(import.meta.dirname, '../../fixtures/fake-exec-plugin/fake-exec-plugin');

export interface SessionContext {
  probe: ClientProbe;
  hook: StartedTokenWebhook;
  files: TokenWebhookFiles;
  cluster: ClusterView;
  /** The cluster CA's files: the plugin signs client certificates with them. */
  ca: { certFile: string; keyFile: string };
  redactor: Redactor;
  clock: Clock;
  /** This session's artifacts (kubeconfig, scenario, plugin log). */
  dir: string;
  /** The webhook subject its tokens are issued to (unique per session). */
  subject: string;
  /** The API path every request GETs. */
  path: string;
  timeoutMs: number;
}

/** One line of the fake plugin's log (fixtures/fake-exec-plugin/main.ts). */
export interface PluginRun {
  time: string;
  execInfo: string | null;
  stdinIsTerminal?: boolean;
  exitCode: number;
  error?: string;
  apiVersion?: string;
  tokenFingerprint?: string;
  certFingerprint?: string;
  expirationTimestamp?: string;
}

export type ObservedRequest = ObservedStep & { runs?: PluginRun[] };

export interface ObservedSession {
  label: string;
  steps: ObservedRequest[];
  /** Runs that started outside every request. */
  outside: PluginRun[];
  view: SessionView;
  /** The client's own log (stderr, klog lines), redacted. */
  clientLog: string;
  notes: readonly string[];
}

export async function runSession(plan: SessionPlan, c: SessionContext): Promise<ObservedSession> {
  await mkdir(c.dir, { recursive: true });
  const log = join(c.dir, 'plugin-runs.jsonl');
  const scenarioFile = join(c.dir, 'scenario.json');
  await writeFile(scenarioFile, `${JSON.stringify({ ...scenarioFor(plan, c), log }, null, 2)}\n`);
  if (plan.plugin.kind === 'issuer')
    c.hook.book.setPolicy(c.subject, {
      ...(plan.plugin.lifetimeMs ? { lifetimeMs: plan.plugin.lifetimeMs } : {}),
      rejectNext: plan.plugin.rejectFirst ?? 0,
    });
  const exec: ExecConfig = {
    command: FAKE_EXEC_PLUGIN,
    args: ['--scenario', `@${scenarioFile}`],
    // The fake plugin is a Node script: it needs this Node, whatever node the client's PATH finds.
    env: [{ name: 'CREDPROV_NODE', value: process.execPath }],
    apiVersion: plan.user.apiVersion,
    interactiveMode: plan.user.interactiveMode,
    provideClusterInfo: plan.user.provideClusterInfo,
  };
  const kubeconfig = join(c.dir, 'kubeconfig.json');
  const session = await startClientSession(c.probe, {
    kubeconfig,
    cluster: c.cluster,
    exec,
    ...(plan.clusterConfig !== undefined ? { clusterConfig: plan.clusterConfig } : {}),
    user: `exec-401-${c.subject}`,
    timeoutMs: c.timeoutMs,
    terminal: plan.terminal,
    redactor: c.redactor,
  });
  let ran: { steps: ObservedStep[]; startedAt: number };
  try {
    ran = await session.runSteps(plan.steps, {
      path: c.path,
      revoke: () => c.hook.book.revoke({ subject: c.subject }),
      clock: c.clock,
    });
  } finally {
    await session.close();
    // The scenario may hold a token in clear for the plugin (same-refused-token); the artifacts kept after the run must not.
    for (const f of [scenarioFile, kubeconfig]) {
      const text = await readFile(f, 'utf8').catch(() => undefined);
      if (text !== undefined) await writeFile(f, c.redactor.text(text));
    }
  }
  const runs = await readRuns(log);
  // A run belongs to the request during which it started (the plugin stamps its start).
  const { during, outside } = runsDuring(ran.steps, ran.startedAt, runs, (r) => Date.parse(r.time));
  const steps: ObservedRequest[] = ran.steps.map((s, i) => (during[i]!.length ? { ...s, runs: during[i]! } : s));
  const view: SessionView = {
    label: plan.label,
    requests: steps
      .filter((s) => s.do === 'request')
      .map((s) => `${s.response?.status ?? 'error'}/${s.runs?.length ?? 0}`),
    told: distinct(runs.map(told)),
    runsOutsideRequests: outside.length,
  };
  return { label: plan.label, steps, outside, view, clientLog: session.log(), notes: session.notes };
}

function scenarioFor(plan: SessionPlan, c: SessionContext): Record<string, unknown> {
  // The answer is in the kubeconfig's apiVersion whatever KUBERNETES_EXEC_INFO says: a plugin following it would answer
  // v1beta1 to the clients that never set it (client-node, fabric8), and fabric8 refuses an answer in another version
  // than the kubeconfig's, so none of its caching and 401 behaviour would show (that refusal is a decoding row of its own).
  return { apiVersion: plan.user.apiVersion, ...credentialScenario(plan, c) };
}

function credentialScenario(plan: SessionPlan, c: SessionContext): Record<string, unknown> {
  const p = plan.plugin;
  if (p.kind === 'cert') {
    return {
      credential: 'cert',
      expiresInSeconds: p.lifetimeSeconds,
      cert: {
        signer: c.ca,
        commonName: `credprov-exec-cert-${c.subject}`,
        organization: EXEC_PLUGIN_GROUP,
        lifetimeSeconds: p.lifetimeSeconds,
      },
    };
  }
  if (p.kind === 'same-refused-token') return { token: refusedToken(c), expiresInSeconds: p.claimSeconds };
  return {
    issuer: { url: c.files.url, caFile: c.files.caFile, keyFile: c.files.issueKeyFile, subject: c.subject },
    expiresInSeconds: p.claimSeconds,
  };
}

const refused = new Map<string, string>();
/** A token the webhook never issued, the same for every run of the session (registered with the redactor). */
function refusedToken(c: SessionContext): string {
  let t = refused.get(c.subject);
  if (!t) {
    t = `cp401.never-issued.${randomBytes(18).toString('base64url')}`;
    refused.set(c.subject, t);
  }
  // Every run's redactor learns it (a later run in this process may bring its own).
  c.redactor.add(t);
  return t;
}

async function readRuns(file: string): Promise<PluginRun[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as PluginRun);
}

function told(r: PluginRun): Told {
  let execInfo: unknown = null;
  if (r.execInfo !== null) {
    try {
      execInfo = JSON.parse(r.execInfo);
    } catch {
      execInfo = r.execInfo;
    }
  }
  return { execInfo, stdinIsTerminal: r.stdinIsTerminal ?? false };
}

function distinct(xs: Told[]): Told[] {
  const out: Told[] = [];
  for (const x of xs) if (!out.some((o) => isDeepStrictEqual(o, x))) out.push(x);
  return out;
}
