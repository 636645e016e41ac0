// What the suite starts before any environment exists: the htpasswd lab
// registry behind most hosts, the exchange registry (token auth: its token
// server takes an SA token as the password and validates it, see
// registry/sa-token-auth.ts) behind the tokenEcho and exchange hosts, and the
// fleet of fake providers, one per plan. Each is stopped, its log kept as a
// redacted artifact, by the suite's deferred cleanups.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Auth, busyboxImage, EXCHANGE_USERNAME, processProvider, type StartedRegistry } from '../../registry/index.ts';
import { memoryLogger, type Logger } from '../../src/core/logger.ts';
import {
  answer,
  pluginDir,
  prepareFleet,
  startLabRegistry,
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
  const exchangeRegistry = await startExchangeRegistry(ctx, runId);

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

/** The exchange registry with team-a/b/c's images; its log and its token server's lines become artifacts when it stops. */
async function startExchangeRegistry(ctx: SuiteSetup, runId: string): Promise<StartedRegistry> {
  // The token server logs each grant (account, scopes; never a password): kept as an artifact, not on the console.
  const tokenServerLines: string[] = [];
  const logger = quietLogger(ctx.log, tokenServerLines);
  const registry = await processProvider({ logger }).start({
    name: `sax-${runId}`,
    auth: Auth.token({ users: [] }),
    tls: true,
    logger,
    progress: ctx.progress,
  });
  ctx.defer(async () => {
    const log = await readFile(registry.logFile, 'utf8').catch(() => undefined);
    if (log !== undefined)
      await writeFile(join(ctx.artifactsDir, 'exchange-registry.log'), ctx.redactor.text(log)).catch(() => {});
    if (tokenServerLines.length) {
      await writeFile(
        join(ctx.artifactsDir, 'exchange-token-server.log'),
        ctx.redactor.text(`${tokenServerLines.join('\n')}\n`),
      ).catch(() => {});
    }
    await registry.stop();
  });
  const image = await busyboxImage({ marker: `credprov-sa-exchange-${runId}` });
  for (const team of EXCHANGE_TEAMS) await registry.push(image, { name: `${team}/app`, tag: 'v1' });
  return registry;
}

/** Every line into `lines`; warnings and errors also to `log`. */
function quietLogger(log: Logger, lines: string[]): Logger {
  const memory = memoryLogger(lines);
  const quiet: Logger = {
    ...memory,
    warn: (m) => (memory.warn(m), log.warn(m)),
    error: (m) => (memory.error(m), log.error(m)),
    child: () => quiet,
  };
  return quiet;
}
