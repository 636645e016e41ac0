// KEP-2133's protocol versions switched under a running provider: the
// provider entry between v1 and v1beta1, and a plugin that answers in the
// version the entry does not name.
import type { CredentialProviderConfig } from '../../src/api/credentialprovider/types.ts';
import {
  caseOf,
  judge,
  kubeletEvidence,
  kubeletFilesOf,
  linesSince,
  runPod,
  uniqueSuffix,
  type Case,
  type Evidence,
} from '../../src/run/kit.ts';
import { RESPONSE_APIVERSION } from './checks.ts';
import { resetKubelet, type DowngradeSetting } from './node.ts';
import { API_VERSION_STEPS, IMAGE, PROVIDER, scenario, stepLabel } from './plan.ts';
import { predictApiVersionSteps } from './predict.ts';

const REFUSED = 'did not match expected apiVersion';

/** Needs the kubelet's log here (kubeletFiles): a refused response shows only there. */
export function apiVersionCase(s: DowngradeSetting): Case {
  return caseOf(
    RESPONSE_APIVERSION,
    async (ctx) => {
      let env = await resetKubelet(ctx, s);
      const { prediction, decoderErrors } = predictApiVersionSteps();
      // The later cases expect the fake's usual answer.
      ctx.defer(() => s.fleet.rescript(PROVIDER, scenario(s.lab.user)));
      const observed: string[] = [];
      const evidence: Evidence[] = [];
      for (const [i, step] of API_VERSION_STEPS.entries()) {
        const label = stepLabel(step);
        await s.fleet.rescript(PROVIDER, scenario(s.lab.user, step.answers));
        const providers = s.fleet.config.providers.map((p) => ({ ...p, apiVersion: step.config }));
        const config = { ...s.fleet.config, providers } as CredentialProviderConfig;
        const credentialProvider = {
          ...env.spec.credentialProvider!,
          config: config as unknown as Record<string, unknown>,
        };
        env = await ctx.provider.restartKubelet(env, { credentialProvider }, ctx.progress);
        const kubeletLog = await linesSince(kubeletFilesOf(env).log);
        const pod = await runPod(env, {
          name: `down-api-${i}-${uniqueSuffix(ctx.clock)}`,
          image: IMAGE,
          pullPolicy: 'Always',
        });
        // "response refused" only when the kubelet itself says so during this step, else the pod's own failure.
        const refusedLine =
          pod.pull === 'failure' ? (await kubeletLog.added()).find((l) => l.includes(REFUSED)) : undefined;
        const why =
          pod.pull === 'failure' ? (refusedLine ? ' (response refused)' : ` (${pod.failure ?? 'unknown'})`) : '';
        observed.push(`${label}: pull ${pod.pull}${why}`);
        evidence.push(...pod.evidence);
        const decoderError = decoderErrors[label];
        if (decoderError)
          evidence.push({ kind: 'text', label: `credprov's decoder on the ${label} answer`, text: decoderError });
      }
      evidence.push(...(await kubeletEvidence(env, ['apiVersion from credential plugin response', 'did not match'])));
      return judge(RESPONSE_APIVERSION, { prediction, observed, show: (v) => v.join('; '), evidence });
    },
    { needs: ['kubeletFiles'] },
  );
}
