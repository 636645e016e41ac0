// The container provider: the same distribution binary and harness config,
// run in a Docker container. No image is pulled (Docker Hub may be out of
// reach): credprov builds `credprov/registry:<digest>` from this machine's
// docker-registry binary and its libc, loads it with `docker load`, and runs it
// with host networking and the registry's dir bind-mounted at the same path,
// so config paths and listen addresses mean the same inside and out.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { CommandError, PrerequisiteError } from '../src/core/errors.ts';
import { noopLogger, type Logger } from '../src/core/logger.ts';
import { buildImage, type BuiltImage } from './image/build.ts';
import { exportImageTar } from './image/export.ts';
import type { TarEntry } from './image/tar.ts';
import { DEFAULT_BINARY } from './process.ts';
import type { Availability, RegistryProvider } from './provider.ts';
import type { RegistryRunner, RunHandle } from './runner.ts';
import { HarnessRegistry } from './started.ts';

export interface ContainerProviderOptions {
  /** docker CLI (default `docker` on PATH). */
  docker?: string;
  /** DOCKER_HOST for a private daemon, e.g. unix:///tmp/x/docker.sock. */
  dockerHost?: string;
  /** The distribution binary copied into the image. */
  binary?: string;
  logger?: Logger;
}

export function containerProvider(o: ContainerProviderOptions = {}): RegistryProvider {
  // Recorded in state, so `registry down` from another shell reaches the same daemon.
  const docker = new DockerCli(o.docker ?? 'docker', o.dockerHost ?? (process.env.DOCKER_HOST || undefined));
  const binary = o.binary ?? DEFAULT_BINARY;
  let availability: Promise<Availability> | undefined;
  const isAvailable = () => (availability ??= probe(docker, binary));
  return {
    name: 'container',
    isAvailable,
    async start(spec) {
      const a = await isAvailable();
      if (!a.ok) throw new PrerequisiteError(`the container provider cannot run here: ${a.reason}`, { hint: 'use the process provider, or start dockerd' });
      const image = await ensureRegistryImage(docker, binary);
      return HarnessRegistry.start(containerRunner(docker, image, spec.name), { ...spec, logger: spec.logger ?? o.logger ?? noopLogger });
    },
  };
}

// Costly probes are cached per provider (kind's Info pattern).
async function probe(docker: DockerCli, binary: string): Promise<Availability> {
  const r = await docker.run(['version', '--format', '{{.Server.Version}}']);
  if (r.spawnError) return { ok: false, reason: `${docker.cli} not found` };
  if (r.exitCode !== 0) return { ok: false, reason: `no Docker daemon answers (${firstLine(r.output)})` };
  const deps = await libraryDeps(binary).catch((e: Error) => e);
  if (deps instanceof Error) return { ok: false, reason: `cannot package ${binary}: ${deps.message}` };
  return { ok: true };
}

export class DockerCli {
  readonly cli: string;
  readonly host: string | undefined;
  constructor(cli: string, host?: string) {
    this.cli = cli;
    this.host = host;
  }
  env(): NodeJS.ProcessEnv {
    return this.host ? { DOCKER_HOST: this.host } : {};
  }
  async run(args: string[]): Promise<{ exitCode: number | undefined; output: string; spawnError: boolean }> {
    const r = await execa(this.cli, args, { reject: false, all: true, env: this.env(), timeout: 120_000 });
    return { exitCode: r.exitCode, output: String(r.all ?? ''), spawnError: (r as { code?: string }).code === 'ENOENT' };
  }
  async must(args: string[], what: string): Promise<string> {
    const r = await this.run(args);
    if (r.exitCode !== 0) throw new CommandError(`${what} failed`, { argv: [this.cli, ...args], output: r.output, ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }) });
    return r.output.trim();
  }
}

