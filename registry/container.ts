// The container provider: the same distribution binary and harness config,
// run in a Docker container through testcontainers. Nothing is pulled: the
// image is built locally (container-image.ts). The container uses host
// networking and the registry's dir bind-mounted at the same path, so the
// config's listen address, certificates and htpasswd mean the same inside and
// out: the same address, TLS and auth as the process provider, and a port
// already taken fails the same way (distribution's own "address already in
// use", which the harness answers with the next free port).
//
// A registry's lifetime is credprov's, not Ryuk's (off, see docker-runtime.ts):
// - `registry up` containers are in the registry's state file, removed by
//   `registry down` from any shell;
// - in-process containers carry their owner's pid in a label, and the next
//   container registry started on that daemon removes those whose owner died
//   (the pid-owner rule of /etc/hosts lines, state.ts).
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { PrerequisiteError } from '../src/core/errors.ts';
import { noopLogger, type Logger } from '../src/core/logger.ts';
import { runnableModule } from '../src/core/package-layout.ts';
import { silentProgress } from '../src/core/progress.ts';
import { pidExists, terminate, type OwnedProcess } from '../src/core/pids.ts';
import { ensureRegistryImage, libraryDeps } from './container-image.ts';
import { LogCapture } from './container-logs.ts';
import { ReadyCheckWait } from './container-wait.ts';
import {
  dockerHost,
  dockerRuntime,
  pingDocker,
  removeById,
  type DockerRuntime,
  type Testcontainers,
} from '../src/engine/docker-runtime.ts';
import { DEFAULT_BINARY } from './process.ts';
import type { Availability, RegistryProvider } from './provider.ts';
import { LISTENING, type RegistryRunner, type RunHandle } from './runner.ts';
import { HarnessRegistry } from './started.ts';

export interface ContainerProviderOptions {
  /** The Docker daemon, e.g. unix:///tmp/x/docker.sock for a private one (default $DOCKER_HOST, else /var/run/docker.sock). */
  dockerHost?: string;
  /** The distribution binary copied into the image. */
  binary?: string;
  logger?: Logger;
}

export const REGISTRY_LABEL = 'io.credprov.registry';
/** Set on in-process containers only: a `registry up` container belongs to its state file. */
export const OWNER_LABEL = 'io.credprov.owner-pid';
/** A container start on a loaded 2-core machine: creating, starting and the registry's own start. */
const READY_TIMEOUT_MS = 30_000;
const LOG_MAIN = runnableModule('./container-log-main.ts', import.meta.url);

export function containerProvider(o: ContainerProviderOptions = {}): RegistryProvider {
  const host = dockerHost(o.dockerHost);
  const binary = o.binary ?? DEFAULT_BINARY;
  let availability: Promise<Availability> | undefined;
  const isAvailable = () => (availability ??= probe(host, binary));
  return {
    name: 'container',
    isAvailable,
    async start(spec) {
      const a = await isAvailable();
      if (!a.ok)
        throw new PrerequisiteError(`the container provider cannot run here: ${a.reason}`, {
          hint: 'use the process provider, or point DOCKER_HOST at a running dockerd (setup.sh installs docker.io but starts none)',
        });
      const log = spec.logger ?? o.logger ?? noopLogger;
      const rt = await dockerRuntime(host);
      await removeOrphans(rt, log);
      const { ref: image } = await ensureRegistryImage(rt, binary, spec.progress ?? silentProgress);
      return HarnessRegistry.start(containerRunner(rt, image, spec.name), { ...spec, logger: log });
    },
  };
}

// Costly probes are cached per provider (kind's Info pattern). No testcontainers here: `registry ls` and provider detection stay fast.
async function probe(host: string, binary: string): Promise<Availability> {
  if (
    !(await access(binary).then(
      () => true,
      () => false,
    ))
  )
    return { ok: false, reason: `${binary} not found (apt-get install docker-registry)` };
  const deps = await libraryDeps(binary).catch((e: Error) => e);
  if (deps instanceof Error) return { ok: false, reason: `cannot package ${binary}: ${deps.message}` };
  const ping = await pingDocker(host);
  return ping.ok ? { ok: true } : { ok: false, reason: ping.reason };
}

