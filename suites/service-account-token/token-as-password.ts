// SA-TOKEN-AS-PASSWORD: two providers answer the SA token as the password for
// team-a's image on the exchange registry, one with cacheType ServiceAccount
// (the kubelet must refuse the response), one with cacheType Token (allowed;
// the exchange accepts the token). The refusal is only in the kubelet's log
// (capability kubeletFiles).
import { caseOf, deletePod, judge, klogErr, type Case } from '../../src/run/kit.ts';
import { TOKEN_AS_PASSWORD } from './checks.ts';
import type { SuiteFixture } from './fixture.ts';
import { exchangeImage, TOKEN_AS_PASSWORD_PODS } from './plan.ts';
import { predictTokenAsPassword } from './predict-access.ts';
import { podInvocations, showTokenAsPassword } from './views.ts';

export const tokenAsPasswordCase = (f: SuiteFixture): Case =>
  caseOf(
    TOKEN_AS_PASSWORD,
    async (ctx) => {
      const { serviceAccountCache, tokenCache } = TOKEN_AS_PASSWORD_PODS;
      const echoPlan = f.plans.tokenEcho;
      const exchangePlan = f.plans.exchange;
      f.kubeletLinesOnFailure(ctx, [serviceAccountCache.name, tokenCache.name]);
      const prediction = predictTokenAsPassword(f.predictor, f.plans);
      const [echoRun, exchangeRun] = await Promise.all([
        f.runPod(serviceAccountCache, exchangeImage(echoPlan, serviceAccountCache.team)),
        f.runPod(tokenCache, exchangeImage(exchangePlan, tokenCache.team)),
      ]);
      await deletePod(f.env, serviceAccountCache.name, f.namespace);
      const refusal = (pod: string) =>
        f.kubeletLog([`${f.namespace}/${pod}`, 'returned the service account token as the password'], 2);
      const [echoRefusal, exchangeRefusal] = await Promise.all([
        refusal(serviceAccountCache.name),
        refusal(tokenCache.name),
      ]);
      const echoInvocations = podInvocations(await f.invocations(echoPlan), serviceAccountCache.name);
      const exchangeInvocations = podInvocations(await f.invocations(exchangePlan), tokenCache.name);
      const refusalText = echoRefusal.length ? klogErr(echoRefusal.at(-1)!) : undefined;
      return judge(TOKEN_AS_PASSWORD, {
        prediction,
        observed: {
          serviceAccountCacheType: {
            invoked: echoInvocations.length > 0,
            responseRefused: echoRefusal.length > 0,
            pull: echoRun.observed,
          },
          tokenCacheType: {
            invoked: exchangeInvocations.length > 0,
            responseRefused: exchangeRefusal.length > 0,
            pull: exchangeRun.observed,
          },
        },
        show: showTokenAsPassword,
        note: refusalText && `the kubelet logged: ${refusalText}`,
        evidence: [
          f.eventsEvidence(echoRun),
          f.eventsEvidence(exchangeRun),
          f.invocationEvidence('invocations (password = {token})', [...echoInvocations, ...exchangeInvocations]),
          ...f.kubeletLogEvidence('kubelet log: the refusal (cacheType ServiceAccount)', echoRefusal),
        ],
      });
    },
    { needs: ['kubeletFiles'] },
  );
