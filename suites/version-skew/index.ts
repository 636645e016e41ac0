// The version-skew suite: under the environment's API server, the kubelet of
// each older minor the skew policy allows (up to three) is swapped in,
// and the same questions are asked of each: provider order, the protocol
// version on the wire, and whether it refuses a config that only some
// versions refuse. Every prediction reads the version table or the config
// validator (validate-config --kube-version), never a per-version constant
// (predict.ts). A minor whose kubelet is not in credprov's cache is built
// there first (ensureKubelet), as a step of its own.
import { normalizeImage } from '../../src/matching/image.ts';
import { prepareFleet, runCases, startLabRegistry, type PreparedSuite, type Suite } from '../../src/run/kit.ts';
import { parseKubeVersion } from '../../src/versions/table.ts';
import { minorCase } from './cases.ts';
import { SKEW_MINORS, VERSION_SKEW_CHECKS } from './checks.ts';
import { fleetMembers, IMAGES } from './plan.ts';

export const versionSkewSuite: Suite = {
  name: 'version-skew',
  summary:
    'the kubelet of each minor the skew policy allows under the API server: provider order, protocol v1/v1beta1, ' +
    'and configs an older kubelet refuses, each predicted from the version table',
  checks: VERSION_SKEW_CHECKS,
  needsBuild:
    'the kubelets of older minors (built on first use, 3-4 min each; ahead of time: credprov binaries ensure --kube-version 1.N --only kubelet --skip-containerd)',
  async prepare(ctx): Promise<PreparedSuite> {
    const lab = await ctx.own(startLabRegistry(ctx, 'skew'));
    for (const image of Object.values(IMAGES)) await lab.push(normalizeImage(image).path, 'v1');
    const fleet = await prepareFleet(ctx, fleetMembers({ username: lab.user.username, password: lab.user.password }));
    ctx.defer(() => fleet.redactArtifacts());
    return {
      needs: ['installPlugins', 'hostRegistries', 'restartKubelet'],
      spec: fleet.spec,
      async run(run) {
        const env = run.environment;
        await lab.serveAs(run, lab.registry.host);
        for (const image of Object.values(IMAGES)) await lab.serveAs(run, normalizeImage(image).registry);
        const baseProvider = env.spec.credentialProvider!;
        // Leave the environment as the runner expects it: the control plane's kubelet with this suite's config.
        run.defer(async () => {
          const change = { kubelet: { version: undefined }, credentialProvider: baseProvider, featureGates: {} };
          await run.provider.restartKubelet(env, change, run.progress);
        });
        const setting = { fleet, apiMinor: parseKubeVersion(env.kubeVersion).minor, baseProvider };
        // One kubelet at a time: each case restarts the one node's kubelet.
        return runCases(
          run,
          SKEW_MINORS.map((minor) => minorCase(minor, setting)),
          { concurrency: 1 },
        );
      },
    };
  },
};
