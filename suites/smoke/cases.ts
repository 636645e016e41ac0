// The smoke suite's cases: two pods pulled side by side (one image the
// provider matches, one it does not), then the plugin's requests read back.
import {
  assertKubeletLoadedConfig,
  caseOf,
  containerLog,
  judge,
  kubeletEvidence,
  kubeletVersionOf,
  runPod,
  type Case,
  type CaseContext,
  type Fleet,
  type LabRegistry,
  type PodRun,
} from '../../src/run/kit.ts';
import { CONFIG_LOADED, PLUGIN_REQUEST, PRIVATE_PULL, UNMATCHED_FAILS } from './checks.ts';
import type { SmokePlan } from './plan.ts';
import { predictPod, predictRequests, type PodSeen, type Pull, type RequestSeen } from './predict.ts';

const POD_TIMEOUT_MS = 90_000;

export interface SmokeLab {
  plan: SmokePlan;
  lab: LabRegistry;
  fleet: Fleet;
}

const showPod = (v: PodSeen) =>
  `pull ${v.pull}${v.pull === 'success' ? (v.ranImage ? ", the container printed the image's marker" : ", but the container did not print the image's marker") : ''}`;
const showRequests = (v: RequestSeen[]) =>
  v.length === 0
    ? 'no plugin request'
    : v
        .map((r) => `${r.provider}: ${r.apiVersion} ${r.kind} for ${r.image}${r.token ? ' with a token' : ''}`)
        .join('; ');

/** A registry 401 reads `failure`; any other pull failure keeps the kubelet's message, so it never passes for an auth refusal. */
const pullOf = (run: PodRun): Pull =>
  run.pull === 'success' ? 'success' : run.failure === 'unauthorized' ? 'failure' : `failure (${run.failure})`;

/** One pod of `image` in the case's own namespace; its verdict against the pull-credentials model. */
function podCase(s: SmokeLab, check: typeof PRIVATE_PULL, image: string): Case {
  return caseOf(check, async (ctx: CaseContext) => {
    const prediction = predictPod(s.plan, image, s.lab.user.username);
    const namespace = await ctx.namespace('smoke');
    ctx.onFailure(() => kubeletEvidence(ctx.environment, [s.plan.matched, 'credential provider', 'Failed to pull']));
    // Kept after its outcome for the container log; the namespace goes after the case.
    const run = await runPod(ctx.environment, {
      name: 'smoke',
      namespace,
      image,
      pullPolicy: 'Always',
      timeoutMs: POD_TIMEOUT_MS,
      keep: true,
    });
    const log = run.pull === 'success' ? await containerLog(ctx.environment, run.name, namespace) : '';
    const exitCode = run.outcome.kind === 'completed' ? run.outcome.exitCode : undefined;
    return judge(check, {
      prediction,
      observed: { pull: pullOf(run), ranImage: exitCode === 0 && log.includes(s.lab.marker) },
      show: showPod,
      evidence: [
        ...run.evidence,
        ...(log ? [{ kind: 'text' as const, label: `container log (marker ${s.lab.marker})`, text: log }] : []),
      ],
    });
  });
}

function requestCase(s: SmokeLab): Case {
  return caseOf(PLUGIN_REQUEST, async (ctx) => {
    const prediction = predictRequests(s.plan, kubeletVersionOf(ctx.environment));
    const invocations = await s.fleet.invocations();
    ctx.onFailure(() => kubeletEvidence(ctx.environment, ['credential provider', s.plan.matched]));
    return judge(PLUGIN_REQUEST, {
      prediction,
      observed: invocations.map((i) => ({
        provider: i.provider,
        apiVersion: i.request.apiVersion ?? '',
        kind: i.request.kind ?? '',
        image: i.request.image ?? '',
        token: i.tokenPresent,
      })),
      show: showRequests,
      evidence: [{ kind: 'invocation', label: `plugin invocations (${s.fleet.logFile})`, data: invocations }],
    });
  });
}

/** The pods first (side by side), then what the plugin was asked while they pulled, and the config hash the kubelet publishes. */
export function smokeCases(s: SmokeLab): { pods: Case[]; afterPods: Case[] } {
  return {
    pods: [podCase(s, PRIVATE_PULL, s.plan.images.matched), podCase(s, UNMATCHED_FAILS, s.plan.images.unmatched)],
    afterPods: [
      requestCase(s),
      caseOf(CONFIG_LOADED, (ctx) => assertKubeletLoadedConfig(CONFIG_LOADED, ctx.environment)),
    ],
  };
}
