// The kubelet probe (kubelet-probe/main.go): the kubelet's credential provider
// code of the exact k8s.io/kubernetes version credprov builds, asked the
// questions credprov's models answer (a plugin's answer → the kubelet's
// verdict and keyring; matchImages and auth-key matching; image parsing).
//
// Build, from the Go module proxy, once per version and probe source: a
// wrapper module requiring k8s.io/kubernetes at the tag with every staging
// module pinned (src/cluster/binaries/gomod.ts, as the kube binaries are
// built); the kubelet's pkg/credentialprovider/plugin package copied from the
// module at that tag as it is, plus credprov_probe.go, which only calls its
// unexported code (Go refuses an overlay into the module cache); `go build`,
// CGO off. Cached under <cacheDir>/probes/kubelet-probe/<v1.37.1>-<sha of the
// two Go files>/ with a manifest, committed by rename under a lock, like the
// client-go probe (src/clients/client-go.ts).
import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildEntry,
  describeBinaries,
  removeStaleStaging,
  usableEntry,
  withLock,
  type KubeManifest,
} from '../cluster/binaries/cache.ts';
import { systemGo, type GoTool } from '../cluster/binaries/go.ts';
import { KUBE_MODULE, parseKubeGoMod, wrapperGoMod } from '../cluster/binaries/gomod.ts';
import { isPreRelease } from '../cluster/binaries/versions.ts';
import { preReleaseSubstitutes } from '../cluster/binaries/source-build.ts';
import { PrerequisiteError } from '../core/errors.ts';
import { cacheDir as defaultCacheDir } from '../core/paths.ts';
import { silentProgress, step, type Progress } from '../core/progress.ts';
import { DEFAULT_KUBE_VERSION } from '../versions/table.ts';
import { startJsonLines, type JsonLines } from './json-lines.ts';

export const KUBELET_PROBE = 'kubelet-probe';
const SOURCE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'kubelet-probe');
const MAIN = join(SOURCE_DIR, 'main.go');
const EXPORTS = join(SOURCE_DIR, 'credprov_probe.go');
/** The kubelet package the probe calls into, and where the wrapper module holds its copy. */
const PLUGIN_PACKAGE = 'pkg/credentialprovider/plugin';
const PROBE_MODULE = 'credprov.local/kubelet-probe';
const LOCAL_PLUGIN = `${PROBE_MODULE}/kubeletplugin`;

export function kubeletProbeRoot(cacheDir: string): string {
  return join(cacheDir, 'probes', KUBELET_PROBE);
}

/** The cache entry's name: the Kubernetes version and the probe sources (a changed probe is rebuilt). */
export async function kubeletProbeKey(kubeVersion: string): Promise<string> {
  const h = createHash('sha256');
  for (const f of [MAIN, EXPORTS]) h.update(await readFile(f));
  return `${kubeVersion}-${h.digest('hex').slice(0, 12)}`;
}

export interface KubeletProbeBinary {
  path: string;
  kubeVersion: string;
  manifest: KubeManifest;
  fromCache: boolean;
}

export interface EnsureKubeletProbeOptions {
  /** Exact release (default: credprov's default, v1.37.1). */
  kubeVersion?: string;
  cacheDir?: string;
  progress?: Progress;
  go?: GoTool;
  signal?: AbortSignal;
  /** Never build: undefined when it is not cached. */
  cachedOnly?: boolean;
}

