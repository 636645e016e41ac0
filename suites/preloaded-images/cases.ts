// The preloaded-images story: X imported into containerd, then five pods in
// order on one node, each predicted first (predict.ts), then observed: how its
// container ended, and the image ID's KEP-2535 record after the steps a check
// reads it at.
import { join } from 'node:path';
import {
  applyObjects,
  createPullSecret,
  imageManagerDir,
  importImages,
  judge,
  kubeletEvidence,
  kubeletVersionOf,
  multiImageArchive,
  readRecord,
  waitForPodOutcome,
  type BuiltImage,
  type Case,
  type CheckResult,
  type Login,
} from '../../src/run/kit.ts';
import { recordFileName, type ContainerOutcome } from '../../src/model/ensure-secret-pulled.ts';
import { PRELOADED_CHECKS, REPAIR, SHARED_RECORD, STAYS_PRELOADED } from './checks.ts';
import { JUDGED, podManifest, POD_TIMEOUT_MS, referenceOf, SECRET, STORY } from './plan.ts';
import { MODEL, predictStory } from './predict.ts';

export interface Story {
  image: BuiltImage;
  host: string;
  root: string;
  login: Login;
}

interface Seen {
  outcome: ContainerOutcome | string;
  /** The repositories the image ID's record maps after the step (none: no record). */
  mapped: string[];
  message: string;
}

export function storyCase(s: Story): Case {
  return {
    checks: PRELOADED_CHECKS,
    needs: ['hostContainerd', 'kubeletFiles'],
    async run(ctx): Promise<CheckResult[]> {
      const env = ctx.environment;
      const namespace = await ctx.namespace('pre');
      const x = referenceOf(s.host, s.root, 'x');
      await importImages(env, multiImageArchive([{ image: s.image, ref: x }]), join(ctx.artifactsDir, 'x.tar'));
      const secret = await createPullSecret(env, { name: SECRET, namespace, auths: { [s.host]: s.login } });
      ctx.onFailure(() => kubeletEvidence(env, [`${s.root}/`]));
      const imageRef = s.image.config.digest;
      const steps = predictStory({
        kubeletVersion: kubeletVersionOf(env),
        namespace,
        host: s.host,
        root: s.root,
        imageRef,
        secretUid: secret.uid,
      });
      const seen: Seen[] = [];
      for (const step of STORY) {
        await applyObjects(env, [podManifest(namespace, env.nodeName, step, referenceOf(s.host, s.root, step.image))]);
        const o = await waitForPodOutcome(env, step.pod, POD_TIMEOUT_MS, namespace);
        const outcome =
          o.kind === 'completed'
            ? o.exitCode === 0
              ? 'Running'
              : `exit ${o.exitCode}`
            : o.reason === 'ImagePullBackOff'
              ? 'ErrImagePull'
              : o.reason;
        const record = await readRecord(imageManagerDir(env), recordFileName(imageRef));
        const mapping = (record?.credentialMapping ?? {}) as Record<string, unknown>;
        seen.push({ outcome, mapped: Object.keys(mapping).sort(), message: o.kind === 'pull-failed' ? o.message : '' });
      }
      const part = (idx: readonly number[], recordAfter?: number) => ({
        predicted: {
          value: {
            outcomes: idx.map((n) => `${STORY[n]!.pod}: ${steps[n]!.outcome.value}`),
            ...(recordAfter !== undefined ? { mapped: steps[recordAfter]!.mappedAfter } : {}),
          },
          model: MODEL,
          because: idx.map((n) => steps[n]!.outcome.because).join(' | '),
        },
        observed: {
          outcomes: idx.map((n) => `${STORY[n]!.pod}: ${seen[n]!.outcome}`),
          ...(recordAfter !== undefined ? { mapped: seen[recordAfter]!.mapped } : {}),
        },
        evidence: idx.map((n) => ({ kind: 'text' as const, label: STORY[n]!.pod, text: seen[n]!.message || '(ran)' })),
      });
      const show = (v: { outcomes: string[]; mapped?: string[] }) =>
        `${v.outcomes.join(', ')}${v.mapped ? `; the record of ${imageRef} maps ${v.mapped.join(', ') || 'nothing'}` : ''}`;
      const record = part(JUDGED.record.steps, JUDGED.record.recordAfter);
      const preloaded = part(JUDGED.preloaded.steps);
      const repair = part(JUDGED.repair.steps, JUDGED.repair.recordAfter);
      const refused = seen[JUDGED.preloaded.steps[0]]!.outcome !== 'Running';
      return [
        judge(SHARED_RECORD, {
          prediction: record.predicted,
          observed: record.observed,
          show,
          evidence: record.evidence,
        }),
        judge(STAYS_PRELOADED, {
          prediction: preloaded.predicted,
          observed: preloaded.observed,
          show,
          evidence: preloaded.evidence,
          problems: refused
            ? [
                `the kubelet refused the preloaded ${x} once ${referenceOf(s.host, s.root, 'y')} (the same image ID) was pulled with a secret: k/k #138175, fixed by no release read (version table preloadedImageRecords; finding 22)`,
              ]
            : [],
        }),
        judge(REPAIR, { prediction: repair.predicted, observed: repair.observed, show, evidence: repair.evidence }),
      ];
    },
  };
}
