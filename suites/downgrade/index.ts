// The downgrade suite: the rollback paths the KEPs promise, each walked on the
// real kubelet as a user would, with credprov's prediction stated first from
// its own code (the config validator, the response decoder, the pull
// credentials model; predict.ts) and what the user sees kept as evidence: the
// kubelet's error, pod states, the credentials used. The cases run one after
// another: each restarts the one node's kubelet, and each puts back what it
// changed (or starts from the suite's config) before the next.
import { normalizeImage } from '../../src/matching/image.ts';
import { parseKubeVersion, SUPPORTED_MINORS } from '../../src/versions/table.ts';
import { prepareFleet, runCases, startLabRegistry, type PreparedSuite, type Suite } from '../../src/run/kit.ts';
import { apiVersionCase } from './api-version.ts';
import { DOWNGRADE_CHECKS } from './checks.ts';
import { fallbackCase } from './fallback.ts';
import { gateOffCase } from './gate-off.ts';
import type { DowngradeSetting } from './node.ts';
import { ALL_IMAGES, MATCH_IMAGES, PROVIDER, scenario, V1 } from './plan.ts';
import { gateToggleCase, kubeletOneMinorCase } from './records.ts';

export const downgradeSuite: Suite = {
  name: 'downgrade',
  summary:
    'rollback paths: the SA-token gate turned off (refusal, the documented fix, pods keep running), the provider config removed ' +
    '(fallback to node credentials), the response apiVersion switched between v1 and v1beta1, KubeletEnsureSecretPulledImages off and on, ' +
    'and the kubelet downgraded one minor with records and a warm credential cache',
  checks: DOWNGRADE_CHECKS,
  // DOWN-KUBELET-ONE-MINOR swaps in the previous minor's kubelet (records.ts).
  kubelets: (kubeVersion) => {
    const older = parseKubeVersion(kubeVersion).minor - 1;
    return SUPPORTED_MINORS.includes(older) ? [`1.${older}`] : [];
  },
  async prepare(ctx): Promise<PreparedSuite> {
    const lab = await ctx.own(startLabRegistry(ctx, 'down'));
    for (const image of ALL_IMAGES) await lab.push(normalizeImage(image).path, 'v1');
    const provider = {
      name: PROVIDER,
      matchImages: MATCH_IMAGES,
      apiVersion: V1,
      defaultCacheDuration: '0s',
      scenario: scenario(lab.user),
    };
    const fleet = await prepareFleet(ctx, [provider]);
    ctx.defer(() => fleet.redactArtifacts());
    return {
      needs: ['installPlugins', 'hostRegistries', 'restartKubelet'],
      spec: fleet.spec,
      async run(run) {
        const env = run.environment;
        await lab.serveAs(run, lab.registry.host);
        for (const image of ALL_IMAGES) await lab.serveAs(run, normalizeImage(image).registry);
        const setting: DowngradeSetting = { lab, fleet, baseProvider: env.spec.credentialProvider! };
        // Leave the environment as the runner expects it: the fake's usual answer, the suite's config, default gates.
        run.defer(async () => {
          await fleet.rescript(PROVIDER, scenario(lab.user));
          await run.provider.restartKubelet(
            env,
            { credentialProvider: setting.baseProvider, featureGates: {} },
            run.progress,
          );
        });
        const cases = [
          gateOffCase(setting),
          fallbackCase(setting),
          apiVersionCase(setting),
          gateToggleCase(setting),
          kubeletOneMinorCase(setting),
        ];
        return runCases(run, cases, { concurrency: 1 });
      },
    };
  },
};
