// The client matrix of `certify exec-plugin --clients`: the plugin is run by
// each named real client (kubectl, client-go, @kubernetes/client-node, the
// Python client), not only by credprov's client-go-faithful runner. There is
// no cluster: credprov serves a scripted HTTPS endpoint on loopback
// (src/clients/scripted-endpoint.ts) and writes a kubeconfig pointing at it,
// with the user's exec stanza. Each client makes one request; what reaches the
// endpoint says what the client made of the plugin's answer: its credential
// (accepted), a request without one, or nothing (refused, with its error).
//
// Each check first states credprov's prediction for that client, from the
// client decoding table (src/clients/decoding.ts) applied to the answer the
// plugin gave credprov's own run made as that client makes it (client-node
// sends no KUBERNETES_EXEC_INFO, so it gets a run of its own), then compares
// with what the real client did. The verdict is the real client's; a
// disagreement is said in the message and kept in `comparison` (the table is
// then out of date, which decoding.test.ts exists to catch).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerFindings, describeOutcome, predictClient, type ClientPrediction } from '../../clients/decoding.ts';
import { tokenSpellings } from '../../clients/header-rules.ts';
import { writeProbeKubeconfig } from '../../clients/kubeconfig.ts';
import { parseStdoutLikeClientGo } from '../../api/exec/credential.ts';
import type { ExecClientName, ClientProbe, ProbeResponse } from '../../clients/probe.ts';
import {
  startScriptedEndpoint,
  verdictAtEndpoint,
  type RecordedRequest,
  type RejectedRequest,
  type ScriptedEndpoint,
} from '../../clients/scripted-endpoint.ts';
import { formatMs } from '../../core/duration.ts';
import { errorMessage } from '../../core/errors.ts';
import { silentProgress, step, type Progress } from '../../core/progress.ts';
import type { Redactor } from '../../core/redact.ts';
import { resolveExecCommand, type ExecInvocation, type ExecPlugin } from '../../plugin/client-exec.ts';
import { type InvocationLog, clipOutputs, cutResponse } from '../../plugin/invocation.ts';
import { findStrays, killStrays, MARKER_ENV, newRunMarker, type StrayProcess } from '../../plugin/strays.ts';
import type { Check, CheckResult, Comparison, Evidence } from '../../report/model.ts';
import type { Observations } from './runs.ts';

/** A client this certification runs, and the version it is at. */
export interface MatrixClient {
  probe: ClientProbe;
  version: string;
}

export interface ClientMatrixOptions {
  clients: MatrixClient[];
  log: InvocationLog;
  timeoutMs: number;
  redactor?: Redactor;
  parentEnv?: NodeJS.ProcessEnv;
  cwd?: string;
  progress?: Progress;
  signal?: AbortSignal;
}

export interface ClientMatrixResult {
  checks: CheckResult[];
  /** Wall time per client (session start, request, close), information only. */
  timingsMs: Partial<Record<ExecClientName, number>>;
}

const LABEL: Record<ExecClientName, string> = {
  kubectl: 'KUBECTL',
  'client-go': 'CLIENT-GO',
  'client-node': 'CLIENT-NODE',
  python: 'PYTHON',
  fabric8: 'FABRIC8',
  'kube-rs': 'KUBE-RS',
  'kubernetes-asyncio': 'KUBERNETES-ASYNCIO',
};

/** The clients that never set KUBERNETES_EXEC_INFO: predicted from credprov's run without it (runs.ts asClientNode). */
export const WITHOUT_EXEC_INFO: readonly ExecClientName[] = ['client-node', 'fabric8'];

export function clientCheck(client: ExecClientName, version?: string): Check {
  return {
    id: `EP-CLIENT-${LABEL[client]}`,
    level: 'MUST',
    title: `${client}${version ? ` ${version}` : ''} accepts the plugin's answer and sends its credential`,
    source:
      'KEP-541 Motivation: exec plugins serve every client of the API server, not only kubectl; an answer one real client refuses leaves its users without credentials (credprov runs the real client against a scripted endpoint)',
  };
}

const MODEL = 'client decoding table (src/clients/decoding.ts)';

