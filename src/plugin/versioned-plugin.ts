// The versioned plugin (versioned-plugin/main.go): one compiled credential
// provider per version string, built with the machine's Go (standard library
// only, CGO off: a warm Go build cache makes each version a link of about a
// second) into the cache under the source's hash, and reused. The
// plugin-replacement suite swaps these under a running kubelet.
import { createHash } from 'node:crypto';
import { access, constants, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemGo } from '../cluster/binaries/go.ts';
import { PrerequisiteError } from '../core/errors.ts';
import { cacheDir as defaultCacheDir } from '../core/paths.ts';

const MAIN = join(dirname(fileURLToPath(import.meta.url)), 'versioned-plugin', 'main.go');

/** What the plugin reads from its environment (the provider entry's `env`). */
export interface VersionedPluginEnv {
  /** The JSON-lines log each exec appends to. */
  log: string;
  username: string;
  password: string;
  /** The answer's cacheDuration (a Go duration). */
  cacheDuration: string;
  /** How long an exec for a `slow` image sleeps (a Go duration). */
  slow: string;
}

/** The provider entry's env list for `e`. */
export function versionedPluginEnv(e: VersionedPluginEnv): Array<{ name: string; value: string }> {
  return [
    { name: 'CREDPROV_VP_LOG', value: e.log },
    { name: 'CREDPROV_VP_USERNAME', value: e.username },
    { name: 'CREDPROV_VP_PASSWORD', value: e.password },
    { name: 'CREDPROV_VP_CACHE', value: e.cacheDuration },
    { name: 'CREDPROV_VP_SLOW', value: e.slow },
  ];
}

/** One line of the plugin's log. */
export interface VersionedExec {
  event: 'start' | 'end';
  version: string;
  pid: number;
  image: string;
  time: string;
}

export async function readVersionedExecs(log: string): Promise<VersionedExec[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as VersionedExec);
}

/** The plugin stamped with each of `versions`: path by version, built once per source into the cache. */
export async function ensureVersionedPlugins(
  versions: string[],
  o: { cacheDir?: string } = {},
): Promise<Record<string, string>> {
  const source = await readFile(MAIN);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 12);
  const dir = join(o.cacheDir ?? defaultCacheDir(), 'plugins', 'versioned-plugin', hash);
  await mkdir(dir, { recursive: true });
  const out: Record<string, string> = {};
  for (const v of versions) {
    if (!/^[A-Za-z0-9._-]+$/.test(v)) throw new Error(`versioned plugin: version '${v}' is not a plain word`);
    const path = join(dir, `credprov-versioned-${v}`);
    const there = await access(path, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (!there) await build(source, v, path);
    out[v] = path;
  }
  return out;
}

async function build(source: Buffer, version: string, path: string): Promise<void> {
  const staging = await mkdtemp(join(dirname(path), '.staging-'));
  try {
    await writeFile(join(staging, 'main.go'), source);
    await writeFile(join(staging, 'go.mod'), 'module credprov.local/versioned-plugin\n\ngo 1.22\n');
    await systemGo({ env: { CGO_ENABLED: '0' } }).run(
      ['build', '-trimpath', '-ldflags', `-s -w -X main.version=${version}`, '-o', 'plugin', '.'],
      { cwd: staging, logFile: join(staging, 'build.log') },
    );
    // Committed by rename: a concurrent build of the same version only replaces an identical file.
    await rename(join(staging, 'plugin'), path);
  } catch (err) {
    const log = await readFile(join(staging, 'build.log'), 'utf8').catch(() => '');
    throw new PrerequisiteError(`could not build the versioned plugin ${version} with the machine's Go`, {
      cause: err,
      detail: log.slice(-2000),
      hint: 'install Go 1.22 or newer (the plugin needs only the standard library)',
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
