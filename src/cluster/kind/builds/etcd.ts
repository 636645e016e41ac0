// etcd for the kind node image, static, from the Go module proxy. kubeadm
// 1.34+ writes an etcd static pod with 3.6+ flags (--feature-gates=
// InitialCorruptCheck=true), which Debian's etcd 3.4 refuses, so the node
// runs the release kubeadm names for its minor (version table). The server
// module's go.mod replaces its sibling modules with ../ paths, which `go
// install pkg@version` refuses: a wrapper module with etcd's own main.go
// (etcdmain.Main(os.Args)) builds it instead.
import { execa } from 'execa';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, CredprovError } from '../../../core/errors.ts';
import { type Logger, noopLogger } from '../../../core/logger.ts';
import { cacheDir as defaultCacheDir } from '../../../core/paths.ts';
import { type Progress, step } from '../../../core/progress.ts';
import { behaviourFor } from '../../../versions/table.ts';
import { systemGo, type GoTool } from '../../binaries/go.ts';
import { builtManifest, ensureTool } from './tool-cache.ts';

export const ETCD_MODULE = 'go.etcd.io/etcd/server/v3';
const ETCD_BINARIES = ['etcd'] as const;
/** etcd's release build stamps only the git commit (scripts/build_lib.sh); the version is a constant. */
const GIT_SHA_VAR = 'go.etcd.io/etcd/api/v3/version.GitSHA';

export interface EtcdVersion {
  /** Module version, v3.7.0. */
  version: string;
  /** kubeadm's image tag, 3.7.0-0 (registry.k8s.io/etcd:<tag>). */
  imageTag: string;
}

/** The etcd that kubeadm of this Kubernetes minor runs. */
export function etcdVersionForKube(kubeVersion: string): EtcdVersion {
  const imageTag = behaviourFor(kubeVersion).etcdImageTag;
  return { version: moduleVersion(imageTag), imageTag };
}

/**
 * The etcd a built kubeadm will run: the tag `kubeadm config images list`
 * prints (no network when the version is given). The version table predicts
 * it; this is what the node image must match when a patch release moved it.
 */
export async function etcdOfKubeadm(kubeadm: string, kubeVersion: string): Promise<EtcdVersion> {
  const argv = ['config', 'images', 'list', '--kubernetes-version', kubeVersion];
  const r = await execa(kubeadm, argv, { reject: false, timeout: 60_000 });
  const imageTag = etcdTagInImageList(String(r.stdout));
  if (r.exitCode !== 0 || !imageTag)
    throw new CredprovError(`${kubeadm} ${argv.join(' ')} named no etcd image`, {
      detail: `${r.stdout}\n${r.stderr}`,
    });
  return { version: moduleVersion(imageTag), imageTag };
}

/** registry.k8s.io/etcd:3.7.0-0 among kubeadm's images → 3.7.0-0. */
export function etcdTagInImageList(list: string): string | undefined {
  return /^\S+\/etcd:(\S+)$/m.exec(list)?.[1];
}

/** 3.7.0-0 (an image tag), 3.7.0 or v3.7.0 → v3.7.0. */
export function moduleVersion(text: string): string {
  const m = /^v?(3\.\d+\.\d+)(?:-\d+)?$/.exec(text.trim());
  if (!m) throw new ConfigError(`'${text}' is not an etcd version`, { hint: 'write it as v3.7.0 or 3.7.0-0' });
  return `v${m[1]}`;
}

export interface EtcdOptions {
  /** v3.7.0, or kubeadm's tag 3.7.0-0. */
  version: string;
  cacheDir?: string;
  progress: Progress;
  log?: Logger;
  signal?: AbortSignal;
  /** Test seam. */
  go?: GoTool;
}

