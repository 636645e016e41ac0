// The service-account-recreate suite: a ServiceAccount deleted and recreated
// under the same name, or re-annotated, as the kubelet's KEP-4412 credential
// cache and its KEP-2535 records see it. Issue 30 item 4.
import { randomBytes } from 'node:crypto';
import {
  answer,
  pluginDir,
  prepareFleet,
  runCases,
  startLabRegistry,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { storyCase } from './cases.ts';
import { SAR_CHECKS } from './checks.ts';
import { CACHE_DURATION_S, PROVIDER, REPOSITORY, TAG, tokenAttributes } from './plan.ts';

export const serviceAccountRecreateSuite: Suite = {
  name: 'service-account-recreate',
  summary:
    'a ServiceAccount recreated (new UID) or re-annotated: the credential cache misses, the token names the new UID, KEP-2535 re-verifies by UID and never by annotation',
  checks: SAR_CHECKS,
  optIn: 'a field path for release qualification (issue 30), kept out of the default run and its time budget',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const id = randomBytes(3).toString('hex');
    const lab = await startLabRegistry(ctx, 'sar');
    ctx.defer(() => lab.stop({ keepLogAs: 'registry.log' }));
    await lab.push(REPOSITORY, TAG);
    const host = lab.registry.host;
    const audience = `credprov-sar-${id}`;
    const tokensDir = await pluginDir(ctx, 'sar-tokens');
    const scenario = (password: string) => ({
      ...answer(
        [host],
        { [host]: { username: lab.user.username, password } },
        {
          cacheKeyType: 'Registry',
          cacheDuration: `${CACHE_DURATION_S}s`,
        },
      ),
      serviceAccount: { requireToken: true, audience },
      captureTokensDir: tokensDir,
    });
    const fleet = await prepareFleet(ctx, [
      {
        name: PROVIDER,
        matchImages: [host],
        tokenAttributes: tokenAttributes(audience),
        scenario: scenario(lab.user.password),
      },
    ]);
    ctx.defer(() => fleet.redactArtifacts());
    return {
      needs: ['installPlugins', 'hostRegistries'],
      spec: fleet.spec,
      async run(run) {
        await lab.serveAs(run, host);
        return runCases(run, [
          storyCase({
            fleet,
            host,
            image: `${host}/${REPOSITORY}:${TAG}`,
            audience,
            tokensDir,
            refused: scenario(lab.wrongPassword),
          }),
        ]);
      },
    };
  },
};
