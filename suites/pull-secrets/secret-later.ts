// Cases where the pod's secret is not usable at first and becomes usable after
// the pod's first failed pull: the kubelet reads the pod's secrets again on
// each retry, so the pod recovers on its own.
import { caseOf, createPod, createPullSecret, firstPull, judge, pullRecovered, type Case } from '../../src/run/kit.ts';
import { MISSING_THEN_CREATED, PLACEHOLDER_FILLED } from './checks.ts';
import { onFailureLogs, evidenceOf } from './evidence.ts';
import { caseNamespace, worldOf, type Fixture } from './fixture.ts';
import { FIRST_OUTCOME_MS, LATE_SECRET, RECOVERY_MS, imageOf } from './plan.ts';
import { predictMissingThenCreated, predictPlaceholderFilled } from './predict.ts';

export function secretLaterCases(fixture: Fixture): Case[] {
  return [
    // The secret does not exist yet: created right after the first ErrImagePull.
    caseOf(MISSING_THEN_CREATED, async (ctx) => {
      const pod = 'missing';
      onFailureLogs(ctx, fixture, [pod], ['missing']);
      const prediction = predictMissingThenCreated(worldOf(fixture));
      const namespace = await caseNamespace(ctx, fixture, pod);
      const env = ctx.environment;
      await createPod(env, {
        name: pod,
        namespace,
        image: imageOf(fixture.host, 'missing'),
        pullPolicy: 'Always',
        imagePullSecrets: [LATE_SECRET],
      });
      const first = await firstPull(env, pod, namespace, FIRST_OUTCOME_MS);
      if (first.observed === 'failure')
        await createPullSecret(env, {
          name: LATE_SECRET,
          namespace,
          auths: { [fixture.host]: fixture.accounts.right },
        });
      const later = first.observed === 'failure' ? await pullRecovered(env, pod, namespace, RECOVERY_MS) : first;
      return judge(MISSING_THEN_CREATED, {
        prediction,
        observed: { whileMissing: first.observed, onceCreated: later.observed },
        show: (v) => `pull before the secret exists: ${v.whileMissing}; after it is created: ${v.onceCreated}`,
        evidence: await evidenceOf(ctx, fixture, namespace, [pod], { secrets: [LATE_SECRET] }),
      });
    }),

    // A placeholder secret {"auths":{}} filled in after the first failure.
    caseOf(PLACEHOLDER_FILLED, async (ctx) => {
      const pod = 'placeholder';
      onFailureLogs(ctx, fixture, [pod], ['placeholder']);
      const prediction = predictPlaceholderFilled(worldOf(fixture));
      const namespace = await caseNamespace(ctx, fixture, pod, { secrets: ['placeholder'] });
      const env = ctx.environment;
      const image = imageOf(fixture.host, 'placeholder');
      await createPod(env, { name: pod, namespace, image, pullPolicy: 'Always', imagePullSecrets: ['placeholder'] });
      const first = await firstPull(env, pod, namespace, FIRST_OUTCOME_MS);
      if (first.observed === 'failure')
        await createPullSecret(env, {
          name: 'placeholder',
          namespace,
          auths: { [fixture.host]: fixture.accounts.right },
        });
      const later = first.observed === 'failure' ? await pullRecovered(env, pod, namespace, RECOVERY_MS) : first;
      return judge(PLACEHOLDER_FILLED, {
        prediction,
        observed: { empty: first.observed, filled: later.observed },
        show: (v) => `pull with the empty secret: ${v.empty}; after it is filled in: ${v.filled}`,
        evidence: await evidenceOf(ctx, fixture, namespace, [pod], { secrets: ['placeholder'] }),
      });
    }),
  ];
}
