// A real vendor plugin, unmodified, as a suite runs it: built from the Go
// module proxy into credprov's cache on first use (a step of its own in the
// progress output), never skipped for a build credprov can do itself.
import { ensureVendorPlugin, type VendorPluginBinary, type VendorPluginRecipe } from '../plugin/vendors/build.ts';
import { cacheDir } from '../core/paths.ts';
import type { SuiteSetup } from './suite.ts';

/** The plugin `recipe` builds, at `version`, from credprov's cache (built there first when missing). */
export async function vendorPlugin(
  ctx: Pick<SuiteSetup, 'processEnv' | 'progress' | 'log'>,
  recipe: VendorPluginRecipe,
  version: string,
): Promise<VendorPluginBinary> {
  const plugin = await ensureVendorPlugin(recipe, {
    version,
    cacheDir: cacheDir(ctx.processEnv),
    progress: ctx.progress,
    log: ctx.log,
  });
  if (!plugin) throw new Error(`${recipe.binary} ${version} was neither cached nor built`);
  return plugin;
}