/** The probe for `kubeVersion`: from the cache, or built once from the Go module proxy. */
export async function ensureKubeletProbe(o: EnsureKubeletProbeOptions = {}): Promise<KubeletProbeBinary | undefined> {
  const kubeVersion = o.kubeVersion ?? DEFAULT_KUBE_VERSION;
  const root = kubeletProbeRoot(o.cacheDir ?? defaultCacheDir());
  const key = await kubeletProbeKey(kubeVersion);
  const hit = await cached(root, key, kubeVersion);
  if (hit || o.cachedOnly) return hit;
  await removeStaleStaging(root);
  const progress = o.progress ?? silentProgress;
  const go = o.go ?? systemGo();
  return withLock(
    join(root, `${key}.lock`),
    async () => {
      const again = await cached(root, key, kubeVersion);
      if (again) return again;
      await buildEntry(root, key, join(root, key), async (staging, startedAt) => {
        const logFile = join(staging, 'build.log');
        const run = (args: string[]) =>
          go.run(args, { cwd: staging, env: { CGO_ENABLED: '0' }, logFile, ...(o.signal ? { signal: o.signal } : {}) });
        progress.note(
          `building the kubelet probe against ${KUBE_MODULE} ${kubeVersion} from the Go module proxy (first time only)`,
        );
        try {
          const source = await step(progress, `fetching ${KUBE_MODULE}@${kubeVersion}`, async () => {
            const dl = await go.download(KUBE_MODULE, kubeVersion);
            if (!dl.ok || !dl.dir || !dl.goModFile)
              throw new Error(dl.error ?? `go mod download ${KUBE_MODULE} failed`);
            return dl;
          });
          const kubeMod = parseKubeGoMod(await readFile(source.goModFile!, 'utf8'));
          const substitutes = isPreRelease(kubeVersion)
            ? await preReleaseSubstitutes(go, kubeMod.staging, kubeVersion)
            : {};
          await writeFile(
            join(staging, 'go.mod'),
            wrapperGoMod(kubeMod, kubeVersion, substitutes).replace(/^module .*$/m, `module ${PROBE_MODULE}`),
          );
          // The kubelet's package as it is at the tag, plus the file that calls into it.
          const pkg = join(staging, 'kubeletplugin');
          await mkdir(pkg);
          for (const f of await readdir(join(source.dir!, PLUGIN_PACKAGE)))
            if (f.endsWith('.go') && !f.endsWith('_test.go'))
              await copyFile(join(source.dir!, PLUGIN_PACKAGE, f), join(pkg, f));
          await copyFile(EXPORTS, join(pkg, 'credprov_probe.go'));
          await writeFile(
            join(staging, 'main.go'),
            (await readFile(MAIN, 'utf8')).replace(`"${KUBE_MODULE}/${PLUGIN_PACKAGE}"`, `plugin "${LOCAL_PLUGIN}"`),
          );
          await step(progress, 'go mod tidy (kubelet probe)', () => run(['mod', 'tidy']));
          await step(progress, `go build ${KUBELET_PROBE}`, () =>
            run(['build', '-trimpath', '-ldflags', '-s -w', '-o', KUBELET_PROBE, '.']),
          );
          return {
            version: key,
            source: 'build',
            origin: `${KUBE_MODULE}@${kubeVersion}${source.sum ? ` ${source.sum}` : ''} (src/differential/kubelet-probe)`,
            binaries: await describeBinaries(staging, [KUBELET_PROBE]),
            createdAt: new Date().toISOString(),
            durationMs: Date.now() - startedAt,
            goVersion: await go.version(),
            ...(Object.keys(substitutes).length ? { substitutes } : {}),
          };
        } catch (err) {
          throw new PrerequisiteError(`could not build the kubelet probe against ${KUBE_MODULE} ${kubeVersion}`, {
            cause: err,
            detail: [(err as Error).message, (err as { detail?: string }).detail ?? ''].filter(Boolean).join('\n'),
            hint: 'it needs Go and the Go module proxy (GOPROXY); nothing was cached',
          });
        }
      });
      return (await cached(root, key, kubeVersion, false))!;
    },
    { onWait: (pid) => progress.note(`waiting for another credprov (pid ${pid}) that is building the kubelet probe`) },
  );
}

async function cached(
  root: string,
  key: string,
  kubeVersion: string,
  fromCache = true,
): Promise<KubeletProbeBinary | undefined> {
  const dir = join(root, key);
  const manifest = await usableEntry(dir, [KUBELET_PROBE]);
  return manifest ? { path: join(dir, KUBELET_PROBE), kubeVersion, manifest, fromCache } : undefined;
}

/** A provider entry as the probe takes it. */
export interface ProbeProvider {
  apiVersion: string;
  matchImages: string[];
  defaultCacheDuration: string;
  tokenAttributes?: { serviceAccountTokenAudience: string; cacheType: string; requireServiceAccount?: boolean };
}

export interface ProbeServiceAccount {
  Namespace: string;
  Name: string;
  UID: string;
  Token: string;
  Annotations: Record<string, string>;
}

/** What the kubelet made of one plugin answer for one image. */
export interface KubeletAnswer {
  allowed: boolean;
  /** pluginProvider.provide's error ('' when none): the kubelet logs it and uses no credentials. */
  provideError: string;
  found: boolean;
  users: string[];
}

export interface KubeletProbe {
  answer(
    provider: ProbeProvider,
    image: string,
    stdout: string | Buffer,
    sa?: ProbeServiceAccount,
  ): Promise<KubeletAnswer>;
  /** credentialprovider.URLsMatchStr(pattern, target). */
  match(pattern: string, target: string): Promise<{ match: boolean; matchError?: string }>;
  /** parsers.ParseImageName. */
  parse(ref: string): Promise<{ repository?: string; tag?: string; digest?: string; parseError?: string }>;
  /** A BasicDockerKeyring of auth key → username, asked for `image`. */
  keyring(auth: Record<string, string>, image: string): Promise<{ found: boolean; users: string[] }>;
  /** isImageAllowed. */
  allowed(matchImages: string[], image: string): Promise<boolean>;
  close(): Promise<void>;
}

export async function startKubeletProbe(binary: string, o: { workers?: number } = {}): Promise<KubeletProbe> {
  const lines: JsonLines = await startJsonLines(binary, ['-workers', String(o.workers ?? 4)], 'kubelet-probe');
  const ask = async <T>(req: Record<string, unknown>): Promise<T> => {
    const a = await lines.ask<T & { error?: string }>(req);
    if (a.error) throw new Error(`kubelet-probe: ${a.error}`);
    return a;
  };
  return {
    answer: (provider, image, stdout, sa) =>
      ask<KubeletAnswer>({
        op: 'answer',
        provider,
        image,
        stdout: Buffer.from(stdout).toString('base64'),
        ...(sa ? { serviceAccount: sa } : {}),
      }),
    match: (pattern, target) => ask({ op: 'match', pattern, target }),
    parse: (ref) => ask({ op: 'parse', ref }),
    keyring: (auth, image) => ask({ op: 'keyring', auth, image }),
    allowed: async (matchImages, image) =>
      (await ask<{ allowed: boolean }>({ op: 'allowed', matchImages, image })).allowed,
    close: () => lines.close(),
  };
}