/** testcontainers' GenericContainer, told the container's id once it exists: state records it before the start, so nothing escapes teardown. */
function registryContainer(tc: Testcontainers, image: string, created: (id: string) => Promise<void>) {
  class RegistryContainer extends tc.GenericContainer {
    protected override async containerCreated(id: string): Promise<void> {
      await created(id);
    }
  }
  return new RegistryContainer(image);
}

function containerRunner(rt: DockerRuntime, image: string, name: string): RegistryRunner {
  const { tc } = rt;
  const docker = { host: rt.host };
  const captures = new Map<string, LogCapture>();
  const runner: RegistryRunner = {
    kind: 'container',
    async run(req) {
      const logs = new LogCapture(req.logFile);
      let id: string | undefined;
      const container = registryContainer(tc, image, async (created) => {
        id = created;
        captures.set(created, logs);
        await req.record({ containerId: created, docker });
      })
        .withName(`credprov-registry-${name}-${randomBytes(3).toString('hex')}`)
        .withLabels({ [REGISTRY_LABEL]: name, ...(req.detached ? {} : { [OWNER_LABEL]: String(process.pid) }) })
        .withNetworkMode('host')
        .withBindMounts([{ source: req.dir, target: req.dir }])
        .withCommand(['serve', req.configPath])
        .withPullPolicy(tc.PullPolicy.neverPull())
        // No reaper session: credprov removes its containers (state file, owner label).
        .withAutoCleanup(false)
        .withLogConsumer(logs.capture)
        .withWaitStrategy(
          tc.Wait.forAll([
            tc.Wait.forLogMessage(LISTENING),
            new ReadyCheckWait(req.ready, { ...req.target, exited: logs.ended }),
          ]),
        )
        .withStartupTimeout(READY_TIMEOUT_MS);
      try {
        await container.start();
      } catch (err) {
        // A failed wait: testcontainers removed the container. A failed start: it did not, and the harness's teardown may never learn of it if record() failed.
        if (id) await removeById(rt, id).catch(() => {});
        // Its last words (e.g. address in use) must reach the log file before the harness reads it.
        await logs.flushed(2000);
        throw err;
      }
      const handle: RunHandle = { containerId: id!, docker };
      if (req.detached) {
        // This process is about to exit: a detached follower keeps the log file growing.
        await logs.close();
        handle.process = followLogs(rt.host, id!, req.logFile);
        await req.record(handle);
      }
      return handle;
    },
    async stop(h) {
      if (h.process) await terminate(h.process);
      if (h.containerId) await runner.removeContainer!(h.containerId);
    },
    async removeContainer(id) {
      await removeById(rt, id);
      // The output ends with the container; a restart truncates the file next, so the old tail must be written first.
      await captures.get(id)?.flushed(2000);
      captures.delete(id);
    },
  };
  return runner;
}

function followLogs(host: string, id: string, logFile: string): OwnedProcess {
  // Its own complaints (a daemon gone, say) beside the log it keeps, as the token server's are.
  const fd = openSync(join(dirname(logFile), 'log-follower.log'), 'a');
  const child = spawn(process.execPath, [LOG_MAIN, host, id, logFile], { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.on('error', () => {});
  child.unref();
  return { pid: child.pid!, match: id };
}

/** Registry containers of in-process owners that died (a killed test run): removed, as Ryuk would have. Local daemons only: a pid means nothing elsewhere. */
async function removeOrphans(rt: DockerRuntime, log: Logger): Promise<void> {
  if (!rt.host.startsWith('unix://')) return;
  // The container client's dockerode: testcontainers' own list() shows running containers only, and a crashed registry's stays behind too.
  const all = await rt.client.container.dockerode.listContainers({
    all: true,
    filters: { label: [REGISTRY_LABEL, OWNER_LABEL] },
  });
  for (const c of all) {
    const owner = Number(c.Labels[OWNER_LABEL]);
    if (!Number.isInteger(owner) || pidExists(owner)) continue;
    log.info(
      `removing registry container ${c.Id.slice(0, 12)} (${c.Labels[REGISTRY_LABEL]}): its owner, pid ${owner}, is gone`,
    );
    await removeById(rt, c.Id).catch((e: Error) => log.warn(e.message));
  }
}