export async function certifyThroughClients(
  plugin: ExecPlugin,
  obs: Observations,
  o: ClientMatrixOptions,
): Promise<ClientMatrixResult> {
  const progress = o.progress ?? silentProgress;
  const skipAll = (why: string): ClientMatrixResult => ({
    checks: o.clients.map((c) => skippedCheck(c, why)),
    timingsMs: {},
  });
  if (o.clients.length === 0) return { checks: [], timingsMs: {} };
  if (obs.main.spawnError) return skipAll('the plugin could not be started, so no client can run it (see EP-EXEC)');
  if (obs.main.timedOut)
    return skipAll(
      `the plugin did not answer credprov's own run within ${formatMs(o.timeoutMs)}; every client would wait as long (see EP-TIMEOUT)`,
    );
  const cut = cutResponse(obs.main);
  if (cut) {
    return skipAll(
      `not judged: credprov's own run could not be judged (${cut}; see EP-STDOUT-ONLY-JSON), so there is no answer to predict from`,
    );
  }
  if (plugin.config.interactiveMode === 'Always') {
    return skipAll(
      'interactiveMode is Always: kubectl and client-go run such a plugin only with a person at a terminal, and certification is non-interactive',
    );
  }
  const resolved = await resolveExecCommand(plugin, o.parentEnv);
  if (!resolved.ok) return skipAll(`the command does not resolve (${resolved.error.split('\n')[0]}; see EP-EXEC)`);

  const asClientNode = obs.asClientNode;
  // Side by side when the plugin has shown it takes concurrent runs (EP-CONCURRENCY's 8 all answered): a hung
  // or held answer then costs one timeout, not one per client. Otherwise one at a time, so a plugin that is not
  // concurrency-safe is not failed by credprov's own overlap.
  const sideBySide = obs.concurrent.length > 0 && obs.concurrent.every((i) => i.response);
  const dir = await mkdtemp(join(tmpdir(), 'credprov-clients-'));
  // An endpoint per client: what it refused before reading (no path to tell it by) is that client's.
  const endpoints: ScriptedEndpoint[] = [];
  try {
    const setups = await Promise.all(
      o.clients.map(async (c) => {
        const endpoint = await startScriptedEndpoint();
        endpoints.push(endpoint);
        const kubeconfig = await writeProbeKubeconfig(join(dir, `kubeconfig-${c.probe.name}`), {
          server: endpoint.server,
          caPem: endpoint.caPem,
          exec: plugin.config,
          resolvedCommand: resolved.path,
          ...(plugin.cluster?.config !== undefined ? { clusterConfig: plugin.cluster.config } : {}),
        });
        return { c, endpoint, kubeconfig };
      }),
    );
    const timingsMs: ClientMatrixResult['timingsMs'] = {};
    const through = async ({ c, endpoint, kubeconfig }: (typeof setups)[number]) => {
      const name = c.probe.name;
      const run = WITHOUT_EXEC_INFO.includes(name) && asClientNode ? asClientNode : obs.main;
      const prediction = predictClient(name, answerFindings(run, plugin.config.apiVersion));
      // A client's error may quote the token escaped (Python's repr, undici's message): redact those spellings too.
      const token = tokenOf(run);
      if (token) o.redactor?.add(...tokenSpellings(token));
      const startedAt = new Date();
      const t0 = performance.now();
      const path = `/version?credprov-client=${name}`;
      let response: ProbeResponse | undefined;
      let sessionLog = '';
      let harness: string | undefined;
      // Marks the client and every plugin process it starts, as credprov's own runs are marked (strays.ts):
      // whatever a plugin leaves behind, even in a session of its own, is found and killed afterwards.
      const marker = newRunMarker();
      let leftBehind: StrayProcess[];
      try {
        const session = await c.probe.start(
          { kubeconfig },
          {
            timeoutMs: o.timeoutMs,
            env: { ...(o.parentEnv ?? process.env), [MARKER_ENV]: marker },
            ...(o.signal ? { signal: o.signal } : {}),
            ...(o.redactor ? { redactor: o.redactor } : {}),
          },
        );
        try {
          response = await session.request(path);
        } finally {
          sessionLog = session.log();
          await session.close();
        }
      } catch (e) {
        harness = errorMessage(e);
      } finally {
        leftBehind = findStrays({ marker, outputs: new Map() }).map(({ pgid: _, ...p }) => p);
        killStrays(leftBehind);
      }
      timingsMs[name] = Math.round(performance.now() - t0);
      return { c, endpoint, prediction, run, response, path, sessionLog, harness, startedAt, leftBehind };
    };
    const observed: Array<Awaited<ReturnType<typeof through>>> = [];
    if (sideBySide) {
      const names = setups.map((x) => `${x.c.probe.name} ${x.c.version}`).join(', ');
      observed.push(
        ...(await step(progress, `through ${names}, side by side`, () => Promise.all(setups.map(through)))),
      );
    } else {
      for (const x of setups) {
        if (o.signal?.aborted) break;
        observed.push(await step(progress, `through ${x.c.probe.name} ${x.c.version}`, () => through(x)));
      }
    }
    // Tokens the clients carried are the plugin's secrets too (random per run): no report may show them.
    for (const e of endpoints) o.redactor?.add(...e.tokensSeen());
    const checks = observed.map((x) =>
      judgeClient(x.c, {
        prediction: x.prediction,
        run: x.run,
        response: x.response,
        seen: x.endpoint.requests().filter((r) => r.url === x.path),
        rejected: x.endpoint.rejections(),
        sessionLog: x.sessionLog,
        harness: x.harness,
        startedAt: x.startedAt,
        durationMs: timingsMs[x.c.probe.name] ?? 0,
        redactor: o.redactor,
        leftBehind: x.leftBehind,
      }),
    );
    return { checks, timingsMs };
  } finally {
    await Promise.all(endpoints.map((e) => e.stop()));
    await rm(dir, { recursive: true, force: true });
  }
}

