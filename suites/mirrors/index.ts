// The mirrors suite: which credentials reach which host when containerd has
// a mirror in front of a private registry. A private origin (htpasswd + TLS)
// with a recording fake provider and a pull secret; in front of it, per case,
// a [host] mirror that is a replica (accepts the origin's login, has the
// image), refuses the login (401), lacks the image (404) or is down; every
// registry behind a recording proxy that names the login of each request.
// The containerd hosts model predicts each pull before the pod exists.
import { randomBytes } from 'node:crypto';
import {
  answer,
  busyboxImage,
  prepareFleet,
  routeRegistry,
  runCases,
  startLabRegistry,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { mirrorCase } from './cases.ts';
import { MIRRORS_CHECKS } from './checks.ts';
import { CASES, imageHostOf, providersOf, repositoryOf, type Topology } from './plan.ts';

/** Nothing listens on port 1 of the loopback: the down mirror's connection is refused at once, and nothing leaves the machine. */
const DOWN = { address: '127.0.0.1', port: 1, scheme: 'https' as const, auth: {} };

export const mirrorsSuite: Suite = {
  name: 'mirrors',
  summary:
    'registry mirrors in hosts.toml: which registries receive the kubelet’s provider and pull-secret logins (every crossing named), fallback on 401/404/down, server vs [host], digests',
  checks: MIRRORS_CHECKS,
  optIn:
    "its SHOULD checks fail for every login containerd hands a mirror (finding 15): a property of the node's containerd, " +
    'not of the plugin a default run certifies',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const origin = await ctx.own(
      startLabRegistry(ctx, 'mirrors-origin', { username: `origin-${randomBytes(2).toString('hex')}` }),
    );
    const replica = await ctx.own(startLabRegistry(ctx, 'mirrors-replica', { user: origin.user }));
    const refuses = await ctx.own(startLabRegistry(ctx, 'mirrors-refuses'));
    const lacks = await ctx.own(startLabRegistry(ctx, 'mirrors-lacks', { user: origin.user }));
    // One image per case, the same on every registry that has it (a replica holds the origin's digests). Unique
    // per case, so no case finds its manifest already in containerd's content store and skips the fetch.
    const digests: Record<string, string> = {};
    for (const c of CASES) {
      const image = await busyboxImage({
        marker: `credprov-mirrors-${c.id.toLowerCase()}-${randomBytes(3).toString('hex')}`,
      });
      digests[c.id] = image.manifest.digest;
      for (const lab of [origin, replica, refuses])
        await lab.registry.push(image, { name: repositoryOf(c), tag: 'v1' });
    }
    const proxies = {
      origin: await origin.recorded('origin'),
      replica: await replica.recorded('replica'),
      refuses: await refuses.recorded('refuses'),
      lacks: await lacks.recorded('lacks'),
    };
    const topology: Topology = {
      origin: proxies.origin.host,
      replica: proxies.replica.host,
      refuses: proxies.refuses.host,
      lacks: proxies.lacks.host,
      down: `${DOWN.address}:${DOWN.port}`,
      user: origin.user.username,
    };
    const login = { username: origin.user.username, password: origin.user.password };
    const fleet = await prepareFleet(
      ctx,
      providersOf(topology).map((p) => ({
        name: p.name,
        matchImages: p.matchImages,
        scenario: answer(p.matchImages, Object.fromEntries(p.matchImages.map((m) => [m, login]))),
      })),
    );
    ctx.defer(() => fleet.redactArtifacts());
    return {
      needs: ['installPlugins', 'hostRegistries'],
      spec: fleet.spec,
      async run(run) {
        const target = { down: DOWN, ...proxies };
        const routes = [];
        try {
          for (const c of CASES) {
            const mirrors = c.mirror
              ? [
                  {
                    registry: target[c.mirror.kind],
                    ...(c.mirror.capabilities ? { capabilities: c.mirror.capabilities } : {}),
                  },
                ]
              : [];
            // The server is the origin's (or the replica's) recording proxy, so every request is seen.
            routes.push(await routeRegistry(run, proxies[c.server], imageHostOf(c), { mirrors }));
          }
          const lab = { topology, proxies, fleet, digests, password: origin.user.password };
          return await runCases(
            run,
            CASES.map((c) => mirrorCase(lab, c)),
          );
        } finally {
          await Promise.all(routes.map((r) => r.stop()));
        }
      },
    };
  },
};
