// The parallel-pulls suite: a kubelet that pulls in parallel
// (serializeImagePulls: false, maxParallelImagePulls) through credential
// providers. The cache model holds as it is (lookups precede the puller), the
// puller's tokens bound the pulls the registry sees (not the plugin's execs),
// and KEP-2535's striped locks crash kubelets without #138937 when
// maxParallelImagePulls is above 31 (k/k #138935). Issue 30 item 2.
import { randomBytes } from 'node:crypto';
import {
  answer,
  busyboxImage,
  prepareFleet,
  routeRegistry,
  runCases,
  startLabRegistry,
  type BuiltImage,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { burstCase, locksCase } from './cases.ts';
import { limitCase } from './limit-case.ts';
import { PARALLEL_PULLS_CHECKS } from './checks.ts';
import {
  BURST_ANSWER,
  BURST_PROVIDER,
  BURST_REPOSITORIES,
  BURST_ZONE,
  burstHost,
  LIMIT_ANSWER,
  LIMIT_PROVIDER,
  LIMIT_REPOSITORIES,
  LIMIT_ZONE,
  limitHold,
  limitHost,
  LOCKS_ANSWER,
  LOCKS_PROVIDER,
  LOCKS_ZONE,
  locksHost,
  PARALLEL_CONFIG,
} from './plan.ts';
import { imageRefWithinTheSet } from './predict.ts';

export const parallelPullsSuite: Suite = {
  name: 'parallel-pulls',
  summary:
    'a kubelet pulling in parallel through credential providers: plugin execs within the cache model, maxParallelImagePulls bounding the pulls at the registry, and maxParallelImagePulls above 31 against the striped-lock bug k/k #138935',
  checks: PARALLEL_PULLS_CHECKS,
  optIn:
    'a field path for release qualification (issue 30): it restarts the kubelet twice, and on a kubelet without #138937 ' +
    'it crashes it on purpose (the known bug, reported as such)',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const id = randomBytes(3).toString('hex');
    const lab = await ctx.own(startLabRegistry(ctx, 'pp'));
    for (const repo of [...BURST_REPOSITORIES, ...LIMIT_REPOSITORIES]) await lab.push(repo);
    const front = await lab.recorded('limit-front', { delayMs: limitHold });
    const locksImage = await lockImage(id);
    const login = { username: lab.user.username, password: lab.user.password };
    const member = (
      name: string,
      zone: string,
      o: { cacheKeyType: string; cacheDuration: string; delay?: string },
    ) => ({
      name,
      matchImages: [`*.${zone}`],
      defaultCacheDuration: '0s',
      scenario: answer([`*.${zone}`], { [`*.${zone}`]: login }, o),
    });
    const fleet = await prepareFleet(
      ctx,
      [
        member(BURST_PROVIDER, BURST_ZONE, BURST_ANSWER),
        member(LIMIT_PROVIDER, LIMIT_ZONE, LIMIT_ANSWER),
        member(LOCKS_PROVIDER, LOCKS_ZONE, LOCKS_ANSWER),
      ],
      { kubeletConfig: PARALLEL_CONFIG },
    );
    ctx.defer(() => fleet.redactArtifacts());
    const l = { id, lab, fleet, burstHost: burstHost(id), locksHost: locksHost(id), locksImage };
    return {
      needs: ['installPlugins', 'hostRegistries', 'kubeletFiles'],
      spec: fleet.spec,
      async run(run) {
        await lab.serveAs(run, l.burstHost);
        await lab.serveAs(run, l.locksHost);
        const limit = { id, fleet, host: limitHost(id), front };
        const route = await routeRegistry(run, front, limit.host);
        try {
          // In order: the lock case restarts the kubelet.
          return await runCases(run, [burstCase(l), limitCase(limit), { ...locksCase(l), needs: ['restartKubelet'] }], {
            concurrency: 1,
          });
        } finally {
          await route.stop();
        }
      },
    };
  },
};

/** An image of this run whose ID indexes within the striped set under the lock case's limit (about one in two do). */
async function lockImage(id: string): Promise<BuiltImage> {
  for (let n = 0; n < 32; n++) {
    const image = await busyboxImage({ marker: `credprov-pp-${id}-${n}` });
    if (imageRefWithinTheSet(image.config.digest)) return image;
  }
  throw new Error('no image of 32 markers has an ID that indexes within the striped set (fnv32 % 64 < 31)');
}
