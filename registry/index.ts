// The registry facade: what suites and the cluster code import.
import { noopLogger, type Logger } from '../src/core/logger.ts';
import { PrerequisiteError } from '../src/core/errors.ts';
import { containerProvider, type ContainerProviderOptions } from './container.ts';
import { processProvider } from './process.ts';
import type { RegistryProvider } from './provider.ts';

export { Auth, generatedUser, type AccessRule, type AuthSpec, type User } from './auth.ts';
export { Ready, type ReadyCheck } from './ready.ts';
export { RegistryClient, canPull, type Credentials, type PullCheck } from './client.ts';
export { busyboxImage, pauseImage, pauseBinary, DEFAULT_MARKER } from './image/test-images.ts';
export { buildImage, type BuiltImage } from './image/build.ts';
export { exportImageTar, imageArchive } from './image/export.ts';
export { trustForContainerd } from './containerd-hosts.ts';
export { processProvider } from './process.ts';
export { containerProvider } from './container.ts';
export type { RegistryProvider, RegistrySpec, StartedRegistry, UserAdmin } from './provider.ts';

/** The first available provider in order (process, then container); each one passed over is logged with its reason. */
export async function detectRegistryProvider(o: { order?: Array<'process' | 'container'>; logger?: Logger; container?: ContainerProviderOptions } = {}): Promise<RegistryProvider> {
  const log = o.logger ?? noopLogger;
  const reasons: string[] = [];
  for (const name of o.order ?? ['process', 'container']) {
    const p = name === 'process' ? processProvider({ logger: log }) : containerProvider({ ...o.container, logger: log });
    const a = await p.isAvailable();
    if (a.ok) return p;
    log.info(`registry provider ${name} passed over: ${a.reason}`);
    reasons.push(`${name}: ${a.reason}`);
  }
  throw new PrerequisiteError(`no registry provider can run here (${reasons.join('; ')})`, { hint: 'apt-get install docker-registry' });
}
