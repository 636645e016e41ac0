// The preloaded-images suite: KEP-2535 where names share an image ID. A name
// X is imported into containerd behind the kubelet's back; Y, the same image
// under another name, is pulled with a secret; the kubelet keeps one record
// per image ID, so X stops counting as preloaded (k/k #138175). Issue 30
// item 3. Opt-in: the default run's KEP-2535 suite gives every cell its own
// image ID and keeps its time.
import { randomBytes } from 'node:crypto';
import {
  busyboxImage,
  kubeletVersionOf,
  notApplicable,
  removeImagesNamed,
  runCases,
  startLabRegistry,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import { storyCase } from './cases.ts';
import { PRELOADED_CHECKS } from './checks.ts';
import { TAG } from './plan.ts';

export const preloadedImagesSuite: Suite = {
  name: 'preloaded-images',
  summary:
    'KEP-2535 with names that share an image ID: a preloaded X, Y of the same image pulled with a secret, X after it (k/k #138175)',
  checks: PRELOADED_CHECKS,
  optIn: 'a field path for release qualification (issue 30), kept out of the default run for its time',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const id = randomBytes(3).toString('hex');
    const root = `pre-${id}`;
    const lab = await startLabRegistry(ctx, 'pre');
    ctx.defer(() => lab.stop({ keepLogAs: 'registry.log' }));
    const image = await busyboxImage({ marker: `credprov-pre-${id}` });
    // X and Y on the lab: the same image (one image ID) under two names.
    await lab.pushImages(['x', 'y'].map((n) => ({ image, repository: `${root}/${n}`, tag: TAG })));
    const host = lab.registry.host;
    return {
      needs: ['hostRegistries'],
      spec: {},
      async run(run) {
        const row = behaviourFor(kubeletVersionOf(run.environment));
        if (row.gateDefaults.KubeletEnsureSecretPulledImages !== true)
          return PRELOADED_CHECKS.map((c) =>
            notApplicable(
              c,
              `KubeletEnsureSecretPulledImages is off by default on kubelet 1.${row.minor} (version table gateDefaults)`,
            ),
          );
        await lab.serveAs(run, host);
        run.defer(async () => void (await removeImagesNamed(run.environment, `/${root}/`)));
        const login = { username: lab.user.username, password: lab.user.password };
        return runCases(run, [storyCase({ image, host, root, login })]);
      },
    };
  },
};
