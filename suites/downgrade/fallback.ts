// KEP-2133 downgraded: the credential provider config removed, the kubelet
// falls back to the node's own credentials (a docker config.json in its root
// dir, its preferred path), here for IMAGE's registry only.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { normalizeImage } from '../../src/matching/image.ts';
import {
  caseOf,
  dockerConfigJson,
  judge,
  kubeletEvidence,
  kubeletFilesOf,
  runPod,
  since,
  uniqueSuffix,
  type Case,
} from '../../src/run/kit.ts';
import { NO_PROVIDER_FALLBACK } from './checks.ts';
import { resetKubelet, type DowngradeSetting } from './node.ts';
import { IMAGE, OTHER } from './plan.ts';
import { predictFallback } from './predict.ts';

export function fallbackCase(s: DowngradeSetting): Case {
  return caseOf(
    NO_PROVIDER_FALLBACK,
    async (ctx) => {
      const env = await resetKubelet(ctx, s);
      const execs = await since(() => s.fleet.invocations());
      const prediction = predictFallback(s.lab.user.username);
      // Removed again after the case: it would leak into every later suite.
      const nodeConfig = join(kubeletFilesOf(env).rootDir, 'config.json');
      const nodeAuth = dockerConfigJson({ [normalizeImage(IMAGE).registry]: s.lab.user });
      ctx.defer(() => rm(nodeConfig, { force: true }));
      await writeFile(nodeConfig, JSON.stringify(nodeAuth), { mode: 0o600 });
      const images = [IMAGE, OTHER];
      const tag = uniqueSuffix(ctx.clock);
      const before = await Promise.all(
        images.map((image, i) => runPod(env, { name: `down-before-${i}-${tag}`, image, pullPolicy: 'Always' })),
      );
      const withoutConfig = await ctx.provider.restartKubelet(env, { credentialProvider: null }, ctx.progress);
      const after = await Promise.all(
        images.map((image, i) =>
          runPod(withoutConfig, { name: `down-after-${i}-${tag}`, image, pullPolicy: 'Always' }),
        ),
      );
      const execsAfter = (await execs.added()).length;
      return judge(NO_PROVIDER_FALLBACK, {
        prediction,
        observed: images.map((image, i) => ({ image, before: `${before[i]!.pull}`, after: `${after[i]!.pull}` })),
        show: (v) => v.map((x) => `${x.image}: ${x.before} → ${x.after}`).join('; '),
        evidence: [
          ...before.flatMap((p) => p.evidence),
          ...after.flatMap((p) => p.evidence),
          {
            kind: 'data',
            label: 'plugin execs after the provider config was removed (of all pulls in this case)',
            data: { invocations: execsAfter },
          },
          ...(await kubeletEvidence(env, ['config.json', 'credential provider'])),
        ],
      });
    },
    { needs: ['kubeletFiles'] },
  );
}
