// Credential provider plugins go into the kubelet's --image-credential-provider-bin-dir
// as symlinks (the kubelet execs <binDir>/<name>; node e2e uses a symlink too),
// and an inline provider config is written out for --image-credential-provider-config.
import { access, constants, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { providerConfigText } from '../../../api/credentialprovider/config-text.ts';
import { ConfigError } from '../../../core/errors.ts';
import type { Step } from '../context.ts';

export const installPlugins: Step = {
  name: 'install credential provider plugins',
  async run(ctx) {
    const cp = ctx.node.spec.credentialProvider;
    const dir = ctx.node.files.pluginBin;
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    if (!cp) return;
    for (const [name, path] of Object.entries(cp.plugins)) {
      const target = resolve(path);
      try {
        await access(target, constants.X_OK);
      } catch {
        throw new ConfigError(`plugin '${name}' is not an executable file: ${target}`, {
          problems: [
            { field: `credentialProvider.plugins.${name}`, message: `expected an executable file, got ${target}` },
          ],
        });
      }
      await symlink(target, join(dir, name));
    }
    if (cp.config) await writeFile(ctx.node.files.credentialProviderConfig, providerConfigText(cp.config));
  },
};
