// The registry's image, built locally so nothing is pulled: this machine's
// docker-registry binary and the libraries ldd names, on an empty base
// (FROM scratch). testcontainers builds it through the daemon's build API
// (GenericContainer.fromDockerfile), which needs no docker CLI and no tar of
// our own. The tag is a digest of the inputs, so a daemon that has the image
// skips the build, and a changed binary gets a new image.
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { CredprovError } from '../src/core/errors.ts';
import { silentProgress, step, type Progress } from '../src/core/progress.ts';
import type { DockerRuntime } from '../src/engine/docker-runtime.ts';

export const REGISTRY_IMAGE = 'credprov/registry';
/** Where the binary sits in the image, whatever its path on this machine. */
export const IMAGE_BINARY = '/usr/bin/docker-registry';

export interface ImageInputs {
  /** Host path → path inside the image. */
  files: Array<{ from: string; to: string }>;
  dockerfile: string;
  /** `credprov/registry:<12 hex digits of the inputs' sha256>`. */
  ref: string;
}

/** Shared libraries a dynamically linked binary needs (ldd), so the image carries them. */
export async function libraryDeps(binary: string): Promise<string[]> {
  const r = await execa('ldd', [binary], { reject: false, all: true });
  const text = String(r.all ?? '');
  if (/not a dynamic executable|statically linked/.test(text)) return [];
  if (r.exitCode !== 0) throw new CredprovError(`ldd ${binary} failed: ${text.trim().split('\n')[0] ?? ''}`);
  return [...text.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]!);
}

export async function registryImageInputs(binary: string): Promise<ImageInputs> {
  const libs = await libraryDeps(binary);
  const files = [{ from: binary, to: IMAGE_BINARY }, ...libs.map((l) => ({ from: l, to: l }))];
  const dockerfile = [
    'FROM scratch',
    'COPY rootfs/ /',
    'LABEL io.credprov.image=registry',
    `ENTRYPOINT ["${IMAGE_BINARY}"]`,
    '',
  ].join('\n');
  const hash = createHash('sha256').update(dockerfile);
  for (const f of files) hash.update(`\0${f.to}\0`).update(await readFile(f.from));
  return { files, dockerfile, ref: `${REGISTRY_IMAGE}:${hash.digest('hex').slice(0, 12)}` };
}

/** Writes the build context: Dockerfile and rootfs/ (symlinked libraries are copied as the files they name). */
export async function writeBuildContext(inputs: ImageInputs, dir: string): Promise<void> {
  await writeFile(join(dir, 'Dockerfile'), inputs.dockerfile);
  const rootfs = join(dir, 'rootfs');
  // /tmp: Go's os.TempDir, should anything in distribution ask for it.
  await mkdir(join(rootfs, 'tmp'), { recursive: true });
  await chmod(join(rootfs, 'tmp'), 0o1777);
  for (const f of inputs.files) {
    const to = join(rootfs, f.to);
    await mkdir(dirname(to), { recursive: true });
    await copyFile(f.from, to);
    await chmod(to, 0o755);
  }
}

/** The image's reference, built first if the daemon lacks it. */
export async function ensureRegistryImage(
  rt: DockerRuntime,
  binary: string,
  progress: Progress = silentProgress,
): Promise<{ ref: string; built: boolean }> {
  const inputs = await registryImageInputs(binary);
  if (await rt.client.image.exists(rt.tc.ImageName.fromString(inputs.ref))) return { ref: inputs.ref, built: false };
  await step(progress, `build ${inputs.ref} from ${binary}`, async () => {
    const context = await mkdtemp(join(tmpdir(), 'credprov-image-'));
    try {
      await writeBuildContext(inputs, context);
      // deleteOnExit false: the image is a cache, kept in the daemon for the next registry.
      await rt.tc.GenericContainer.fromDockerfile(context).build(inputs.ref, { deleteOnExit: false });
    } catch (err) {
      // testcontainers reports a failed build only as "Failed to build image"; the daemon's own words go to its debug log.
      throw new CredprovError(
        `building ${inputs.ref} (${binary} on scratch) in the Docker daemon at ${rt.host} failed: ${(err as Error).message}`,
        {
          cause: err,
          hint: "DEBUG=testcontainers:build shows the daemon's build output",
        },
      );
    } finally {
      await rm(context, { recursive: true, force: true });
    }
  });
  return { ref: inputs.ref, built: true };
}
