import { describe, expect, test } from '@jest/globals';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { noopLogger } from '../core/logger.ts';
import { silentProgress } from '../core/progress.ts';
import type { VendorPluginRecipe } from '../plugin/vendors/build.ts';
import { useTempDir } from '../testing/tmp.ts';
import { vendorPlugin } from './vendor-plugins.ts';

const tmp = useTempDir('credprov-vendor-plugins-');
const recipe: VendorPluginRecipe = {
  binary: 'fake-credential-provider',
  module: 'example.com/fake',
  packageDir: './cmd/fake',
  ldflags: () => '',
};

describe('vendorPlugin', () => {
  test("the build in the run's own cache dir (CREDPROV_CACHE_DIR), found there without building", async () => {
    const cache = tmp();
    const dir = join(cache, 'plugins', recipe.binary, 'v1.2.3');
    await mkdir(dir, { recursive: true });
    const script = '#!/bin/sh\necho fake\n';
    await writeFile(join(dir, recipe.binary), script);
    await chmod(join(dir, recipe.binary), 0o755);
    await writeFile(
      join(dir, 'manifest.json'),
      JSON.stringify({
        version: 'v1.2.3',
        source: 'build',
        origin: recipe.module,
        binaries: { [recipe.binary]: { sha256: '', size: script.length } },
        createdAt: '2026-01-01T00:00:00Z',
        durationMs: 1,
      }),
    );
    const ctx = { processEnv: { CREDPROV_CACHE_DIR: cache }, progress: silentProgress, log: noopLogger };
    const plugin = await vendorPlugin(ctx, recipe, 'v1.2.3');
    expect(plugin).toMatchObject({ path: join(dir, recipe.binary), version: 'v1.2.3', fromCache: true });
  });

  test('a version that is not exact is refused before any build', async () => {
    const ctx = { processEnv: { CREDPROV_CACHE_DIR: tmp() }, progress: silentProgress, log: noopLogger };
    await expect(vendorPlugin(ctx, recipe, 'latest')).rejects.toThrow(
      /'latest' is not an exact example.com\/fake version/,
    );
  });
});
