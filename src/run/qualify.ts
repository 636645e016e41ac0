// credprov qualify: the same suites asked of several Kubernetes versions, one
// whole cluster per version (kubelet, kube-apiserver, controllers and a
// containerd that version supports), then a suite × version matrix. It says
// up front what it must build and roughly how long that takes, reuses every
// cached build, and tears each version's cluster down before the next.
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import type { PartialSpec } from '../api/spec/index.ts';
import { KUBE_BINARIES, kubeCacheRoot, listEntries } from '../cluster/binaries/cache.ts';
import { containerdCacheRoot, containerdLineFor, listContainerd } from '../cluster/binaries/containerd.ts';
import { estimateColdBuildMinutes } from '../cluster/binaries/source-build.ts';
import { patchesOf } from '../cluster/binaries/versions.ts';
import { cacheDir as defaultCacheDir } from '../core/paths.ts';
import type { Logger } from '../core/logger.ts';
import type { Progress } from '../core/progress.ts';
import type { Redactor } from '../core/redact.ts';
import { buildMatrix, matrixToJson, matrixToJunit, matrixToMarkdown, type Matrix } from '../report/matrix.ts';
import { summarize, type RunReport } from '../report/model.ts';
import { writeReports } from '../report/write.ts';
import { behaviourFor, parseKubeVersion } from '../versions/table.ts';
import { runSuites, type RunOptions, type RunOutcome } from './runner.ts';
import { cellsOf, planIdentity, SHARD_FILE, shardCells, type Shard, type ShardManifest } from './shard.ts';
import { CREDPROV_VERSION } from '../core/package-layout.ts';
import type { Suite } from './suite.ts';

export interface VersionPlan {
  /** As asked: 1.35. */
  requested: string;
  /** The cached release that will be used, or undefined when one must be built. */
  cachedKube?: string;
  containerdLine: string;
  cachedContainerd?: string;
  /** Rough minutes of building before this version can run (0 when all is cached). */
  buildMinutes: number;
}

/** What each version needs, from the cache alone (no network): the "what will be built" line. */
export async function planVersions(versions: string[], cacheDir = defaultCacheDir()): Promise<VersionPlan[]> {
  const full = await listEntries(kubeCacheRoot(cacheDir), KUBE_BINARIES);
  // Earlier full builds on this machine say how long one takes here; the core-count guess otherwise.
  const took = full
    .map((m) => m.durationMs)
    .filter((d) => d > 0)
    .sort((a, b) => a - b);
  const kubeMinutes = took.length ? Math.ceil(took[Math.floor(took.length / 2)]! / 60_000) : estimateColdBuildMinutes();
  return Promise.all(
    versions.map(async (requested) => {
      const v = parseKubeVersion(requested, '--kube-versions');
      behaviourFor(v);
      const exact =
        v.patch !== undefined
          ? full.find((m) => m.version === v.text)?.version
          : patchesOf(
              full.map((m) => m.version),
              v.minor,
            )[0];
      // The line the local provider will ensure (ensureContainerd): the newest the version table lists.
      const line = containerdLineFor(v.text);
      const cd = (await listContainerd(containerdCacheRoot(cacheDir))).find((m) =>
        m.version.startsWith(`v${line.major}.${line.minor}.`),
      );
      return {
        requested,
        ...(exact ? { cachedKube: exact } : {}),
        containerdLine: `${line.major}.${line.minor}`,
        ...(cd ? { cachedContainerd: cd.version } : {}),
        buildMinutes: (exact ? 0 : kubeMinutes) + (cd ? 0 : 3),
      };
    }),
  );
}

export function describePlan(plan: VersionPlan[]): string[] {
  const lines = plan.map((p) => {
    const kube = p.cachedKube
      ? `kube ${p.cachedKube} cached`
      : `kube ${p.requested} to build (newest patch the Go module proxy can deliver)`;
    const cd = p.cachedContainerd
      ? `containerd ${p.cachedContainerd} cached`
      : `containerd ${p.containerdLine}.x to build`;
    return `${p.requested}: ${kube}; ${cd}${p.buildMinutes ? ` (~${p.buildMinutes} min of building first)` : ''}`;
  });
  const total = plan.reduce((s, p) => s + p.buildMinutes, 0);
  return [
    ...lines,
    total
      ? `builds first: about ${total} min on this machine, once (cached afterwards)`
      : 'everything is cached: no build',
  ];
}

