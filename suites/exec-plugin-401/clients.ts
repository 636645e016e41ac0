// One exec-plugin-401 client check: a behaviour's scripted sessions run by
// one real client (kubectl, client-go, client-node, python, fabric8, kube-rs,
// kubernetes_asyncio) against the live
// API server, judged against credprov's client models replayed at the planned
// times; replayed again at the times the steps really ran, so a loaded machine
// that slips the schedule is a harness failure, not a verdict on the client.
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  caseOf,
  clientLogEvidence,
  clientNotRun,
  errorMessage,
  harnessFailed,
  judge,
  stepTimes,
  type Case,
  type CaseContext,
  type Check,
  type CheckResult,
  type ExecClientName,
  type ClusterView,
  type Evidence,
  type ProbeAvailability,
  type StartedTokenWebhook,
  type TokenWebhookFiles,
} from '../../src/run/kit.ts';
import type { Behaviour } from './plan.ts';
import { clientCheck } from './checks.ts';
import { plannedTimes, predictSession, settingFor, type SessionView } from './predict.ts';
import { runSession, type ObservedSession } from './session.ts';

export const MODEL =
  'exec client models (src/model/exec-credential-cache.ts, exec-info.ts) + API server authn model (src/model/apiserver-authn.ts)';
export const NAMESPACE = 'credprov-exec-401';
export const REQUEST_PATH = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const REQUEST_TIMEOUT_MS = 60_000;
/**
 * A session whose every request the model says fails (the client refuses to run the plugin, or hands a prompting
 * plugin a stdin that never ends: kube-rs) needs no minute to show it: a stuck client is seen stuck in 10 s (kube-rs
 * adds twice that for its first request), where the full limit cost 3 min per session and the CI leg 7 min a run.
 */
const PREDICTED_FAILURE_TIMEOUT_MS = 10_000;

export interface Shared {
  hook: StartedTokenWebhook;
  files: TokenWebhookFiles;
  cluster: ClusterView;
  /** The cluster CA's files: the client-certificate behaviours sign theirs with them. */
  ca: { certFile: string; keyFile: string };
}

/** One behaviour with one client: not run when the client is unavailable here, else its sessions against the model. */
export function clientCase(
  b: Behaviour,
  client: ExecClientName,
  probe: ProbeAvailability | undefined,
  shared: Shared,
): Case {
  const check = clientCheck(b, client);
  return caseOf(
    check,
    async (ctx) => clientNotRun(check, client, probe, ctx.ci) ?? runClientCheck(ctx, check, b, probe!, shared),
  );
}

/** The longest behaviours first, so a pool's tail is short. */
export const sessionLength = (b: Behaviour) =>
  b.sessions.reduce((n, s) => n + plannedTimes(s).at(-1)! + 1000 * s.steps.length, 0);

async function runClientCheck(
  ctx: CaseContext,
  check: Check,
  b: Behaviour,
  probe: ProbeAvailability,
  s: Shared,
): Promise<CheckResult> {
  const client = probe.probe.name;
  const settings = b.sessions.map((plan) => settingFor(plan, s.cluster));
  const planned = b.sessions.map((plan, i) => predictSession(client, plan, settings[i]!, plannedTimes(plan)));
  const observed: ObservedSession[] = [];
  try {
    for (const [i, plan] of b.sessions.entries()) {
      const subject = `${b.key}-${client}-${i}`;
      observed.push(
        await runSession(plan, {
          probe: probe.probe,
          hook: s.hook,
          files: s.files,
          cluster: s.cluster,
          ca: s.ca,
          redactor: ctx.redactor,
          clock: ctx.clock,
          dir: join(ctx.artifactsDir, 'sessions', subject),
          subject,
          path: REQUEST_PATH,
          timeoutMs: planned[i]!.view.requests.every((r) => r.startsWith('error'))
            ? PREDICTED_FAILURE_TIMEOUT_MS
            : REQUEST_TIMEOUT_MS,
        }),
      );
    }
  } catch (err) {
    return harnessFailed(
      check,
      `harness error running ${client}: ${errorMessage(err)}`,
      sessionEvidence(observed, s.hook),
    );
  }
  const modelSteps = planned
    .map((p, i) => `${b.sessions[i]!.label || 'session'}:\n  ${p.because.join('\n  ')}`)
    .join('\n');
  const evidence = [
    ...sessionEvidence(observed, s.hook),
    { kind: 'text' as const, label: 'the model, step by step', text: modelSteps },
  ];
  // At the times the steps really ran, would the model say the same? If not, the schedule slipped (a loaded machine): no verdict on the client.
  const replayed = b.sessions.map((plan, i) =>
    predictSession(
      client,
      plan,
      settings[i]!,
      // A request's end: a client that starts slowly (fabric8's JVM, 9 s for a first request) sends late in it.
      observed[i]!.steps.map((st) => st.at + (st.do === 'request' ? st.ms : 0)),
    ),
  );
  const slipped = replayed.findIndex((r, i) => !isDeepStrictEqual(r.view, planned[i]!.view));
  const ranAt = slipped < 0 ? '' : stepTimes(observed[slipped]!.steps);
  // A retry hides a transport error from the verdict (as from the client's user), not from the reader.
  const retried = observed.flatMap((o) => o.steps.flatMap((st) => st.response?.transportErrors ?? []));
  const views = observed.map((o) => o.view);
  return judge(
    { ...check, cell: { ...check.cell!, text: cellText(b, views) } },
    {
      prediction: {
        value: planned.map((p) => p.view),
        model: MODEL,
        because: planned
          .map((p) => p.because[0])
          .filter((x, i, all) => all.indexOf(x) === i)
          .join('; '),
      },
      observed: views,
      show: (v) => v.map(showView).join('; '),
      actor: client,
      evidence,
      invalidBecause:
        slipped < 0
          ? undefined
          : `the schedule slipped: at the times the steps ran (${ranAt}) the model predicts ${showView(replayed[slipped]!.view)}, not the planned ${showView(planned[slipped]!.view)}; no verdict on ${client}`,
      note: retried.length
        ? `${client} retried past ${retried.length} transport error${retried.length > 1 ? 's' : ''}, e.g. "${retried[0]}"; see the requests evidence`
        : undefined,
    },
  );
}

