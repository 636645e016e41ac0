// A Python package from PyPI, installed once into a venv of its own under the
// cache, exactly at the version asked: awscli (`aws eks get-token`), oci-cli
// (`oci ce cluster generate-token`), kubernetes_asyncio's probe.
// <entry dir>/{venv/,manifest.json}.
//
// A venv is not relocatable (its scripts name their interpreter by absolute
// path), so unlike the Go builds it cannot be made in a staging dir and renamed:
// it is made in place under a lock, and manifest.json, written last, is what
// makes the entry usable. An entry without one is a failed install, redone.
import { execa } from 'execa';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withLock } from './cache.ts';
import { PrerequisiteError, tail } from '../../core/errors.ts';
import { noopLogger, type Logger } from '../../core/logger.ts';
import { silentProgress, step, type Progress } from '../../core/progress.ts';

export interface PypiVenvManifest {
  version: string;
  python: string;
  /** `pip freeze` of the venv: every package and version the install resolved. */
  packages: string[];
  installedAt: string;
  installSeconds: number;
}

export interface PypiVenvSpec {
  /** The PyPI distribution: awscli. */
  package: string;
  /** Exact version: 1.46.3. */
  version: string;
  /** The cache entry (its venv is <dir>/venv). */
  dir: string;
  /** The script in venv/bin the caller runs (aws, oci), or python for a library. */
  entry: string;
}

export interface PypiVenvOptions {
  progress?: Progress;
  log?: Logger;
  /** Never install: undefined when it is not cached (availability checks). */
  cachedOnly?: boolean;
  /** The interpreter the venv is made with (default python3 on PATH). */
  python?: string;
}

export interface PypiVenvInstall {
  version: string;
  /** venv/bin/<entry>. */
  path: string;
  dir: string;
  manifest: PypiVenvManifest;
  fromCache: boolean;
}

async function usable(dir: string, version: string): Promise<PypiVenvManifest | undefined> {
  const manifest = await readFile(join(dir, 'manifest.json'), 'utf8').then(
    (t) => JSON.parse(t) as PypiVenvManifest,
    () => undefined,
  );
  return manifest?.version === version ? manifest : undefined;
}

/** The cached install of `spec`, installed from PyPI first unless `cachedOnly`. */
export async function ensurePypiVenv(
  spec: PypiVenvSpec,
  o: PypiVenvOptions = {},
): Promise<PypiVenvInstall | undefined> {
  const { dir, version } = spec;
  const found = (manifest: PypiVenvManifest, fromCache: boolean): PypiVenvInstall => ({
    version,
    path: join(dir, 'venv', 'bin', spec.entry),
    dir,
    manifest,
    fromCache,
  });
  const cached = await usable(dir, version);
  if (cached || o.cachedOnly) return cached && found(cached, true);
  const progress = o.progress ?? silentProgress;
  const log = o.log ?? noopLogger;
  return withLock(
    `${dir}.lock`,
    async () => {
      // Another credprov may have installed it while this one waited.
      const meanwhile = await usable(dir, version);
      if (meanwhile) return found(meanwhile, true);
      const manifest = await step(progress, `${spec.package} ${version} from PyPI into ${dir}`, () =>
        install(spec, o.python ?? 'python3', log),
      );
      return found(manifest, false);
    },
    {
      onWait: (pid) => progress.note(`waiting for credprov pid ${pid}, which is installing ${spec.package} ${version}`),
    },
  );
}

async function install(spec: PypiVenvSpec, python: string, log: Logger): Promise<PypiVenvManifest> {
  const { dir, version } = spec;
  const started = Date.now();
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const venv = join(dir, 'venv');
  const run = async (file: string, args: string[], what: string, hint: string) => {
    const r = await execa(file, args, { reject: false, all: true, env: { PIP_NO_INPUT: '1' } });
    if (r.exitCode !== 0) {
      await rm(dir, { recursive: true, force: true });
      throw new PrerequisiteError(`${what} failed (exit ${r.exitCode ?? r.signal})`, {
        detail: tail(String(r.all ?? ''), 15),
        hint,
      });
    }
    return String(r.stdout);
  };
  await run(python, ['-m', 'venv', venv], `${python} -m venv ${venv}`, 'apt-get install python3-venv');
  const pip = join(venv, 'bin', 'pip');
  await run(
    pip,
    ['install', '--quiet', '--disable-pip-version-check', `${spec.package}==${version}`],
    `pip install ${spec.package}==${version}`,
    `${spec.package} comes from PyPI: check that PyPI is reachable (pip config, proxy)`,
  );
  const packages = (await run(pip, ['freeze', '--all'], 'pip freeze', 'the venv is broken: remove it and retry'))
    .split('\n')
    .filter(Boolean);
  const pythonVersion = (
    await run(join(venv, 'bin', 'python'), ['--version'], 'python --version', 'the venv is broken')
  ).trim();
  const manifest: PypiVenvManifest = {
    version,
    python: pythonVersion,
    packages,
    installedAt: new Date().toISOString(),
    installSeconds: Math.round((Date.now() - started) / 100) / 10,
  };
  await writeFile(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  log.debug(`${spec.package} ${version} installed in ${manifest.installSeconds}s: ${packages.join(' ')}`);
  return manifest;
}
