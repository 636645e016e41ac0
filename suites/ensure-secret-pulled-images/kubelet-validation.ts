// Whether the kubelet's own config validation accepts an allowlist entry
// (k/k #137629: 1.35 refuses a familiar name such as `alpine`). The suite
// cannot restart its kubelet into a refused config (it would not come back),
// so it runs the same kubelet binary on a throwaway KubeletConfiguration that
// holds the entry and also imageGCHighThresholdPercent 101: validation
// collects every error, so the binary always stops there, before it starts
// anything, and its message says whether the entry was among them.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { resolveKubeBinaries } from '../../src/cluster/binaries/index.ts';
import { cacheDir } from '../../src/core/paths.ts';
import type { CaseContext, Environment } from '../../src/run/kit.ts';

const RUN_TIMEOUT_MS = 20_000;
/** Always invalid, so the binary stops at validation whatever the entry; and the error it gives. */
const ALWAYS_INVALID = 'imageGCHighThresholdPercent: 101';
const ALWAYS_INVALID_ERROR = 'imageGCHighThresholdPercent (--image-gc-high-threshold) 101';
/** validation.go: the error of an entry getAllowlistImagePattern refuses. */
const REFUSED = 'invalid image pattern in `preloadedImagesVerificationAllowlist`';

export interface EntryValidationRun {
  binary: string;
  verdicts: Record<string, 'accepted' | 'refused'>;
  /** The binary's last lines per entry. */
  outputs: Record<string, string>;
  /** Set when an entry's run said neither (the binary did not reach validation). */
  invalidBecause?: string;
}

/** The kubelet binary the environment's kubelet runs: its own bin dir, or the cached build of a skewed kubelet. */
async function kubeletBinary(env: Environment, ctx: CaseContext): Promise<string> {
  if (!env.kubeletVersion || env.kubeletVersion === env.kubeVersion) return join(env.binDir, 'kubelet');
  const resolved = await resolveKubeBinaries({
    version: env.kubeletVersion,
    names: ['kubelet'],
    cacheDir: cacheDir(ctx.processEnv),
    progress: ctx.progress,
    log: ctx.log,
  });
  return resolved.kubelet;
}

function configFor(entry: string): string {
  return [
    'apiVersion: kubelet.config.k8s.io/v1beta1',
    'kind: KubeletConfiguration',
    ALWAYS_INVALID,
    'imagePullCredentialsVerificationPolicy: NeverVerifyAllowlistedImages',
    'preloadedImagesVerificationAllowlist:',
    `- ${JSON.stringify(entry)}`,
    '',
  ].join('\n');
}

export async function validateAllowlistEntries(
  env: Environment,
  entries: string[],
  ctx: CaseContext,
): Promise<EntryValidationRun> {
  const binary = await kubeletBinary(env, ctx);
  const dir = await mkdtemp(join(ctx.artifactsDir, 'kubelet-validation-'));
  const verdicts: EntryValidationRun['verdicts'] = {};
  const outputs: EntryValidationRun['outputs'] = {};
  const unclear: string[] = [];
  try {
    for (const [i, entry] of entries.entries()) {
      const file = join(dir, `config-${i}.yaml`);
      await writeFile(file, configFor(entry));
      const r = await execa(binary, ['--config', file], { reject: false, all: true, timeout: RUN_TIMEOUT_MS });
      const text = String(r.all ?? '');
      // The errors only: the kubelet follows them with a dump of the whole config.
      const errors = /failed to validate kubelet configuration, error: \[(.*?)\], path:/.exec(text)?.[1];
      outputs[entry] = errors ?? text.split('\n').slice(-3).join('\n').slice(0, 2000);
      if (errors?.includes(REFUSED)) verdicts[entry] = 'refused';
      else if (errors?.includes(ALWAYS_INVALID_ERROR)) verdicts[entry] = 'accepted';
      else unclear.push(entry);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return {
    binary,
    verdicts,
    outputs,
    ...(unclear.length
      ? {
          invalidBecause: `the kubelet binary ${binary} did not stop at config validation for ${unclear.join(', ')} (see its output in the evidence)`,
        }
      : {}),
  };
}
