// Finding or making the environment a suite needs: reuse a running one whose
// spec matches, restart only its kubelet when only kubelet-side fields differ,
// otherwise bring a fresh one up (tearing down whatever ran under that name).
import type { EnvironmentSpec, ProviderName } from '../api/spec/types.ts';
import { compareSpecs } from '../api/spec/compare.ts';
import type { Logger } from '../core/logger.ts';
import type { Progress } from '../core/progress.ts';
import { readEnvironment, listEnvironmentNames, resolveProvider } from '../cluster/detect.ts';
import type { Environment, EnvironmentProvider, KubeletChange } from '../cluster/provider.ts';

export interface Ensured {
  environment: Environment;
  provider: EnvironmentProvider;
  /** What happened: reused as is, kubelet restarted, or brought up by us. */
  action: 'reused' | 'restarted-kubelet' | 'brought-up';
}

export interface EnsureOptions {
  log: Logger;
  progress: Progress;
  processEnv: NodeJS.ProcessEnv;
  keepOnFailure?: boolean;
  /** Test seam: picks the provider (default: detection by name). */
  providerFor?: (name: ProviderName | 'auto') => Promise<EnvironmentProvider>;
}

export async function ensureEnvironment(wanted: EnvironmentSpec, o: EnsureOptions): Promise<Ensured> {
  const running = await readEnvironment(wanted.name, o.processEnv);
  const providerName = wanted.provider === 'auto' ? (running?.provider ?? 'auto') : wanted.provider;
  const provider = await (o.providerFor ?? ((n) => resolveProvider(n, { log: o.log, env: o.processEnv })))(
    providerName,
  );
  if (running && running.provider === provider.name) {
    const status = await provider.status(running);
    const delta = compareSpecs(running.spec, wanted);
    if (status.ready && delta === 'same') return { environment: running, provider, action: 'reused' };
    if (status.ready && delta === 'kubelet' && provider.capabilities().restartKubelet) {
      const environment = await provider.restartKubelet(running, kubeletChange(wanted), o.progress);
      return { environment, provider, action: 'restarted-kubelet' };
    }
    o.log.info(
      `environment '${wanted.name}' ${status.ready ? 'does not match the spec' : 'is not healthy'}; bringing up a new one`,
    );
  }
  if (running || (await listEnvironmentNames(o.processEnv)).includes(wanted.name))
    await provider.down(running ?? wanted.name, o.progress);
  const environment = await provider.up(wanted, o.progress, { keep: o.keepOnFailure ?? false });
  return { environment, provider, action: 'brought-up' };
}

export function kubeletChange(wanted: EnvironmentSpec): KubeletChange {
  return {
    kubelet: wanted.kubelet,
    featureGates: wanted.featureGates.kubelet,
    credentialProvider: wanted.credentialProvider ?? null,
  };
}
