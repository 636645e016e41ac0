// KEP-4412 mode without managed identity: a service account with the
// acr-client-id/acr-tenant-id annotations the provider requires, an RBAC grant
// of the provider's audience to the nodes (NodeRestriction), and one pull. The
// service account and the grant are removed after the suite.
import { allowNodesTokenAudience, nodeMayRequestAudience } from '../../src/cluster/rbac.ts';
import { goDurationMs } from '../../src/core/duration.ts';
import { waitFor } from '../../src/core/time.ts';
import { ServiceAccountTokenModel } from '../../src/model/service-account-token.ts';
import { ACR_CLIENT_ID_ANNOTATION, ACR_TENANT_ID_ANNOTATION, predictAcrAnswer } from '../../src/plugin/vendors/acr.ts';
import { caseOf, type Case } from '../../src/run/cases.ts';
import { kubeletEvidence } from '../../src/run/lab.ts';
import { judge } from '../../src/run/prediction.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { SA_STATIC } from './checks.ts';
import { NAMESPACE, PROVIDER } from './plan.ts';
import { predictSaStatic, type SaView } from './predict.ts';
import { pullShown, showAzure, type Session } from './session.ts';

/** How long an RBAC grant may take to reach the authorizer's informer. */
const GRANT_TIMEOUT_MS = 20_000;

export function saCase(s: Session): Case {
  return caseOf(SA_STATIC, async (ctx) => {
    const { run, api, lab } = s;
    const env = run.environment;
    const n = lab.names;
    const img = s.images.sa;
    ctx.onFailure(() => kubeletEvidence(env, [PROVIDER.sa, n.audience]));
    const annotations = { [ACR_CLIENT_ID_ANNOTATION]: n.clientId, [ACR_TENANT_ID_ANNOTATION]: n.tenantId };
    ctx.defer(async () => {
      await api.core.deleteNamespacedServiceAccount({ name: n.puller, namespace: NAMESPACE }).catch(() => undefined);
    });
    await api.apply([
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: n.puller, namespace: NAMESPACE, annotations } },
    ]);
    const grant = await allowNodesTokenAudience(s.admin, n.audience);
    ctx.defer(async () => {
      await api.rbac.deleteClusterRoleBinding({ name: grant }).catch(() => undefined);
      await api.rbac.deleteClusterRole({ name: grant }).catch(() => undefined);
    });
    await waitFor(
      `RBAC grant of audience ${n.audience} to take effect`,
      async () =>
        (await nodeMayRequestAudience(env, env.nodeName, n.audience, NAMESPACE, n.puller)).allowed ? true : undefined,
      { timeoutMs: GRANT_TIMEOUT_MS, intervalMs: 250 },
    );

    const provider = lab.config.providers.find((p) => p.name === PROVIDER.sa)!;
    const answer = predictAcrAnswer(img.request, lab.json[PROVIDER.sa]!);
    const model = new ServiceAccountTokenModel({
      provider: {
        name: provider.name,
        defaultCacheDurationMs: goDurationMs(provider.defaultCacheDuration),
        ...(provider.tokenAttributes ? { tokenAttributes: provider.tokenAttributes } : {}),
      },
      behaviour: behaviourFor(env.kubeletVersion ?? env.kubeVersion),
      gates: { kubelet: env.spec.featureGates.kubelet, apiserver: env.spec.featureGates.apiserver },
      grants: [{ audience: n.audience }],
    });
    const { metadata } = await api.core.readNamespacedServiceAccount({ name: n.puller, namespace: NAMESPACE });
    const sa = model.pull(
      {
        namespace: NAMESPACE,
        name: 'sa',
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
    const prediction = predictSaStatic(sa, img, lab.json[PROVIDER.sa]!, n.audience);
    const w = await s.pod('sa', img.ref, { serviceAccountName: n.puller });
    const exec = w.execs.find((i) => i.provider === PROVIDER.sa);
    const observed: SaView = {
      invoked: !!exec,
      tokenAud: [exec?.request.tokenClaims?.aud ?? []].flat(),
      annotations: exec?.request.annotations ?? {},
      answer: s.answerOf(w, PROVIDER.sa) ?? { cacheKeyType: '(no answer)', cacheDuration: '', auth: {} },
      azure: w.azure.map(showAzure),
      pull: pullShown(w.run),
    };
    return judge(SA_STATIC, {
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
}
