// The image-volumes suite: an image volume (`volumes[].image`, on by default
// from 1.35) pulled through a KEP-4412 credential provider: the provider runs
// for the volume with the pod's own ServiceAccount, KEP-2535 records the pull
// and verifies a second pod's volume. Issue 30 item 1.
import { randomBytes } from 'node:crypto';
import {
  answer,
  busyboxImage,
  notApplicable,
  prepareFleet,
  runCases,
  startLabRegistry,
  kubeletVersionOf,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { storyCase } from './cases.ts';
import { IMAGE_VOLUME_CHECKS } from './checks.ts';
import { PROVIDER, tokenAttributes, VOLUME_REPOSITORY, VOLUME_TAG } from './plan.ts';

export const imageVolumesSuite: Suite = {
  name: 'image-volumes',
  summary:
    "an image volume's image through a KEP-4412 provider: exec'd with the pod's ServiceAccount token, recorded and verified by KEP-2535",
  checks: IMAGE_VOLUME_CHECKS,
  optIn: 'a field path for release qualification (issue 30), kept out of the default run for its time',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const id = randomBytes(3).toString('hex');
    const lab = await startLabRegistry(ctx, 'iv');
    ctx.defer(() => lab.stop({ keepLogAs: 'registry.log' }));
    await lab.push(VOLUME_REPOSITORY, VOLUME_TAG);
    const host = lab.registry.host;
    const audience = `credprov-iv-${id}`;
    const base = await busyboxImage({ marker: `credprov-iv-${id}` });
    const login = { username: lab.user.username, password: lab.user.password };
    const fleet = await prepareFleet(ctx, [
      {
        name: PROVIDER,
        matchImages: [host],
        tokenAttributes: tokenAttributes(audience),
        scenario: { ...answer([host], { [host]: login }), serviceAccount: { requireToken: true, audience } },
      },
    ]);
    ctx.defer(() => fleet.redactArtifacts());
    return {
      needs: ['installPlugins', 'hostRegistries'],
      spec: fleet.spec,
      async run(run) {
        const row = behaviourFor(kubeletVersionOf(run.environment));
        if (!row.imageVolume.enabledByDefault)
          return IMAGE_VOLUME_CHECKS.map((c) =>
            notApplicable(
              c,
              `the ImageVolume gate is off by default on kubelet 1.${row.minor} (version table imageVolume)`,
            ),
          );
        await lab.serveAs(run, host);
        return runCases(run, [
          storyCase({ fleet, base, host, volumeRef: `${host}/${VOLUME_REPOSITORY}:${VOLUME_TAG}`, audience }),
        ]);
      },
    };
  },
};
