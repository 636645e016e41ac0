// Cases about the pod's imagePullSecrets as the API server keeps them: fixed
// at creation (an update is refused), filled from the service account only
// when the pod names none, and never adopted from the service account later.
import {
  applyObjects,
  caseOf,
  countEvents,
  createPod,
  firstPull,
  judge,
  pullAfterRetry,
  mergePatchPod,
  podEvents,
  readPod,
  serviceAccount,
  type Case,
  type ObservedPull,
} from '../../src/run/kit.ts';
import { EXPLICIT_NOT_MERGED, IMMUTABLE, SA_LATE_NOT_ADOPTED } from './checks.ts';
import { evidenceOf, onFailureLogs } from './evidence.ts';
import { caseNamespace, worldOf, type Fixture } from './fixture.ts';
import { FIRST_OUTCOME_MS, IMMUTABLE_SECRETS, imageOf, RECOVERY_MS } from './plan.ts';
import { predictExplicitNotMerged, predictImmutable, predictServiceAccountSecretNotAdopted } from './predict.ts';

export function podSpecCases(fixture: Fixture): Case[] {
  return [
    // imagePullSecrets cannot be changed on an existing pod.
    caseOf(IMMUTABLE, async (ctx) => {
      const pod = 'immutable';
      const prediction = predictImmutable();
      const namespace = await caseNamespace(ctx, fixture, pod, { secrets: ['right', 'wrong'] });
      const image = imageOf(fixture.host, 'immutable');
      await createPod(ctx.environment, {
        name: pod,
        namespace,
        image,
        pullPolicy: 'Always',
        imagePullSecrets: [...IMMUTABLE_SECRETS.created],
      });
      const patch = { spec: { imagePullSecrets: IMMUTABLE_SECRETS.patched.map((name) => ({ name })) } };
      const { outcome: update, message: apiMessage } = await mergePatchPod(ctx.environment, pod, namespace, patch);
      const after = await readPod(ctx.environment, pod, namespace);
      const observed = { update, imagePullSecretsAfter: (after.spec?.imagePullSecrets ?? []).map((s) => s.name) };
      return judge(IMMUTABLE, {
        prediction,
        observed,
        actor: 'the API server',
        show: (v) =>
          `update of spec.imagePullSecrets ${v.update}${v === observed && apiMessage ? ` ("${apiMessage}")` : ''}; ` +
          `the pod's imagePullSecrets: [${v.imagePullSecretsAfter.join(', ')}]`,
        evidence: [
          { kind: 'text', label: "the API server's answer to the patch", text: apiMessage || '(accepted)' },
          {
            kind: 'data',
            label: `pod ${namespace}/${pod} spec.imagePullSecrets after the patch`,
            data: after.spec?.imagePullSecrets ?? [],
          },
        ],
      });
    }),

    // Explicit (wrong) imagePullSecrets; the service account has the right one.
    caseOf(EXPLICIT_NOT_MERGED, async (ctx) => {
      const pod = 'explicit';
      onFailureLogs(ctx, fixture, [pod], ['explicit']);
      const prediction = predictExplicitNotMerged(worldOf(fixture));
      const namespace = await caseNamespace(ctx, fixture, pod, {
        secrets: ['right', 'wrong'],
        serviceAccounts: ['with-right-secret'],
      });
      const env = ctx.environment;
      const image = imageOf(fixture.host, 'explicit');
      const serviceAccountName = 'with-right-secret';
      await createPod(env, {
        name: pod,
        namespace,
        image,
        pullPolicy: 'Always',
        imagePullSecrets: ['wrong'],
        serviceAccountName,
      });
      const created = await readPod(env, pod, namespace);
      const first = await firstPull(env, pod, namespace, FIRST_OUTCOME_MS);
      const observed = {
        podImagePullSecrets: (created.spec?.imagePullSecrets ?? []).map((s) => s.name),
        pull: first.observed,
      };
      return judge(EXPLICIT_NOT_MERGED, {
        prediction,
        observed,
        show: (v) => `pod.spec.imagePullSecrets [${v.podImagePullSecrets.join(', ')}], pull ${v.pull}`,
        evidence: await evidenceOf(ctx, fixture, namespace, [pod], {
          secrets: ['wrong', 'right'],
          serviceAccounts: ['with-right-secret'],
        }),
      });
    }),

    // The service account gets a pull secret after the pod exists.
    caseOf(SA_LATE_NOT_ADOPTED, async (ctx) => {
      const pod = 'sa-late';
      onFailureLogs(ctx, fixture, [pod], ['sa-late']);
      const prediction = predictServiceAccountSecretNotAdopted(worldOf(fixture));
      const namespace = await caseNamespace(ctx, fixture, pod, { secrets: ['right'], serviceAccounts: ['late'] });
      const env = ctx.environment;
      await createPod(env, {
        name: pod,
        namespace,
        image: imageOf(fixture.host, 'sa-late'),
        pullPolicy: 'Always',
        serviceAccountName: 'late',
      });
      const first = await firstPull(env, pod, namespace, FIRST_OUTCOME_MS);
      let retry: ObservedPull = first;
      if (first.observed === 'failure') {
        const pullsBefore = countEvents(await podEvents(env, pod, namespace), 'Pulling');
        await applyObjects(env, [serviceAccount(namespace, 'late', ['right'])]);
        retry = await pullAfterRetry(env, pod, namespace, pullsBefore, RECOVERY_MS);
      }
      const now = await readPod(env, pod, namespace);
      const observed = {
        podImagePullSecrets: (now.spec?.imagePullSecrets ?? []).map((s) => s.name),
        pullAfterRetry: retry.observed,
      };
      return judge(SA_LATE_NOT_ADOPTED, {
        prediction,
        observed,
        show: (v) =>
          `pod.spec.imagePullSecrets [${v.podImagePullSecrets.join(', ')}] after the SA got one; ` +
          `pull after a kubelet retry: ${v.pullAfterRetry}`,
        evidence: await evidenceOf(ctx, fixture, namespace, [pod], { serviceAccounts: ['late'] }),
      });
    }),
  ];
}