interface ClientObservation {
  prediction: ClientPrediction;
  run: ExecInvocation;
  response: ProbeResponse | undefined;
  seen: RecordedRequest[];
  /** Requests the endpoint refused during this client's turn before reading them (kube-apiserver would too). */
  rejected: RejectedRequest[];
  sessionLog: string;
  harness: string | undefined;
  startedAt: Date;
  durationMs: number;
  redactor: Redactor | undefined;
  /** Processes still running after the client's session ended (killed; EP-NO-LEFTOVER-PROCESSES judges the plugin for them). */
  leftBehind: StrayProcess[];
}

function judgeClient(c: MatrixClient, ob: ClientObservation): CheckResult {
  const name = c.probe.name;
  const check = clientCheck(name, c.version);
  const redact = (s: string) => (ob.redactor ? ob.redactor.text(s) : s);
  const base = { ...check, startedAt: ob.startedAt.toISOString(), durationMs: ob.durationMs };
  if (ob.harness) {
    return {
      ...base,
      status: 'failed',
      cause: 'harness',
      message: `harness error: could not run ${name}: ${redact(ob.harness)}`,
      evidence: ob.sessionLog ? [{ kind: 'log', label: `${name} log`, text: ob.sessionLog }] : [],
    };
  }
  const verdict = verdictAtEndpoint(ob.seen, ob.rejected);
  const error = ob.response?.error ? clip(oneLine(redact(ob.response.error)), 300) : undefined;
  const comparison: Comparison = {
    model: MODEL,
    because: ob.prediction.because,
    predicted: ob.prediction.verdict,
    observed: verdict,
    agree: ob.prediction.verdict === verdict,
  };
  const credential = ob.seen.find((r) => r.credential)?.credential?.kind;
  const who = `${name} ${c.version}`;
  const row = ob.prediction.row;
  let message: string;
  if (verdict === 'accepts') {
    message = `${who} accepted the answer and sent its ${credential === 'bearer' ? 'token' : (credential ?? 'credential')} (the endpoint answered ${ob.seen[0]!.status})`;
  } else if (verdict === 'refuses') {
    message = `${who} refuses the plugin's answer: ${error ? `"${error}"` : `no request and no error (${ob.response ? 'it said nothing' : 'no answer'})`}`;
  } else if (verdict === 'server-refuses') {
    const r = ob.rejected[0]!;
    message = `${who} sent the request, and the API server refused it before authenticating: ${r.status} (${r.reason}), as kube-apiserver refuses ${r.status === 431 ? 'request headers over 1 MiB' : 'a header value with a control character'}`;
  } else {
    message = `${who} sent its request without a credential, so the API server sees an anonymous user (401)${error ? `: it logged "${error}"` : ', without saying why'}`;
  }
  if (comparison.agree) {
    if (verdict !== 'accepts' && row)
      message += `; as credprov predicted: ${ob.prediction.finding?.detail ?? row.answer}${row.contractCheck ? ` (see ${row.contractCheck})` : ''}`;
  } else {
    message += `; credprov predicted that it ${ob.prediction.verdict === 'accepts' ? 'accepts it' : describeOutcome({ verdict: ob.prediction.verdict })} (${MODEL}: ${ob.prediction.because}): the table is out of date for this answer, please report it`;
  }
  const evidence: Evidence[] = [
    { kind: 'data', label: 'prediction and observation', data: comparison },
    {
      kind: 'data',
      label: `${name} ${c.version}: its request and what reached the endpoint`,
      data: {
        response: ob.response
          ? { ...ob.response, ...(ob.response.error ? { error: redact(ob.response.error) } : {}) }
          : null,
        atEndpoint: ob.seen,
        ...(ob.rejected.length ? { refusedByEndpoint: ob.rejected } : {}),
      },
    },
    { kind: 'invocation', label: `the answer the prediction read (${ob.run.id})`, data: clipOutputs(ob.run) },
  ];
  if (ob.sessionLog.trim()) evidence.push({ kind: 'log', label: `${name} log`, text: clip(ob.sessionLog, 8000) });
  if (ob.leftBehind.length)
    evidence.push({
      kind: 'data',
      label: 'processes left running after the session, killed by credprov',
      data: ob.leftBehind,
    });
  return {
    ...base,
    status: verdict === 'accepts' ? 'passed' : 'failed',
    ...(verdict === 'accepts' ? {} : { cause: 'subject' as const }),
    message,
    evidence,
    comparison,
  };
}

function skippedCheck(c: MatrixClient, why: string): CheckResult {
  return {
    ...clientCheck(c.probe.name, c.version),
    status: 'skipped',
    message: why,
    evidence: [],
    startedAt: new Date().toISOString(),
    durationMs: 0,
  };
}

function tokenOf(run: ExecInvocation): string | undefined {
  const parsed = parseStdoutLikeClientGo(run.stdout);
  const status = parsed.ok ? parsed.value.status : undefined;
  const token = status && typeof status === 'object' ? (status as Record<string, unknown>).token : undefined;
  return typeof token === 'string' ? token : undefined;
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' | ').trim();
const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n)}…`);
