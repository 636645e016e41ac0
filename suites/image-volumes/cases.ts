// The image-volumes story: four pods in order on one node, each predicted
// before it is created (predict.ts threads the node's state), then observed:
// the provider's execs while it started (a window on the fake's log), how its
// container ended, and the KEP-2535 record of the volume's image.
import { join } from 'node:path';
import {
  applyObjects,
  grantNodesAudience,
  imageManagerDir,
  importImages,
  judge,
  kubeletEvidence,
  kubeletVersionOf,
  multiImageArchive,
  readRecords,
  serviceAccount,
  since,
  uidOf,
  waitFor,
  waitForPodOutcome,
  type BuiltImage,
  type Case,
  type CheckResult,
  type Evidence,
  type Fleet,
  type FakeInvocation,
} from '../../src/run/kit.ts';
import { EVENTS_ON_POD, IMAGE_VOLUME_CHECKS, PROVIDER_EXEC, RECORD, SA_TOKEN, SECOND_POD } from './checks.ts';
import { volumeEvents } from './events.ts';
import { BASE_IMAGE, NOBODY, POD_TIMEOUT_MS, podManifest, READER, VOLUME_REPOSITORY } from './plan.ts';
import { MODEL, predictStory, seenAgrees, type VolumeEvents, type VolumeSeen } from './predict.ts';

export interface Story {
  fleet: Fleet;
  base: BuiltImage;
  host: string;
  volumeRef: string;
  audience: string;
}

const show = (v: VolumeSeen) => `${v.outcome}, ${v.atLeast ? 'at least ' : ''}${v.execs} exec(s) for the volume`;