export interface QualifyOptions {
  versions: string[];
  /** From planVersions: a version with a cached release runs exactly that release (a minor would otherwise ask the proxy for a newer patch). */
  plan?: VersionPlan[];
  suites: Suite[];
  /** --shard I/N: only this share of the version × suite cells (src/run/shard.ts); shard.json records it. */
  shard?: Shard;
  baseSpec: PartialSpec;
  reportDir: string;
  log: Logger;
  progress: Progress;
  redactor: Redactor;
  processEnv: NodeJS.ProcessEnv;
  /** The command as an unsharded run would be typed (without --shard): it titles every report. */
  command: string;
  /** Test seam: runs one version's suites (default runSuites, which brings up and tears down its cluster). */
  runVersion?: (suites: Suite[], o: RunOptions) => Promise<Pick<RunOutcome, 'report'>>;
}

export interface QualifyOutcome {
  matrix: Matrix;
  perVersion: Array<{ version: string; report: RunReport }>;
  aggregate: RunReport;
}

export async function qualify(o: QualifyOptions): Promise<QualifyOutcome> {
  const startedAt = new Date();
  const names = o.suites.map((s) => s.name);
  const cells = o.shard ? shardCells(o.versions, names, o.shard) : cellsOf(o.versions, names);
  const versions = o.versions.filter((v) => cells.some((c) => c.version === v));
  const perVersion: Array<{ version: string; report: RunReport; reportPath: string }> = [];
  const ran: ShardManifest['ran'] = [];
  for (const requested of versions) {
    const planned = o.plan?.find((p) => p.requested === requested)?.cachedKube;
    const v = parseKubeVersion(planned ?? requested, '--kube-versions');
    const dir = join(o.reportDir, v.text);
    const suites = o.suites.filter((s) => cells.some((c) => c.version === requested && c.suite === s.name));
    o.progress.note(`qualify: Kubernetes ${v.text} (${perVersion.length + 1} of ${versions.length})`);
    const { report } = await (o.runVersion ?? runSuites)(suites, {
      // One environment per version, torn down by runSuites before the next comes up.
      baseSpec: { ...o.baseSpec, name: `qualify-1-${v.minor}`, kubeVersion: v.text },
      artifactsDir: join(dir, 'artifacts'),
      log: o.log,
      progress: o.progress,
      redactor: o.redactor,
      processEnv: o.processEnv,
      command: `${o.command} (Kubernetes ${v.text})`,
    });
    await writeReports(report, dir, o.redactor);
    const version = String(report.subject.kubeVersion ?? v.text);
    perVersion.push({ version, report, reportPath: join(dir, 'report.md') });
    ran.push({ requested, version, dir: v.text });
  }
  const written = await writeQualifyReports(perVersion, names, {
    reportDir: o.reportDir,
    redactor: o.redactor,
    command: o.command,
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
  });
  if (o.shard) {
    const manifest: ShardManifest = {
      plan: planIdentity(o.versions, names),
      shard: o.shard,
      command: o.command,
      cells,
      ran,
      startedAt: startedAt.toISOString(),
      durationMs: written.aggregate.durationMs,
    };
    await writeFile(join(o.reportDir, SHARD_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  return { ...written, perVersion };
}

/**
 * The files under a qualify report dir besides the per-version ones: the
 * aggregate report.* and matrix.{json,xml,md}. Shared by qualify and
 * `report merge`, so a merged matrix is the one an unsharded run writes.
 */
export async function writeQualifyReports(
  perVersion: Array<{ version: string; report: RunReport; reportPath: string }>,
  suites: string[],
  o: { reportDir: string; redactor: Redactor; command: string; startedAt: Date; durationMs: number },
): Promise<{ matrix: Matrix; aggregate: RunReport }> {
  const matrix = buildMatrix(perVersion, suites);
  // A shard leaves the cells it did not run empty ('–') rather than calling them skipped.
  for (const row of matrix.rows)
    for (const p of perVersion) {
      const ran = p.report.subject.suites;
      if (Array.isArray(ran) && !ran.includes(row.suite)) delete row.cells[p.version];
    }
  const checks = perVersion.flatMap((p) =>
    p.report.checks.map((c) => ({ ...c, suite: `${p.version}/${c.suite ?? ''}` })),
  );
  const aggregate: RunReport = {
    tool: { name: 'credprov', version: CREDPROV_VERSION, command: o.command },
    subject: { kubeVersions: perVersion.map((p) => p.version), suites },
    checks,
    summary: summarize(checks),
    suites: perVersion.flatMap((p) => (p.report.suites ?? []).map((s) => ({ ...s, name: `${p.version}/${s.name}` }))),
    metrics: { matrix },
    startedAt: o.startedAt.toISOString(),
    durationMs: o.durationMs,
  };
  await writeReports(aggregate, o.reportDir, o.redactor);
  const safe = o.redactor.value(matrix);
  await writeFile(join(o.reportDir, 'matrix.json'), matrixToJson(safe));
  await writeFile(join(o.reportDir, 'matrix.xml'), matrixToJunit(safe));
  await writeFile(join(o.reportDir, 'matrix.md'), matrixToMarkdown(safe, o.command));
  return { matrix, aggregate };
}
