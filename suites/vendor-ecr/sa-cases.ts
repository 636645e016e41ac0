// The KEP-4412 (service-account token) cases: the role annotation the
// provider requires, NodeRestriction's audience check and the RBAC grant that
// lifts it, the STS exchange the plugin makes with the token, and an audience
// STS refuses. They share two service accounts and the grants, made here and
// removed after the suite.
import type { AudienceGrant, PodState } from '../../src/model/service-account-token.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { SA_ANNOTATION, SA_AUDIENCE, SA_PULL, SA_RBAC } from './checks.ts';
import { IMAGES, NAMESPACE, PROVIDER } from './plan.ts';
import {
  predictSaAnnotation,
  predictSaAudience,
  predictSaPull,
  predictSaRbac,
  saModel,
  saPluginAnswer,
  type SaView,
} from './predict-sa.ts';
import { pullShown, showAws, type Session, type Window } from './session.ts';
import {
  applyObjects,
  deleteServiceAccount,
  grantNodesAudience,
  kubeletVersionOf,
  readServiceAccount,
  caseOf,
  ECR_ROLE_ANNOTATION,
  judge,
  kubeletEvidence,
  nodeMayRequestAudience,
  waitFor,
  type Case,
} from '../../src/run/kit.ts';

/** How long an RBAC grant may take to reach the authorizer's informer. */
const GRANT_TIMEOUT_MS = 20_000;

