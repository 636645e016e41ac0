// One Go-built tool per version under <cacheDir>/<tool>/<version>/ (etcd, the
// kind CLI), kept like the kube binaries and containerd: the entry appears
// whole by rename with its manifest and build.log, one lock per version, and a
// cached entry answers without Go or the network.
import { join } from 'node:path';
import { CredprovError } from '../../../core/errors.ts';
import { type Progress, silentProgress } from '../../../core/progress.ts';
import type { GoTool } from '../../binaries/go.ts';
import {
  buildEntry,
  describeBinaries,
  listEntries,
  removeStaleStaging,
  usableEntry,
  withLock,
  type KubeManifest,
} from '../../binaries/cache.ts';
import { compareVersions } from '../../binaries/versions.ts';

export interface ToolEntry {
  dir: string;
  manifest: KubeManifest;
  /** True when no build happened in this call. */
  fromCache: boolean;
}

export interface ToolSpec {
  /** etcd, kind: the directory under the cache dir and the name in progress lines. */
  tool: string;
  version: string;
  binaries: readonly string[];
  cacheDir: string;
  progress?: Progress;
  /** Builds into the staging dir (build.log there too) and returns the entry's manifest. */
  fill: (staging: string, startedAt: number) => Promise<KubeManifest>;
}

export function toolCacheRoot(cacheDir: string, tool: string): string {
  return join(cacheDir, tool);
}

/** The cached entry, or undefined; never builds. */
export async function cachedTool(
  cacheDir: string,
  tool: string,
  version: string,
  binaries: readonly string[],
): Promise<ToolEntry | undefined> {
  const dir = join(toolCacheRoot(cacheDir, tool), version);
  const manifest = await usableEntry(dir, binaries);
  return manifest ? { dir, manifest, fromCache: true } : undefined;
}

export async function ensureTool(spec: ToolSpec): Promise<ToolEntry> {
  const root = toolCacheRoot(spec.cacheDir, spec.tool);
  const hit = await cachedTool(spec.cacheDir, spec.tool, spec.version, spec.binaries);
  if (hit) return hit;
  await removeStaleStaging(root);
  const progress = spec.progress ?? silentProgress;
  return withLock(
    join(root, `${spec.version}.lock`),
    async () => {
      const again = await cachedTool(spec.cacheDir, spec.tool, spec.version, spec.binaries);
      if (again) return again;
      await buildEntry(root, spec.version, join(root, spec.version), spec.fill);
      const made = await cachedTool(spec.cacheDir, spec.tool, spec.version, spec.binaries);
      return { ...made!, fromCache: false };
    },
    {
      onWait: (pid) =>
        progress.note(`waiting for another credprov (pid ${pid}) that is building ${spec.tool} ${spec.version}`),
    },
  );
}

/** Cached builds of one tool, newest first (for `binaries ls`). */
export async function listTool(cacheDir: string, tool: string, binaries: readonly string[]): Promise<KubeManifest[]> {
  return (await listEntries(toolCacheRoot(cacheDir, tool), binaries)).sort((a, b) =>
    compareVersions(b.version, a.version),
  );
}

/**
 * The manifest of a finished build, after the check that matters most: a
 * binary that reports another version than asked for is never cached.
 */
export async function builtManifest(o: {
  tool: string;
  version: string;
  /** What the built binary says it is. */
  reported: string;
  staging: string;
  binaries: readonly string[];
  module: string;
  /** The module's h1: hash from go mod download. */
  sum?: string | undefined;
  go: GoTool;
  ldflags: string;
  startedAt: number;
}): Promise<KubeManifest> {
  if (o.reported !== o.version)
    throw new CredprovError(`${o.tool} built for ${o.version} reports ${o.reported}`, { hint: 'nothing was cached' });
  return {
    version: o.version,
    source: 'build',
    origin: `${o.module}@${o.version}${o.sum ? ` ${o.sum}` : ''}`,
    binaries: await describeBinaries(o.staging, o.binaries),
    createdAt: new Date().toISOString(),
    durationMs: Date.now() - o.startedAt,
    goVersion: await o.go.version(),
    ldflags: o.ldflags,
  };
}