export async function ensureEtcd(o: EtcdOptions): Promise<{ etcd: string; version: string }> {
  const version = moduleVersion(o.version);
  const progress = o.progress;
  const log = o.log ?? noopLogger;
  const go = o.go ?? systemGo({ log });
  const entry = await ensureTool({
    tool: 'etcd',
    version,
    binaries: ETCD_BINARIES,
    cacheDir: o.cacheDir ?? defaultCacheDir(),
    progress,
    fill: async (staging, t0) => {
      progress.note(`building etcd ${version} from the Go module proxy (first time only, under a minute warm)`);
      const dl = await step(progress, `fetching ${ETCD_MODULE}@${version}`, () => go.download(ETCD_MODULE, version));
      if (!dl.ok || !dl.goModFile)
        throw new CredprovError(`cannot fetch ${ETCD_MODULE}@${version} from the Go module proxy`, {
          detail: dl.error ?? 'no go.mod',
          hint: 'check network access to the Go module proxy (GOPROXY)',
        });
      const work = join(staging, '.work');
      const logFile = join(staging, 'build.log');
      await mkdir(work, { recursive: true });
      await writeFile(join(work, 'go.mod'), etcdWrapperGoMod(await readFile(dl.goModFile, 'utf8'), version));
      await writeFile(join(work, 'main.go'), ETCD_MAIN_GO);
      const ldflags = `-s -w -X ${GIT_SHA_VAR}=go-module-proxy`;
      const run = (args: string[]) =>
        go.run(args, { cwd: work, env: { CGO_ENABLED: '0' }, logFile, ...(o.signal ? { signal: o.signal } : {}) });
      await step(progress, `go build etcd ${version} (wrapper module)`, async () => {
        await run(['mod', 'tidy']);
        await run(['build', '-trimpath', '-ldflags', ldflags, '-o', join(staging, 'etcd'), '.']);
      });
      await rm(work, { recursive: true, force: true });
      return builtManifest({
        tool: 'etcd',
        version,
        reported: await etcdReportedVersion(join(staging, 'etcd')),
        staging,
        binaries: ETCD_BINARIES,
        module: ETCD_MODULE,
        sum: dl.sum,
        go,
        ldflags,
        startedAt: t0,
      });
    },
  });
  return { etcd: join(entry.dir, 'etcd'), version };
}

/** What etcd's own server/main.go does. */
export const ETCD_MAIN_GO = `package main

import (
\t"os"

\t"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
\tetcdmain.Main(os.Args)
}
`;

/**
 * The wrapper's go.mod: the server module's go line (and godebug settings,
 * which a dependency's go.mod cannot set) and the one requirement; `go mod
 * tidy` takes the sibling modules at the versions the server requires.
 */
export function etcdWrapperGoMod(serverGoMod: string, version: string): string {
  const lines = serverGoMod.split('\n').map((l) => l.trim());
  const goLine = lines.find((l) => /^go \d/.test(l));
  if (!goLine) throw new ConfigError(`${ETCD_MODULE}@${version} go.mod has no 'go' directive`);
  const godebug: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === 'godebug (') {
      while (++i < lines.length && lines[i] !== ')') if (lines[i]) godebug.push(`godebug ${lines[i]}`);
    } else if (/^godebug\s+\S+=/.test(lines[i]!)) godebug.push(lines[i]!);
  }
  return [
    'module credprov.local/etcdbuild',
    '',
    goLine,
    ...(godebug.length ? ['', ...godebug] : []),
    '',
    `require ${ETCD_MODULE} ${version}`,
    '',
  ].join('\n');
}

/** `etcd --version` prints "etcd Version: 3.7.0" first. */
export async function etcdReportedVersion(path: string): Promise<string> {
  const r = await execa(path, ['--version'], { reject: false, timeout: 30_000 });
  const m = /etcd Version: (\d+\.\d+\.\d+\S*)/.exec(String(r.stdout));
  if (r.exitCode !== 0 || !m)
    throw new CredprovError(`${path} --version did not report a version`, { detail: `${r.stdout}\n${r.stderr}` });
  return `v${m[1]}`;
}