export function storyCase(s: Story): Case {
  return {
    checks: IMAGE_VOLUME_CHECKS,
    needs: ['hostContainerd', 'kubeletFiles'],
    async run(ctx): Promise<CheckResult[]> {
      const env = ctx.environment;
      const namespace = await ctx.namespace('iv');
      await grantNodesAudience(env, s.audience, {}, ctx);
      await importImages(
        env,
        multiImageArchive([{ image: s.base, ref: BASE_IMAGE }]),
        join(ctx.artifactsDir, 'base.tar'),
      );
      await applyObjects(
        env,
        [READER, NOBODY].map((sa) => ({
          ...serviceAccount(namespace, sa.name),
          metadata: { name: sa.name, namespace, annotations: sa.annotations },
        })),
      );
      const uids: Record<string, string> = {};
      for (const sa of [READER, NOBODY])
        uids[sa.name] = await waitFor(
          `ServiceAccount ${namespace}/${sa.name}`,
          () => uidOf(env, 'ServiceAccount', sa.name, namespace),
          { timeoutMs: 30_000, clock: ctx.clock },
        );
      ctx.onFailure(() => kubeletEvidence(env, [VOLUME_REPOSITORY, 'credential provider', 'image volume']));
      const steps = predictStory({
        kubeletVersion: kubeletVersionOf(env),
        namespace,
        host: s.host,
        volumeRef: s.volumeRef,
        audience: s.audience,
        uids,
      });
      const observed: Array<{ seen: VolumeSeen; execs: FakeInvocation[]; events: string; where?: VolumeEvents }> = [];
      const eventEvidence: Evidence[] = [];
      for (const step of steps) {
        const window = await since(() => s.fleet.invocations());
        await applyObjects(env, [podManifest(namespace, env.nodeName, step.pod, s.volumeRef)]);
        const outcome = await waitForPodOutcome(env, step.pod.name, POD_TIMEOUT_MS, namespace);
        const execs = (await window.added()).filter((i) => i.image === s.volumeRef.replace(/:[^:/]+$/, ''));
        const reason =
          outcome.kind === 'completed'
            ? outcome.exitCode === 0
              ? 'Running'
              : `exit ${outcome.exitCode}`
            : outcome.reason;
        observed.push({
          seen: {
            outcome: (reason === 'ImagePullBackOff' ? 'ErrImagePull' : reason) as VolumeSeen['outcome'],
            execs: execs.length,
          },
          execs,
          events: outcome.kind === 'pull-failed' ? outcome.message : '',
        });
        if (step.events) {
          const e = await volumeEvents(env, namespace, step.pod.name, s.volumeRef);
          observed.at(-1)!.where = e.seen;
          eventEvidence.push({ kind: 'data', label: `${step.pod.name}: events`, data: e.events });
        }
      }
      const records = await readRecords(imageManagerDir(env));
      const repository = s.volumeRef.replace(/:[^:/]+$/, '');
      const record = records.pulled.find((r) => r.json && repository in ((r.json.credentialMapping as object) ?? {}));
      const first = steps[0]!;
      const firstExec = observed[0]!.execs[0];
      return [
        judge(PROVIDER_EXEC, {
          prediction: first.seen,
          observed: observed[0]!.seen,
          show,
          agree: seenAgrees,
          evidence: [{ kind: 'invocation', label: 'execs for the volume', data: observed[0]!.execs.map(brief) }],
        }),
        judge(SA_TOKEN, {
          prediction: {
            value: { sub: first.tokenSub, pod: first.pod.name },
            model: MODEL,
            because: first.seen.because,
          },
          observed: { sub: firstExec?.tokenSub, pod: firstExec?.tokenPod },
          show: (v) => `token for ${v.sub ?? 'nobody'} bound to pod ${v.pod ?? 'none'}`,
          ...(firstExec ? {} : { invalidBecause: "the provider was not exec'd for the first pod (IV-PROVIDER-EXEC)" }),
        }),
        judge(RECORD, {
          prediction: { value: first.mapping, model: MODEL, because: first.seen.because },
          observed: (record?.json?.credentialMapping as Record<string, unknown> | undefined)?.[repository],
          show: (v) => (v === undefined ? 'no record naming the volume' : JSON.stringify(v)),
          evidence: record ? [{ kind: 'data', label: record.name, data: record.json }] : [],
        }),
        judge(SECOND_POD, {
          prediction: {
            value: steps.slice(1).map((p) => p.seen.value),
            model: MODEL,
            because: steps
              .slice(1)
              .map((p) => p.seen.because)
              .join(' | '),
          },
          observed: observed.slice(1).map((o) => o.seen),
          agree: (p, o) => p.length === o.length && p.every((x, n) => seenAgrees(x, o[n]!)),
          show: (v) => v.map((x, n) => `${steps[n + 1]!.pod.name}: ${show(x)}`).join('; '),
          evidence: observed
            .slice(1)
            .map((o, n) => ({ kind: 'text' as const, label: steps[n + 1]!.pod.name, text: o.events || '(ran)' })),
        }),
        judgeEvents(steps, observed, eventEvidence),
      ];
    },
  };
}

/** IV-EVENTS-ON-POD over the failing pods: where their pull events and container errors show. */
function judgeEvents(
  steps: ReturnType<typeof predictStory>,
  observed: Array<{ where?: VolumeEvents }>,
  evidence: Evidence[],
): CheckResult {
  const failing = steps.flatMap((p, n) => (p.events ? [{ name: p.pod.name, predicted: p.events, n }] : []));
  const byPod = <T>(f: (x: (typeof failing)[number]) => T) => Object.fromEntries(failing.map((x) => [x.name, f(x)]));
  return judge(EVENTS_ON_POD, {
    prediction: {
      value: byPod((x) => x.predicted),
      model: MODEL,
      because:
        'getImageVolumes pulls with the pod as the event object; toKubeContainerImageVolumes records Failed "Error: <err>" on each container mounting the volume',
    },
    observed: byPod((x) => observed[x.n]!.where ?? { pullEventsOn: 'nowhere', container: 'none' }),
    show: (v) =>
      Object.entries(v)
        .map(([pod, e]) => `${pod}: pull events on ${e.pullEventsOn}, container main: ${e.container}`)
        .join('; '),
    evidence,
  });
}

const brief = (i: FakeInvocation) => ({
  image: i.image,
  tokenSub: i.tokenSub,
  tokenPod: i.tokenPod,
  annotations: i.annotations,
});
