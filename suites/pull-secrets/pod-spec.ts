// Cases about the pod's imagePullSecrets as the API server keeps them: fixed
// at creation (an update is refused), filled from the service account only
// when the pod names none, and never adopted from the service account later.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { ApiError, kubeApi } from '../../src/cluster/api.ts';
import { CredprovError, errorMessage } from '../../src/core/errors.ts';
import { caseOf, createPod, judge, podEvents, type Case } from '../../src/run/kit.ts';
import { EXPLICIT_NOT_MERGED, IMMUTABLE, SA_LATE_NOT_ADOPTED } from './checks.ts';
import { evidenceOf, onFailureLogs } from './evidence.ts';
import { caseNamespace, serviceAccount, worldOf, type Fixture } from './fixture.ts';
import { IMMUTABLE_SECRETS, imageOf } from './plan.ts';
import { predictExplicitNotMerged, predictImmutable, predictServiceAccountSecretNotAdopted } from './predict.ts';
import { afterRetry, countEvents, firstOutcome, type Attempted } from './pulls.ts';

export function podSpecCases(fixture: Fixture): Case[] {
  return [
    // imagePullSecrets cannot be changed on an existing pod.
    caseOf(IMMUTABLE, async (ctx) => {
      const startedAt = new Date();
      const pod = 'immutable';
      const prediction = predictImmutable();
      const namespace = await caseNamespace(ctx, fixture, pod, { secrets: ['right', 'wrong'] });
      const api = await kubeApi(ctx.environment);
      const image = imageOf(fixture.host, 'immutable');
      await createPod(ctx.environment, {
        name: pod,
        namespace,
        image,
        pullPolicy: 'Always',
        imagePullSecrets: [...IMMUTABLE_SECRETS.created],
      });
      let apiMessage = '';
      let update: 'refused' | 'accepted' = 'accepted';
      try {
        const body = { spec: { imagePullSecrets: IMMUTABLE_SECRETS.patched.map((name) => ({ name })) } };
        await api.core.patchNamespacedPod(
          { name: pod, namespace, body },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      } catch (err) {
        update = 'refused';
        apiMessage = refusal(err);
      }
      const after = await api.core.readNamespacedPod({ name: pod, namespace });
      const observed = { update, imagePullSecretsAfter: (after.spec?.imagePullSecrets ?? []).map((s) => s.name) };
      return judge(IMMUTABLE, {
        prediction,
        observed,
        startedAt,
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
      const startedAt = new Date();
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
      const created = await (await kubeApi(env)).core.readNamespacedPod({ name: pod, namespace });
      const first = await firstOutcome(env, pod, namespace);
      const observed = {
        podImagePullSecrets: (created.spec?.imagePullSecrets ?? []).map((s) => s.name),
        pull: first.observed,
      };
      return judge(EXPLICIT_NOT_MERGED, {
        prediction,
        observed,
        startedAt,
        show: (v) => `pod.spec.imagePullSecrets [${v.podImagePullSecrets.join(', ')}], pull ${v.pull}`,
        evidence: await evidenceOf(ctx, fixture, namespace, [pod], {
          secrets: ['wrong', 'right'],
          serviceAccounts: ['with-right-secret'],
        }),
      });
    }),

    // The service account gets a pull secret after the pod exists.
    caseOf(SA_LATE_NOT_ADOPTED, async (ctx) => {
      const startedAt = new Date();
      const pod = 'sa-late';
      onFailureLogs(ctx, fixture, [pod], ['sa-late']);
      const prediction = predictServiceAccountSecretNotAdopted(worldOf(fixture));
      const namespace = await caseNamespace(ctx, fixture, pod, { secrets: ['right'], serviceAccounts: ['late'] });
      const env = ctx.environment;
      const api = await kubeApi(env);
      await createPod(env, {
        name: pod,
        namespace,
        image: imageOf(fixture.host, 'sa-late'),
        pullPolicy: 'Always',
        serviceAccountName: 'late',
      });
      const first = await firstOutcome(env, pod, namespace);
      let retry: Attempted = first;
      if (first.observed === 'failure') {
        const pullsBefore = countEvents(await podEvents(env, pod, namespace), 'Pulling');
        await api.apply([serviceAccount(namespace, 'late', ['right'])]);
        retry = await afterRetry(env, pod, namespace, pullsBefore);
      }
      const now = await api.core.readNamespacedPod({ name: pod, namespace });
      const observed = {
        podImagePullSecrets: (now.spec?.imagePullSecrets ?? []).map((s) => s.name),
        pullAfterRetry: retry.observed,
      };
      return judge(SA_LATE_NOT_ADOPTED, {
        prediction,
        observed,
        startedAt,
        show: (v) =>
          `pod.spec.imagePullSecrets [${v.podImagePullSecrets.join(', ')}] after the SA got one; ` +
          `pull after a kubelet retry: ${v.pullAfterRetry}`,
        evidence: await evidenceOf(ctx, fixture, namespace, [pod], { serviceAccounts: ['late'] }),
      });
    }),
  ];
}

/** The API server's reason for refusing an update (its Status message). */
function refusal(err: unknown): string {
  const text =
    err instanceof ApiError && err.serverMessage
      ? err.serverMessage
      : err instanceof CredprovError && err.detail
        ? err.detail
        : errorMessage(err);
  const line = text.split('\n').find((l) => /invalid|forbidden/i.test(l)) ?? text.split('\n')[0] ?? '';
  return line.replace(/\s+/g, ' ').trim().slice(0, 400);
}
