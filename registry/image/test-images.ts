// The harness's own test images, built from files on this machine:
// - busybox: Debian's static busybox, prints a marker and exits (a pull + run proves the image);
// - pause: a static Go binary that holds a pod sandbox and exits on SIGTERM/SIGINT.
import { createHash } from 'node:crypto';
import { access, mkdir, readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { CommandError, PrerequisiteError } from '../../src/core/errors.ts';
import { cacheDir } from '../../src/core/paths.ts';
import { buildImage, type BuiltImage } from './build.ts';
import type { TarEntry } from './tar.ts';

export const DEFAULT_MARKER = 'credprov-image-ok';
export const BUSYBOX_PATH = '/bin/busybox';

export interface BusyboxOptions {
  name?: string;
  tag?: string;
  /** Printed by the default command; a test finds it in the container's output. */
  marker?: string;
  busyboxPath?: string;
}

export async function busyboxImage(o: BusyboxOptions = {}): Promise<BuiltImage> {
  const path = o.busyboxPath ?? BUSYBOX_PATH;
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch {
    throw new PrerequisiteError(`static busybox not found at ${path}`, { hint: 'apt-get install busybox-static' });
  }
  const applets = ['sh', 'echo', 'sleep', 'cat', 'ls', 'env', 'true'];
  const entries: TarEntry[] = [
    { type: 'dir', path: 'bin' },
    { type: 'dir', path: 'tmp', mode: 0o1777 },
    { type: 'dir', path: 'etc' },
    { type: 'file', path: 'bin/busybox', data, mode: 0o755 },
    ...applets.map((a): TarEntry => ({ type: 'symlink', path: `bin/${a}`, target: 'busybox' })),
    { type: 'file', path: 'etc/passwd', data: 'root:x:0:0:root:/:/bin/sh\n' },
  ];
  return buildImage({
    name: o.name ?? 'credprov/busybox',
    tag: o.tag ?? 'latest',
    layers: [entries],
    cmd: ['/bin/busybox', 'echo', o.marker ?? DEFAULT_MARKER],
    labels: { 'io.credprov.image': 'busybox' },
  });
}

export interface PauseOptions {
  name?: string;
  tag?: string;
  /** Where the compiled binary is cached (default: <cacheDir>/pause/<source hash>/pause). */
  cache?: string;
}

export async function pauseImage(o: PauseOptions = {}): Promise<BuiltImage> {
  const binary = await pauseBinary(o.cache);
  return buildImage({
    name: o.name ?? 'credprov/pause',
    tag: o.tag ?? 'latest',
    layers: [[{ type: 'file', path: 'pause', data: await readFile(binary), mode: 0o755 }]],
    entrypoint: ['/pause'],
    labels: { 'io.credprov.image': 'pause' },
  });
}

const PAUSE_SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'pause', 'main.go');

/** Compiles the pause binary once per source version; later calls reuse the cache. */
export async function pauseBinary(cache = join(cacheDir(), 'pause')): Promise<string> {
  const source = await readFile(PAUSE_SOURCE);
  const key = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const out = join(cache, key, 'pause');
  if (
    await access(out).then(
      () => true,
      () => false,
    )
  )
    return out;
  await mkdir(dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  const argv = ['build', '-trimpath', '-ldflags=-s -w', '-o', tmp, PAUSE_SOURCE];
  const r = await execa('go', argv, {
    env: { CGO_ENABLED: '0', GO111MODULE: 'on', GOFLAGS: '-mod=mod' },
    reject: false,
    all: true,
  });
  if (r.failed) {
    if ((r as { code?: string }).code === 'ENOENT')
      throw new PrerequisiteError('go is needed to build the pause image', {
        hint: 'install Go (https://go.dev/dl) or put it on PATH',
      });
    throw new CommandError('building the pause binary failed', {
      argv: ['go', ...argv],
      output: String(r.all ?? ''),
      ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }),
    });
  }
  await rename(tmp, out);
  return out;
}
