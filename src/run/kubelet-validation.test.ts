import { expect, test } from '@jest/globals';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '../cluster/provider.ts';
import { noopLogger } from '../core/logger.ts';
import { silentProgress } from '../core/progress.ts';
import { validateKubeletConfig } from './kubelet-validation.ts';

test("the environment's kubelet binary is run on the config, and its validation errors read back", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'credprov-kubelet-validation-'));
  try {
    // A stand-in for the kubelet: it prints validation errors the way the real one does.
    const kubelet = join(dir, 'kubelet');
    await writeFile(
      kubelet,
      '#!/bin/sh\necho "E1 run.go] failed to validate kubelet configuration, error: [invalid x, imageGCHighThresholdPercent 101], path: &TypeMeta{}"\nexit 1\n',
    );
    await chmod(kubelet, 0o755);
    const env = { binDir: dir, kubeVersion: 'v1.37.1' } as Environment;
    const ctx = { processEnv: {}, progress: silentProgress, log: noopLogger, artifactsDir: dir };
    const v = await validateKubeletConfig(ctx, env, 'kind: KubeletConfiguration\n');
    expect(v).toMatchObject({ binary: kubelet, errors: 'invalid x, imageGCHighThresholdPercent 101' });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
