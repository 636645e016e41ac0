// KEP-4412 mode, without and with managed identity: a service account with the
// acr-client-id/acr-tenant-id annotations the providers require, an RBAC grant
// of their audience to the nodes (NodeRestriction), and one pull per provider.
// The service account and the grant are removed after the suite.
import { ServiceAccountTokenModel } from '../../src/model/service-account-token.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { SA_STATIC, SA_WORKLOAD_IDENTITY } from './checks.ts';
import { NAMESPACE, PROVIDER, type PlannedImage } from './plan.ts';
import { predictSaPull, type SaView } from './predict.ts';
import { pullShown, showAzure, type Session } from './session.ts';
import {
  ACR_CLIENT_ID_ANNOTATION,
  ACR_TENANT_ID_ANNOTATION,
  applyObjects,
  deleteServiceAccount,
  grantNodesAudience,
  kubeletVersionOf,
  readServiceAccount,
  caseOf,
  goDurationMs,
  judge,
  kubeletEvidence,
  nodeMayRequestAudience,
  predictAcrAnswer,
  waitFor,
  type Case,
  type Check,
} from '../../src/run/kit.ts';

/** How long an RBAC grant may take to reach the authorizer's informer. */
const GRANT_TIMEOUT_MS = 20_000;

/** Both KEP-4412 cases; the service account and the grant are made by whichever runs first. */
export function saCases(s: Session): Case[] {
  const { run, lab } = s;
  const env = run.environment;
  const n = lab.names;
  const annotations = { [ACR_CLIENT_ID_ANNOTATION]: n.clientId, [ACR_TENANT_ID_ANNOTATION]: n.tenantId };
  let setup: Promise<void> | undefined;
  const prepare = () =>
    (setup ??= (async () => {
      run.defer(async () => {
        await deleteServiceAccount(env, n.puller, NAMESPACE).catch(() => undefined);
      });
      await applyObjects(env, [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: n.puller, namespace: NAMESPACE, annotations } },
      ]);
      await grantNodesAudience(env, n.audience, {}, run);
      await waitFor(
        `RBAC grant of audience ${n.audience} to take effect`,
        async () =>
          (await nodeMayRequestAudience(env, env.nodeName, n.audience, NAMESPACE, n.puller)).allowed ? true : undefined,
        { timeoutMs: GRANT_TIMEOUT_MS, intervalMs: 250 },
      );
    })());

  const saCase = (check: Check, providerName: string, img: PlannedImage, label: string): Case =>
    caseOf(check, async (ctx) => {
      ctx.onFailure(() => kubeletEvidence(env, [providerName, n.audience]));
      await prepare();
      const provider = lab.config.providers.find((p) => p.name === providerName)!;
      const json = lab.json[providerName]!;
      const answer = predictAcrAnswer(img.request, json, { tenantId: n.tenantId });
      const model = new ServiceAccountTokenModel({
        provider: {
          name: provider.name,
          defaultCacheDurationMs: goDurationMs(provider.defaultCacheDuration),
          ...(provider.tokenAttributes ? { tokenAttributes: provider.tokenAttributes } : {}),
        },
        behaviour: behaviourFor(kubeletVersionOf(env)),
        gates: { kubelet: env.spec.featureGates.kubelet, apiserver: env.spec.featureGates.apiserver },
        grants: [{ audience: n.audience }],
      });
      const { metadata } = await readServiceAccount(env, n.puller, NAMESPACE);
      const sa = model.pull(
        {
          namespace: NAMESPACE,
          name: label,
          uid: '(assigned at creation)',
          serviceAccount: { name: n.puller, uid: metadata?.uid ?? '', annotations: metadata?.annotations ?? {} },
        },
        img.request,
        {
          cacheKeyType: answer.cacheKeyType,
          cacheDurationMs: goDurationMs(answer.cacheDuration),
          password: 'static',
          registryAccepts: true,
        },
      );
      const prediction = predictSaPull(sa, img, json, { audience: n.audience, tenantId: n.tenantId });
      const w = await s.pod(label, img.ref, { serviceAccountName: n.puller });
      const exec = w.execs.find((i) => i.provider === providerName);
      const observed: SaView = {
        invoked: !!exec,
        tokenAud: [exec?.request.tokenClaims?.aud ?? []].flat(),
        annotations: exec?.request.annotations ?? {},
        answer: s.answerOf(w, providerName) ?? { cacheKeyType: '(no answer)', cacheDuration: '', auth: {} },
        azure: w.azure.map(showAzure),
        pull: pullShown(w.run),
      };
      return judge(check, {
        prediction,
        observed,
        show: (v) =>
          `plugin ${v.invoked ? "exec'd" : "not exec'd"} with a token for ${JSON.stringify(v.tokenAud)}; ` +
          `answer ${
            Object.entries(v.answer.auth)
              .map(([k, e]) => `${k}: ${e}`)
              .join(', ') || 'no auth'
          }; ` +
          `${v.azure.join(', ') || 'no Azure call'}; ${v.pull}`,
        evidence: s.windowEvidence([w]),
      });
    });

  return [
    saCase(SA_STATIC, PROVIDER.sa, s.images.sa, 'sa'),
    saCase(SA_WORKLOAD_IDENTITY, PROVIDER.wi, s.images.wi, 'wi'),
  ];
}
