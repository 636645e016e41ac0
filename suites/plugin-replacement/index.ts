// The plugin-replacement suite: a credential provider binary replaced while
// the kubelet runs, as a DaemonSet installer does (k/k #120291). The kubelet
// joins the plugin's path at every exec, so a binary renamed over it runs at
// the next uncached pull and the cache survives; a copy onto the running file
// fails with ETXTBSY, and an exec while it is open for writing gets no
// credentials. Issue 30 item 7; certify kubelet-plugin --live states the
// installer advice this proves (INSTALLER_ADVICE).
import { randomBytes } from 'node:crypto';
import { chmod, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ensureVersionedPlugins,
  pluginDir,
  runCases,
  startLabRegistry,
  versionedPluginEnv,
  type PreparedSuite,
  type Suite,
  type SuiteSetup,
} from '../../src/run/kit.ts';
import { storyCase } from './cases.ts';
import { PLUGIN_REPLACEMENT_CHECKS } from './checks.ts';
import { CACHE_DURATION, hostFor, PROVIDER, REPOSITORIES, SLOW, VERSIONS, ZONE } from './plan.ts';

export const pluginReplacementSuite: Suite = {
  name: 'plugin-replacement',
  summary:
    'a credential provider binary replaced while the kubelet runs: rename over it (the next exec runs it, the cache survives), never copy onto it (ETXTBSY)',
  checks: PLUGIN_REPLACEMENT_CHECKS,
  optIn:
    "a field path for release qualification (issue 30): it builds a compiled plugin with the machine's Go and replaces it in the kubelet's bin dir",
  async prepare(ctx: SuiteSetup): Promise<PreparedSuite> {
    const id = randomBytes(3).toString('hex');
    const lab = await ctx.own(startLabRegistry(ctx, 'upg'));
    for (const repo of REPOSITORIES) await lab.push(repo);
    const binaries = await ensureVersionedPlugins([...VERSIONS]);
    // The kubelet's bin dir links to a copy: replacing the plugin there never writes the cached build.
    const dir = await pluginDir(ctx, 'upg');
    const installed = join(dir, `${PROVIDER}-v1`);
    await copyFile(binaries.v1!, installed);
    await chmod(installed, 0o755);
    const log = join(dir, 'execs.jsonl');
    const env = versionedPluginEnv({
      log,
      username: lab.user.username,
      password: lab.user.password,
      cacheDuration: CACHE_DURATION,
      slow: SLOW,
    });
    const config = {
      apiVersion: 'kubelet.config.k8s.io/v1',
      kind: 'CredentialProviderConfig',
      providers: [
        {
          name: PROVIDER,
          apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
          matchImages: [`*.${ZONE}`],
          defaultCacheDuration: CACHE_DURATION,
          env,
        },
      ],
    };
    const host = hostFor(id);
    return {
      needs: ['installPlugins', 'hostRegistries'],
      spec: { credentialProvider: { plugins: { [PROVIDER]: installed }, config } },
      async run(run) {
        await lab.serveAs(run, host);
        return runCases(run, [storyCase({ id, host, log, binaries })]);
      },
    };
  },
};
