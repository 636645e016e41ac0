// The provider-config-directory suite: --image-credential-provider-config
// naming a directory (kubernetes#131658, 1.34+). A lab registry holds one
// private image; two recording fake providers both match it, declared in two
// files of a directory whose lexical order is the reverse of their names'.
// The kubelet is restarted on that directory (exec and login order of one
// pull, and the config hash it publishes), on one repeating a provider name
// and on an empty one (both refused). On 1.33 every directory is refused.
// The environment itself comes up with one inline config, which every minor reads.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CredentialProviderSpec } from '../../src/api/spec/types.ts';
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
import { mergedCase, refusedCase, type DirectorySetting } from './cases.ts';
import { CFGDIR_CHECKS, DUPLICATE_REFUSED, EMPTY_REFUSED } from './checks.ts';
import { DUPLICATE, EMPTY, fileText, FIRST, MERGED, REPOSITORY, SECOND } from './plan.ts';

export const providerConfigDirectorySuite: Suite = {
  name: 'provider-config-directory',
  summary:
    'the credential provider config as a directory: merged in lexical order (exec and login order), a repeated name and an empty directory refused, the config hash on /metrics; refused on 1.33',
  checks: CFGDIR_CHECKS,
  optIn:
    'four kubelet restarts (two of them refused starts) for a kubelet flag most nodes do not use; run it by name or with --suite all',
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const lab = await ctx.own(startLabRegistry(ctx, 'cfgdir'));
    await lab.push(REPOSITORY);
    const host = lab.registry.host;
    const matchImages = [`${host}/${REPOSITORY}`];
    const fleet = await prepareFleet(ctx, [
      // The provider declared first answers a login the registry refuses; the pull must then try the other's.
      {
        name: FIRST,
        matchImages,
        scenario: answer(matchImages, { [host]: { username: lab.user.username, password: lab.wrongPassword } }),
      },
      {
        name: SECOND,
        matchImages,
        scenario: answer(matchImages, { [host]: { username: lab.user.username, password: lab.user.password } }),
      },
    ]);
    ctx.defer(() => fleet.redactArtifacts());
    const root = await pluginDir(ctx, 'cfgdir-configs');
    const dirs: Record<string, string> = {};
    for (const plan of [MERGED, DUPLICATE, EMPTY]) {
      const dir = join(root, plan.name);
      await mkdir(dir, { recursive: true });
      for (const f of plan.files) await writeFile(join(dir, f.name), fileText(f, host));
      dirs[plan.name] = dir;
    }
    const base = fleet.spec.credentialProvider as CredentialProviderSpec;
    return {
      needs: ['installPlugins', 'hostRegistries', 'restartKubelet'],
      spec: fleet.spec,
      async run(run) {
        await lab.serveAs(run, host);
        const s: DirectorySetting = { lab, fleet, base, dirs };
        // One kubelet, restarted by every case: one case at a time.
        return runCases(
          run,
          [mergedCase(s, MERGED), refusedCase(s, DUPLICATE_REFUSED, DUPLICATE), refusedCase(s, EMPTY_REFUSED, EMPTY)],
          { concurrency: 1 },
        );
      },
    };
  },
};
