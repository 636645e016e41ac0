// The smoke suite: the smallest end-to-end proof that a kubelet uses a
// credential provider plugin at all, and the example docs/writing-a-suite.md
// walks through. A lab registry (htpasswd + TLS) holds two private images; a
// recording fake provider matches one of them; a pod pulls each. credprov
// predicts each pull and the plugin's requests from its models first.
import {
  answer,
  prepareFleet,
  runCases,
  startLabRegistry,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { smokeCases } from './cases.ts';
import { SMOKE_CHECKS } from './checks.ts';
import { CACHE_DURATION, PROVIDER_NAME, REPOSITORIES, REQUEST_API_VERSION, smokePlan } from './plan.ts';

export const smokeSuite: Suite = {
  name: 'smoke',
  summary:
    'a private image pulled through the fake credential provider; an unmatched one fails; the plugin saw exactly one v1 request',
  checks: SMOKE_CHECKS,
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const lab = await ctx.own(startLabRegistry(ctx, 'smoke'));
    await lab.push(REPOSITORIES.matched);
    await lab.push(REPOSITORIES.unmatched);
    const plan = smokePlan(lab.registry.host);
    const fleet = await prepareFleet(ctx, [
      {
        name: PROVIDER_NAME,
        apiVersion: REQUEST_API_VERSION,
        matchImages: [plan.matched],
        defaultCacheDuration: CACHE_DURATION,
        scenario: answer(
          [plan.matched],
          { [plan.host]: { username: lab.user.username, password: lab.user.password } },
          { cacheKeyType: 'Image', cacheDuration: CACHE_DURATION },
        ),
      },
    ]);
    // The fake needed the password in clear; the artifacts kept after the run must not.
    ctx.defer(() => fleet.redactArtifacts());
    return {
      needs: ['installPlugins', 'hostRegistries'],
      spec: fleet.spec,
      async run(run) {
        await lab.serveAs(run, plan.host);
        const cases = smokeCases({ plan, lab, fleet });
        return [...(await runCases(run, cases.pods)), ...(await runCases(run, cases.afterPods))];
      },
    };
  },
};
