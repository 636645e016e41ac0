// The smoke suite: the smallest end-to-end proof that a kubelet uses a
// credential provider plugin at all, and the example docs/writing-a-suite.md
// walks through. A lab registry (htpasswd + TLS) holds two private images; a
// recording fake provider matches one of them; a pod pulls each. credprov
// predicts each pull and the plugin's requests from its models first.
import {
  answer,
  fleetMembers,
  prepareFleet,
  runCases,
  startLabRegistry,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { smokeCases } from './cases.ts';
import { SMOKE_CHECKS } from './checks.ts';
import { CACHE_DURATION, PROVIDER_NAME, REPOSITORIES, smokePlan } from './plan.ts';

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
    // The plan's own provider config, each provider with the answer its fake gives: the right login for the registry.
    const login = { username: lab.user.username, password: lab.user.password };
    const scenario = answer(
      [plan.matched],
      { [plan.host]: login },
      { cacheKeyType: 'Image', cacheDuration: CACHE_DURATION },
    );
    const fleet = await prepareFleet(ctx, fleetMembers(plan.config, { [PROVIDER_NAME]: scenario }));
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