/** Shared libraries a dynamically linked binary needs (ldd), so the image carries them. */
async function libraryDeps(binary: string): Promise<string[]> {
  const r = await execa('ldd', [binary], { reject: false, all: true });
  const text = String(r.all ?? '');
  if (/not a dynamic executable|statically linked/.test(text)) return [];
  if (r.exitCode !== 0) throw new Error(firstLine(text));
  return [...text.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
}

/** credprov/registry:<short digest>: docker-registry + its libraries + busybox sh (for log redirection). */
export async function registryImage(binary = DEFAULT_BINARY): Promise<BuiltImage> {
  const files = [binary, ...(await libraryDeps(binary)), '/bin/busybox'];
  const dirs = new Set<string>();
  const entries: TarEntry[] = [];
  for (const f of files) {
    const parts = f.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
    entries.push({ type: 'file', path: f === binary ? 'usr/bin/docker-registry' : f.slice(1), data: await readFile(f), mode: 0o755 });
  }
  dirs.add('usr/bin');
  dirs.add('usr');
  dirs.add('tmp');
  const layer: TarEntry[] = [...[...dirs].sort().map((d): TarEntry => ({ type: 'dir', path: d })), ...entries, { type: 'symlink', path: 'bin/sh', target: 'busybox' }];
  if (!dirs.has('bin')) layer.unshift({ type: 'dir', path: 'bin' });
  const image = buildImage({ name: 'credprov/registry', tag: 'latest', layers: [layer], entrypoint: ['/usr/bin/docker-registry'], labels: { 'io.credprov.image': 'registry' } });
  return { ...image, tag: image.manifest.digest.slice('sha256:'.length, 'sha256:'.length + 12) };
}

async function ensureRegistryImage(docker: DockerCli, binary: string): Promise<string> {
  const image = await registryImage(binary);
  const ref = `${image.name}:${image.tag}`;
  if ((await docker.run(['image', 'inspect', ref])).exitCode === 0) return ref;
  const dir = await mkdtemp(join(tmpdir(), 'credprov-image-'));
  try {
    const tar = join(dir, 'registry.tar');
    await exportImageTar(image, tar, ref);
    await docker.must(['load', '-i', tar], `docker load of ${ref}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return ref;
}

// In-process (non-detached) containers go when this process exits, like child processes.
const removeAtExit = new Map<string, DockerCli>();
process.once('exit', () => {
  for (const [id, d] of removeAtExit) spawnSync(d.cli, ['rm', '-f', id], { env: { ...process.env, ...d.env() }, stdio: 'ignore' });
});

function containerRunner(docker: DockerCli, image: string, name: string): RegistryRunner {
  const waiters = new Map<string, ChildProcess>();
  return {
    kind: 'container',
    async run(req) {
      const cname = `credprov-registry-${name}`;
      await docker.run(['rm', '-f', cname]);
      const id = await docker.must([
        'run', '-d', '--name', cname, '--network', 'host', '--label', `io.credprov.registry=${name}`,
        '-v', `${req.dir}:${req.dir}`, '--entrypoint', '/bin/sh', image,
        '-c', 'exec /usr/bin/docker-registry serve "$0" >>"$1" 2>&1', req.configPath, req.logFile,
      ], `docker run of registry ${name}`);
      let exited: string | undefined;
      // `docker wait` returns when the container stops: that is how readiness learns it died.
      const waiter = spawn(docker.cli, ['wait', id], { env: { ...process.env, ...docker.env() }, stdio: ['ignore', 'pipe', 'ignore'] });
      let code = '';
      waiter.stdout?.on('data', (d: Buffer) => (code += d.toString()));
      waiter.on('exit', () => {
        waiters.delete(id);
        if (code.trim()) exited = `registry container ${id.slice(0, 12)} exited (code ${code.trim()})`;
      });
      // Neither the waiter nor its pipe may keep a `registry up` process alive.
      waiter.unref();
      (waiter.stdout as unknown as { unref?: () => void } | null)?.unref?.();
      waiters.set(id, waiter);
      if (!req.detached) removeAtExit.set(id, docker);
      const handle: RunHandle = { containerId: id, docker: { cli: docker.cli, ...(docker.host ? { host: docker.host } : {}) }, exited: () => exited };
      return handle;
    },
    async stop(h) {
      if (h.containerId) await this.removeContainer!(h.containerId);
    },
    async removeContainer(id) {
      waiters.get(id)?.kill();
      removeAtExit.delete(id);
      const r = await docker.run(['rm', '-f', id]);
      if (r.exitCode !== 0 && !/No such container/i.test(r.output)) throw new CommandError(`docker rm -f ${id.slice(0, 12)} failed`, { argv: [docker.cli, 'rm', '-f', id], output: r.output });
    },
  };
}

/** Removes a container recorded in state (`registry down` from another process). */
export async function removeContainer(docker: { cli: string; host?: string }, id: string): Promise<void> {
  const r = await new DockerCli(docker.cli, docker.host).run(['rm', '-f', id]);
  if (r.exitCode !== 0 && !/No such container/i.test(r.output)) throw new CommandError(`docker rm -f ${id.slice(0, 12)} failed`, { argv: [docker.cli, 'rm', '-f', id], output: r.output });
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}
