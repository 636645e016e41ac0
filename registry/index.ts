// registry/: authenticated OCI registries for the harness (a process or a
// container; htpasswd, token server, service-account-token exchange; their
// state on disk for `credprov registry up/down/ls`) and the test images they
// serve (registry/image: building, tarring and exporting OCI images stays here,
// beside the registries that serve them, as credprov's design notes have it).
//
// This file is registry/'s one public entry: code outside registry/ imports
// from here, never a module inside. What is not about registries lives in the
// core, not here: TLS material (src/core/tls.ts), ports (src/core/ports.ts),
// HTTP with a per-request CA (src/core/http.ts), stopping a child process
// (src/core/stop-child.ts), processes found again by pid (src/core/pids.ts).
// registry/ depends on src/core and src/engine only (its tests also on
// src/testing), never on the rest of src/; src/core/import-graph.test.ts checks it.
//
// Every import of registry/ from outside goes through this file
// (src/core/import-graph.test.ts fails on one that does not). The container
// engines the container tier runs on (dockerd, testcontainers' daemon, a private
// containerd, containerd's hosts.toml) are not registries: they live in
// src/engine/, which the kind provider uses too.
import { noopLogger, type Logger } from '../src/core/logger.ts';
import { PrerequisiteError } from '../src/core/errors.ts';
import { containerProvider, type ContainerProviderOptions } from './container.ts';
import { processProvider } from './process.ts';
import type { RegistryProvider } from './provider.ts';

export { Auth, generatedUser, parseUserFlag, type AccessRule, type AuthSpec, type User } from './auth.ts';
export { Ready, type ReadyCheck } from './ready.ts';
export { RegistryClient, canPull, type Credentials, type PullCheck } from './client.ts';
export { parseRef, formatRef, type ImageRef } from './reference.ts';
export { busyboxImage, pauseImage, pauseBinary, DEFAULT_MARKER } from './image/test-images.ts';
export { buildImage, blob, descriptor, MEDIA, type BuiltImage } from './image/build.ts';
export { listTar, tar, type TarEntry } from './image/tar.ts';
export { exportImageTar, imageArchive } from './image/export.ts';
export { trustForContainerd } from '../src/engine/containerd-hosts.ts';
export { ACCEPTED_UNNAMED, credentialsSeen, registryRequests, type RegistryRequest } from './access-log.ts';
export {
  startRecordingProxy,
  type ProxiedRegistry,
  type ProxyOptions,
  type RecordingProxy,
} from './recording-proxy.ts';
export { DEFAULT_BINARY, processProvider } from './process.ts';
export { containerProvider, OWNER_LABEL, REGISTRY_LABEL } from './container.ts';
export { ensureRegistryImage, registryImageInputs } from './container-image.ts';
export { removeContainer } from '../src/engine/docker-runtime.ts';
export {
  defaultHostname,
  NAME_RE,
  type RegistryProvider,
  type RegistrySpec,
  type StartedRegistry,
  type UserAdmin,
} from './provider.ts';
export {
  listStates,
  orphanedRegistries,
  ownerPidOf,
  pruneOrphanedRegistries,
  pruneRegistryHosts,
  readState,
  registriesDir,
  teardown,
  writeState,
  type RegistryState,
} from './state.ts';
export { stopInProcessRegistries } from './started.ts';
export { grantedAccess, type TokenServer } from './token-server.ts';
export {
  EXCHANGE_USERNAME,
  ServiceAccountTokenAuth,
  type ClusterIdentity,
  type OidcDiscovery,
  type ServiceAccountIdentity,
  type TokenReviewStatus,
  type Validation,
} from './sa-token-auth.ts';

/** The first available provider in order (process, then container); each one passed over is logged with its reason. */
export async function detectRegistryProvider(
  o: { order?: Array<'process' | 'container'>; logger?: Logger; container?: ContainerProviderOptions } = {},
): Promise<RegistryProvider> {
  const log = o.logger ?? noopLogger;
  const reasons: string[] = [];
  for (const name of o.order ?? ['process', 'container']) {
    const p =
      name === 'process' ? processProvider({ logger: log }) : containerProvider({ ...o.container, logger: log });
    const a = await p.isAvailable();
    if (a.ok) return p;
    log.info(`registry provider ${name} passed over: ${a.reason}`);
    reasons.push(`${name}: ${a.reason}`);
  }
  throw new PrerequisiteError(`no registry provider can run here (${reasons.join('; ')})`, {
    hint: 'apt-get install docker-registry',
  });
}
