// PP-LIMIT-RESPECTED: N + 2 pods of distinct images created in one apply
// under the suite's kubelet (maxParallelImagePulls N), their registry behind a
// recording front that holds each authenticated manifest request, so every
// pull lasts seconds. The registry side shows how many pulls the kubelet let
// through at once (bounded by its tokens); the plugin side shows how many pods
// were ready to pull (not bounded: the lookup precedes the token). Too few
// ready at once to test the bound and the check is skipped, never passed.
import { readFile } from 'node:fs/promises';
import {
  cannotJudge,
  caseOf,
  deletePodBatch,
  judge,
  kubeletEvidence,
  kubeletFilesOf,
  runPodBatch,
  since,
  type Case,
  type FakeInvocation,
  type Fleet,
  type RecordingProxy,
} from '../../src/run/kit.ts';
import { LIMIT_RESPECTED } from './checks.ts';
import { execsOfImages, mostAtOnce, pullsAtRegistry, readyToPull, type Span } from './in-flight.ts';
import { LIMIT_PROVIDER, LIMIT_REPOSITORIES, limitPods, PARALLEL_CONFIG, POD_TIMEOUT_MS } from './plan.ts';
import { judgeLimit, predictLimit, withinLimit } from './predict.ts';

export interface LimitLab {
  id: string;
  fleet: Fleet;
  /** The image host of the case, routed to `front`. */
  host: string;
  /** The registry's recording front, holding authenticated manifest requests (plan.ts limitHold). */
  front: RecordingProxy;
}

const spanText = (spans: Span[], t0: number) =>
  spans.map((s) => `${s.key}: +${Math.round(s.from - t0)} ms to +${Math.round(s.to - t0)} ms`).join('\n') || '(none)';

export const limitCase = (l: LimitLab): Case =>
  caseOf(LIMIT_RESPECTED, async (ctx) => {
    const env = ctx.environment;
    const startedAt = new Date();
    const namespace = await ctx.namespace('pp-limit');
    ctx.onFailure(() => kubeletEvidence(env, [l.host, 'Pulling image', 'Failed to pull']));
    const config = await readFile(kubeletFilesOf(env).configFile, 'utf8');
    const limit = /^maxParallelImagePulls: (\d+)$/m.exec(config)?.[1];
    const parallel = /^serializeImagePulls: false$/m.test(config);
    const pods = limitPods(l.host, l.id);
    const prediction = predictLimit(pods.length);
    const window = await since(() => l.fleet.invocations());
    const seenBefore = (await l.front.requests()).length;
    const batch = `pp-limit-${l.id}`;
    const runs = await runPodBatch(
      env,
      namespace,
      batch,
      pods.map((p) => ({ name: p.name, containers: [{ name: 'c', image: p.image, pullPolicy: 'Always' as const }] })),
      POD_TIMEOUT_MS,
    ).finally(() => deletePodBatch(env, namespace, batch).catch(() => {}));
    const execs = (await window.added()).filter((i: FakeInvocation) => i.provider === LIMIT_PROVIDER);
    const requests = (await l.front.requests()).slice(seenBefore);
    const pulls = pullsAtRegistry(requests, LIMIT_REPOSITORIES);
    const lookups = execsOfImages(execs, l.host, LIMIT_REPOSITORIES);
    const ready = readyToPull(lookups, pulls);
    const atRegistry = mostAtOnce(pulls);
    const readyAtOnce = mostAtOnce(ready);
    const execsAtOnce = mostAtOnce(lookups);
    const outcomes = pods.map((p) => {
      const c = runs.get(p.name)?.containers.get('c');
      return { pod: p.name, outcome: c?.outcome ?? 'no outcome', event: c?.event?.message ?? '' };
    });
    const t0 = Math.min(...lookups.map((s) => s.from), ...pulls.map((s) => s.from));
    const evidence = [
      {
        kind: 'text' as const,
        label: 'pulls at the registry (first request received to last answered)',
        text: spanText(pulls, t0),
      },
      { kind: 'text' as const, label: 'pods ready to pull (plugin answered to pull done)', text: spanText(ready, t0) },
      { kind: 'text' as const, label: 'plugin execs', text: spanText(lookups, t0) },
      { kind: 'data' as const, label: 'the kubelet\'s pull events ("… including waiting")', data: outcomes },
      {
        kind: 'text' as const,
        label: 'the kubelet config (pulls)',
        text: `serializeImagePulls: ${!parallel}; maxParallelImagePulls: ${limit ?? 'unset'}`,
      },
    ];
    if (!parallel || Number(limit) !== PARALLEL_CONFIG.maxParallelImagePulls)
      return judge(LIMIT_RESPECTED, {
        prediction,
        observed: atRegistry.most,
        show: (n) => `${n} pull(s) at the registry at once`,
        evidence,
        startedAt,
        invalidBecause: `the kubelet's config file does not say serializeImagePulls: false, maxParallelImagePulls: ${PARALLEL_CONFIG.maxParallelImagePulls} (it says ${evidence[4]!.text})`,
      });
    const failed = outcomes.filter((o) => o.outcome !== 'Running');
    const verdict = judgeLimit(prediction, { atRegistry: atRegistry.most, readyAtOnce: readyAtOnce.most });
    if ('skip' in verdict && failed.length === 0)
      return cannotJudge(LIMIT_RESPECTED, verdict.skip, evidence, startedAt);
    return judge(LIMIT_RESPECTED, {
      prediction,
      observed: atRegistry.most,
      agree: (_, n) => withinLimit(prediction, n),
      show: (n) => `${n} pull(s) at the registry at once at most`,
      note:
        `${atRegistry.keys.join(', ')} at once, while ${readyAtOnce.most} pod(s) were past their plugin exec and not yet ` +
        `pulled (maxParallelImagePulls: ${limit}; ${lookups.length} exec(s), ${execsAtOnce.most} at once)`,
      evidence,
      startedAt,
      problems: [
        ...failed.map((o) => `${o.pod} did not run: ${o.outcome}${o.event ? ` (${o.event.slice(0, 200)})` : ''}`),
        ...(pulls.length < pods.length ? [`only ${pulls.length} of ${pods.length} images reached the registry`] : []),
      ],
    });
  });
