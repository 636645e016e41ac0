// What the environment's own kubelet binary says of a KubeletConfiguration,
// asked without starting a kubelet: a config the kubelet refuses cannot be
// tried on the running node (it would not come back). The binary is run on a
// throwaway file and stops at its validation, which collects every error.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { resolveKubeBinaries } from '../cluster/binaries/index.ts';
import type { Environment } from '../cluster/provider.ts';
import { cacheDir } from '../core/paths.ts';
import type { SuiteRun } from './suite.ts';

const RUN_TIMEOUT_MS = 20_000;

type Ctx = Pick<SuiteRun, 'processEnv' | 'progress' | 'log' | 'artifactsDir'>;

/** The kubelet binary the environment's kubelet runs: its own bin dir, or the cached build of a skewed kubelet. */
export async function kubeletBinaryOf(ctx: Ctx, env: Environment): Promise<string> {
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

export interface ConfigValidation {
  binary: string;
  /** The kubelet's list of validation errors, when it stopped at validation. */
  errors?: string;
  /** Its output's last lines otherwise (it did not reach validation, or passed it). */
  tail: string;
}

/** Runs the environment's kubelet binary with `--config` on `config` (YAML) and reads its validation errors. */
export async function validateKubeletConfig(ctx: Ctx, env: Environment, config: string): Promise<ConfigValidation> {
  const binary = await kubeletBinaryOf(ctx, env);
  const dir = await mkdtemp(join(ctx.artifactsDir, 'kubelet-validation-'));
  try {
    const file = join(dir, 'config.yaml');
    await writeFile(file, config);
    const r = await execa(binary, ['--config', file], { reject: false, all: true, timeout: RUN_TIMEOUT_MS });
    const text = String(r.all ?? '');
    // The errors only: the kubelet follows them with a dump of the whole config.
    const errors = /failed to validate kubelet configuration, error: \[(.*?)\], path:/.exec(text)?.[1];
    return {
      binary,
      ...(errors !== undefined ? { errors } : {}),
      tail: text.split('\n').slice(-3).join('\n').slice(0, 2000),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