function sessionEvidence(observed: ObservedSession[], hook: StartedTokenWebhook): Evidence[] {
  return observed.flatMap((o) => {
    const fingerprints = new Set(
      o.steps
        .flatMap((st) => st.runs ?? [])
        .map((r) => r.tokenFingerprint)
        .filter(Boolean),
    );
    const reviews = hook
      .reviews()
      .filter((r) => fingerprints.has(r.fingerprint))
      .map(({ at, fingerprint, verdict, username }) => ({
        at,
        fingerprint,
        verdict,
        ...(username ? { username } : {}),
      }));
    const label = o.label ? ` (${o.label})` : '';
    const ev: Evidence[] = [
      {
        kind: 'invocation',
        label: `requests and the plugin runs during each${label}`,
        data: {
          steps: o.steps.map((st) => ({ ...st, runs: (st.runs ?? []).map(runSummary) })),
          runsOutsideRequests: o.outside.map(runSummary),
        },
      },
      { kind: 'data', label: `token webhook reviews of the tokens the plugin returned${label}`, data: reviews },
    ];
    if (o.notes.length) ev.push({ kind: 'text', label: `probe notes${label}`, text: o.notes.join('\n') });
    return [...ev, ...clientLogEvidence(`client log${label}`, o.clientLog, 6000)];
  });
}

function runSummary(r: ObservedSession['outside'][number]): Record<string, unknown> {
  return {
    time: r.time,
    exitCode: r.exitCode,
    ...(r.error ? { error: r.error } : {}),
    stdinIsTerminal: r.stdinIsTerminal,
    execInfo: r.execInfo,
    ...(r.apiVersion ? { answeredIn: r.apiVersion } : {}),
    ...(r.tokenFingerprint ? { tokenFingerprint: r.tokenFingerprint } : {}),
    ...(r.certFingerprint ? { certFingerprint: r.certFingerprint } : {}),
    ...(r.expirationTimestamp ? { expirationTimestamp: r.expirationTimestamp } : {}),
  };
}

function showView(v: SessionView): string {
  const told = v.told
    .map((t) => `${describeInfo(t.execInfo)}${t.stdinIsTerminal ? ', stdin a terminal' : ''}`)
    .join(' | ');
  return `${v.label ? `${v.label}: ` : ''}${v.requests.join(' → ')}${told ? ` [plugin told: ${told}]` : ''}${v.runsOutsideRequests ? ` (+${v.runsOutsideRequests} runs between requests)` : ''}`;
}

function describeInfo(info: unknown): string {
  if (info === null) return 'no KUBERNETES_EXEC_INFO';
  const i = info as { apiVersion?: string; spec?: { interactive?: boolean; cluster?: Record<string, unknown> } };
  const cluster = i.spec?.cluster ? `, spec.cluster {${Object.keys(i.spec.cluster).join(', ')}}` : '';
  return `${i.apiVersion?.split('/')[1] ?? '?'}, interactive ${String(i.spec?.interactive)}${cluster}`;
}

/** A few words per cell: the request sequence, or what the plugin was told per session. */
function cellText(b: Behaviour, views: SessionView[]): string {
  if (b.show === 'requests') return views.map((v) => v.requests.join(' → ')).join('; ');
  return views
    .map((v) => {
      const t = v.told[0];
      const what = !t
        ? 'not run'
        : `${describeInfo(t.execInfo).replace('no KUBERNETES_EXEC_INFO', 'no exec info')}${t.stdinIsTerminal ? ', tty' : ''}`;
      return `${v.label}: ${what} → ${v.requests.map((r) => r.split('/')[0]).join(',')}`;
    })
    .join('; ');
}