/** Creates the two service accounts (one with the role annotation) and defers their removal and the grants'. */
export async function saCases(s: Session): Promise<Case[]> {
  const { run, lab } = s;
  const env = run.environment;
  const names = lab.names;
  const grants: AudienceGrant[] = [];
  run.defer(async () => {
    for (const name of [names.puller, names.bare])
      await deleteServiceAccount(env, name, NAMESPACE).catch(() => undefined);
  });
  await applyObjects(env, [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: names.puller, namespace: NAMESPACE, annotations: { [ECR_ROLE_ANNOTATION]: names.roleArn } },
    },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: names.bare, namespace: NAMESPACE } },
  ]);

  const provider = (name: string) => lab.config.providers.find((p) => p.name === name)!;
  const behaviour = behaviourFor(kubeletVersionOf(env));
  const gates = { kubelet: env.spec.featureGates.kubelet, apiserver: env.spec.featureGates.apiserver };
  const model = (name: string) => saModel(provider(name), { behaviour, gates, grants });
  const podState = async (serviceAccount: string, label: string): Promise<PodState> => {
    const { metadata } = await readServiceAccount(env, serviceAccount, NAMESPACE);
    const state = { name: serviceAccount, uid: metadata?.uid ?? '', annotations: metadata?.annotations ?? {} };
    return { namespace: NAMESPACE, name: label, uid: '(assigned at creation)', serviceAccount: state };
  };
  const invoked = (v: boolean) => (v ? "exec'd" : "not exec'd");
  const showSa = (v: SaView) => `plugin ${invoked(v.invoked)}, ${v.sts.join(', ') || 'no STS call'}, ${v.pull}`;
  const tokenAudiences = (w: Window, name: string) =>
    [w.execs.find((i) => i.provider === name)?.request.tokenClaims?.aud ?? []].flat();
  const mayRequest = async (audience: string) =>
    (await nodeMayRequestAudience(env, env.nodeName, audience, NAMESPACE, names.puller)).allowed;
  // The grant of both audiences to the nodes, and the pull that follows it: SA_RBAC's second half and what
  // SA_PULL and SA_AUDIENCE stand on. Once, whichever case gets there first (SA_RBAC needs the kubelet's log).
  let granting: Promise<Window> | undefined;
  const withGrant = () =>
    (granting ??= (async () => {
      for (const audience of [names.audience, names.wrongAudience]) {
        await grantNodesAudience(env, audience, {}, run);
        grants.push({ audience });
      }
      for (const audience of [names.audience, names.wrongAudience]) {
        await waitFor(
          `RBAC grant of audience ${audience} to take effect`,
          async () => ((await mayRequest(audience)) ? true : undefined),
          {
            timeoutMs: GRANT_TIMEOUT_MS,
            intervalMs: 250,
          },
        );
      }
      return s.pod('sa-rbac', IMAGES.sa.ref, { serviceAccountName: names.puller });
    })());

  return [
    caseOf(SA_ANNOTATION, async () => {
      const p = model(PROVIDER.sa).pull(
        await podState(names.bare, 'bare'),
        IMAGES.sa.request,
        saPluginAnswer(s.answer),
      );
      const w = await s.pod('sa-no-annotation', IMAGES.sa.ref, { serviceAccountName: names.bare });
      return judge(SA_ANNOTATION, {
        prediction: predictSaAnnotation(p),
        observed: {
          invoked: w.execs.some((i) => i.provider === PROVIDER.sa),
          sts: w.aws.filter((r) => r.service === 'sts').map(showAws),
          pull: pullShown(w.run),
        },
        show: showSa,
        evidence: [
          ...s.windowEvidence([w]),
          ...(await kubeletEvidence(env, [PROVIDER.sa, ECR_ROLE_ANNOTATION, names.bare])),
        ],
      });
    }),

    caseOf(
      SA_RBAC,
      async () => {
        if (await mayRequest(names.audience))
          throw new Error(`RBAC already grants nodes audience ${names.audience}: cannot test the refusal`);
        const answer = saPluginAnswer(s.answer);
        const without = model(PROVIDER.sa).pull(await podState(names.puller, 'no-rbac'), IMAGES.sa.request, answer);
        const refused = await s.pod('sa-no-rbac', IMAGES.sa.ref, { serviceAccountName: names.puller });
        // Only this run's audience: an environment that is reused keeps older runs' lines in its kubelet log.
        const excerpt = await kubeletEvidence(env, [names.audience]);
        const granted = await withGrant();
        const afterGrant = model(PROVIDER.sa).pull(await podState(names.puller, 'rbac'), IMAGES.sa.request, answer);
        // The kubelet logs NodeRestriction's refusal of its TokenRequest naming this run's audience: 1.35+ as
        // "Failed to provide credentials for image ... (the provider) failed to get service account token: ... forbidden",
        // 1.34 as "Error getting service account token <ns>/<service account>: failed to fetch token: ... forbidden"
        // (no provider name: seen on v1.34.5).
        const deniedLine = (l: string) =>
          l.includes(names.audience) && /forbidden/.test(l) && (l.includes(PROVIDER.sa) || l.includes(names.puller));
        const denied = excerpt.some((e) => e.kind === 'log' && e.text.split('\n').some(deniedLine));
        const row = (w: Window, tokenDenied: boolean) => ({
          tokenDenied,
          invoked: w.execs.some((i) => i.provider === PROVIDER.sa),
          pull: `pull ${w.run.pull}`,
        });
        return judge(SA_RBAC, {
          prediction: predictSaRbac(without, afterGrant),
          observed: { withoutGrant: row(refused, denied), withGrant: row(granted, false) },
          show: (v) =>
            `without the grant: token ${v.withoutGrant.tokenDenied ? 'refused' : 'not refused'}, plugin ${invoked(v.withoutGrant.invoked)}, ` +
            `${v.withoutGrant.pull}; with it: plugin ${invoked(v.withGrant.invoked)}, ${v.withGrant.pull}`,
          evidence: [
            ...s.windowEvidence([refused], ' without the grant'),
            ...excerpt.map((e) => ({
              ...e,
              label: `kubelet log excerpt: the token request without the grant (${e.label})`,
            })),
            ...s.windowEvidence([granted], ' with the grant'),
          ],
        });
      },
      { needs: ['kubeletFiles'] },
    ), // NodeRestriction's refusal is observed in the kubelet's log only

    caseOf(SA_PULL, async () => {
      const granted = await withGrant();
      const p = model(PROVIDER.sa).pull(
        await podState(names.puller, 'rbac'),
        IMAGES.sa.request,
        saPluginAnswer(s.answer),
      );
      const exec = granted.execs.find((i) => i.provider === PROVIDER.sa);
      return judge(SA_PULL, {
        prediction: predictSaPull(p, names),
        observed: {
          invoked: !!exec,
          tokenAud: tokenAudiences(granted, PROVIDER.sa),
          annotations: exec?.request.annotations ?? {},
          aws: granted.aws.map(showAws),
          pull: pullShown(granted.run),
        },
        show: (v) =>
          `${v.invoked ? `exec'd with a token for ${JSON.stringify(v.tokenAud)}` : "not exec'd"}; ${v.aws.join(', ') || 'no AWS call'}; ${v.pull}`,
        evidence: [
          {
            kind: 'data',
            label: 'the token the kubelet sent (claims) and what STS made of it',
            data: { claims: exec?.request.tokenClaims, sts: granted.aws.filter((r) => r.service === 'sts') },
          },
          ...s.windowEvidence([granted]),
        ],
      });
    }),

    caseOf(SA_AUDIENCE, async () => {
      await withGrant(); // the wrong audience is granted too: STS, not NodeRestriction, must refuse it
      const answer = { ...saPluginAnswer(s.answer), registryAccepts: false };
      const p = model(PROVIDER.wrongAud).pull(
        await podState(names.puller, 'wrong-aud'),
        IMAGES.wrongAud.request,
        answer,
      );
      const prediction = predictSaAudience(p, names);
      const w = await s.pod('sa-wrong-aud', IMAGES.wrongAud.ref, { serviceAccountName: names.puller });
      const exec = w.execs.find((i) => i.provider === PROVIDER.wrongAud);
      const pluginExit = exec?.exitCode === undefined ? 'none' : exec.exitCode === 0 ? '0' : 'non-zero';
      return judge(SA_AUDIENCE, {
        prediction,
        // A failed pull is retried (and the plugin, having cached nothing, exec'd again) on the pod's next sync: the same call may repeat.
        observed: {
          invoked: !!exec,
          tokenAud: tokenAudiences(w, PROVIDER.wrongAud),
          aws: [...new Set(w.aws.map(showAws))],
          pluginExit,
          pull: pullShown(w.run),
        },
        show: (v) =>
          `${v.invoked ? `exec'd with a token for ${JSON.stringify(v.tokenAud)}` : "not exec'd"}; ${v.aws.join(', ') || 'no AWS call'}; ` +
          `plugin exit ${v.pluginExit}; ${v.pull}`,
        evidence: [
          ...s.windowEvidence([w]),
          ...(await kubeletEvidence(env, [PROVIDER.wrongAud, 'InvalidIdentityToken'])),
        ],
      });
    }),
  ];
}
