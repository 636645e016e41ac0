// What the suite starts before any environment exists: the htpasswd lab
// registry behind most hosts, the exchange registry (token auth: its token
// server takes an SA token as the password and validates it, see
// registry/sa-token-auth.ts) behind the tokenEcho and exchange hosts, and the
// fleet of fake providers, one per plan. Each is stopped, its log kept as a
// redacted artifact, by the suite's deferred cleanups.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  answer,
  EXCHANGE_USERNAME,
  pluginDir,
  prepareFleet,
  startLabRegistry,
  startTokenRegistry,
  type FleetMember,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import type { Prepared } from './fixture.ts';
import { audiencesFor, EXCHANGE_TEAMS, hostOf, providerPlans } from './plan.ts';

export async function prepareRegistriesAndFleet(ctx: SuiteSetup): Promise<Prepared> {
  const runId = randomBytes(3).toString('hex');
  const audiences = audiencesFor(runId);
  const plans = providerPlans(audiences);
  // Where the fake writes the tokens it was given: it runs in the node, so a dir every provider's nodes see.
  const tokensDir = await pluginDir(ctx, 'sa-tokens');
  const staticPodDir = join(ctx.artifactsDir, 'static-pods');
  await mkdir(staticPodDir, { recursive: true });

  const lab = await startLabRegistry(ctx, 'satoken');
  ctx.defer(() => lab.stop({ keepLogAs: 'registry.log' }));
  for (const plan of Object.values(plans)) if (plan.registry === 'lab') await lab.push(`sa/${plan.label}`);
  // The exchange registry with team-a/b/c's images (its token server takes what the suite's authenticator accepts).
  const exchangeRegistry = await startTokenRegistry(ctx, `sax-${runId}`, {
    repositories: EXCHANGE_TEAMS.map((team) => `${team}/app`),
    marker: `credprov-sa-exchange-${runId}`,
    logsAs: 'exchange',
  });

  const labUser = { username: lab.user.username, password: lab.user.password };
  const exchangeUser = { username: EXCHANGE_USERNAME, password: '{token}' };
  const members: FleetMember[] = Object.values(plans).map((plan) => ({
    name: plan.name,
    matchImages: [hostOf(plan)],
    tokenAttributes: plan.tokenAttributes,
    scenario: {
      ...answer(
        [hostOf(plan)],
        { [hostOf(plan)]: plan.password === 'token' ? exchangeUser : labUser },
        {
          cacheKeyType: 'Image',
          cacheDuration: `${plan.cacheDurationMs / 1000}s`,
        },
      ),
      ...(plan.captureTokens ? { captureTokensDir: tokensDir } : {}),
    },
  }));
  const fleet = await prepareFleet(ctx, members, { kubeletConfig: { staticPodPath: staticPodDir } });
  // The scenario files hold the lab's password, and the request log the token hashes' context: redacted last.
  ctx.defer(() => fleet.redactArtifacts());
  return { runId, audiences, plans, lab, exchangeRegistry, fleet, tokensDir, staticPodDir };
}
