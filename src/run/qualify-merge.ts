// credprov report merge: the report dirs of `qualify --shard I/N` runs joined
// into the report dir an unsharded qualify writes (per-version report.*, the
// aggregate report.* and matrix.*), through the same writers. It refuses,
// naming the dir and the field, shards of different plans, a shard given
// twice, and a set with a shard missing (listing the cells that would be
// absent): a matrix with holes would read as a qualification that was not run.
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../core/errors.ts';
import type { Redactor } from '../core/redact.ts';
import { summarize, type CheckResult, type RunReport } from '../report/model.ts';
import { writeReports } from '../report/write.ts';
import { writeQualifyReports, type QualifyOutcome } from './qualify.ts';
import { SHARD_FILE, shardCells, type ShardManifest } from './shard.ts';

export interface LoadedShard {
  dir: string;
  manifest: ShardManifest;
}

async function load(dir: string): Promise<LoadedShard> {
  let text: string;
  try {
    text = await readFile(join(dir, SHARD_FILE), 'utf8');
  } catch {
    throw new UsageError(`report merge: ${dir}: no ${SHARD_FILE} (not the report dir of a 'qualify --shard I/N' run)`);
  }
  try {
    return { dir, manifest: JSON.parse(text) as ShardManifest };
  } catch (e) {
    throw new UsageError(`report merge: ${dir}/${SHARD_FILE}: not JSON (${(e as Error).message})`);
  }
}

const list = (xs: string[]) => xs.join(',');

/** The shards agree on one plan and cover it exactly once; otherwise one line naming the dir and the field. */
export function checkShards(shards: LoadedShard[]): void {
  const [first, ...rest] = shards;
  if (!first) throw new UsageError('report merge: no shard dirs given');
  const p = first.manifest;
  const differs = (s: LoadedShard, field: string, theirs: string, ours: string) =>
    new UsageError(
      `report merge: ${s.dir}: ${field} ${theirs} differs from ${first.dir}'s ${ours} (shards of different plans)`,
    );
  for (const s of rest) {
    const m = s.manifest;
    if (list(m.plan.versions) !== list(p.plan.versions))
      throw differs(s, 'plan.versions', list(m.plan.versions), list(p.plan.versions));
    if (list(m.plan.suites) !== list(p.plan.suites))
      throw differs(s, 'plan.suites', list(m.plan.suites), list(p.plan.suites));
    if (m.plan.hash !== p.plan.hash) throw differs(s, 'plan.hash', m.plan.hash, p.plan.hash);
    if (m.shard.count !== p.shard.count) throw differs(s, 'shard count', `/${m.shard.count}`, `/${p.shard.count}`);
  }
  const seen = new Map<number, string>();
  for (const s of shards) {
    const { index, count } = s.manifest.shard;
    const again = seen.get(index);
    if (again) throw new UsageError(`report merge: ${s.dir}: shard ${index}/${count} again (already ${again})`);
    seen.set(index, s.dir);
    const expected = JSON.stringify(shardCells(p.plan.versions, p.plan.suites, s.manifest.shard));
    if (JSON.stringify(s.manifest.cells) !== expected)
      throw new UsageError(
        `report merge: ${s.dir}: cells are not those of shard ${index}/${count} of this plan (written by another credprov version?)`,
      );
  }
  const missing = Array.from({ length: p.shard.count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length) {
    const absent = missing.flatMap((i) =>
      shardCells(p.plan.versions, p.plan.suites, { index: i, count: p.shard.count }).map(
        (c) => `${c.suite} on ${c.version}`,
      ),
    );
    throw new UsageError(
      `report merge: shard ${missing.map((i) => `${i}/${p.shard.count}`).join(', ')} missing: no result for ${absent.join(', ')}`,
      { hint: 'pass every shard dir of the run (a failed shard job still uploads its report dir)' },
    );
  }
  // A minor resolves to the newest cached patch: two runners with different caches ran different releases.
  const release = new Map<string, { version: string; dir: string }>();
  for (const s of shards)
    for (const r of s.manifest.ran) {
      const had = release.get(r.requested);
      if (had && had.version !== r.version)
        throw new UsageError(
          `report merge: ${s.dir}: ran ${r.requested} as ${r.version}, ${had.dir} as ${had.version}; the matrix needs one release per version`,
          { hint: 'give exact releases (--kube-versions v1.36.5,…) or share the kube cache between runners' },
        );
      release.set(r.requested, { version: r.version, dir: s.dir });
    }
}

async function readReport(path: string): Promise<RunReport> {
  const r = JSON.parse(await readFile(path, 'utf8')) as RunReport;
  // report.json leaves out each check's start; the writers only show it, so the run's start stands in.
  return { ...r, checks: r.checks.map((c): CheckResult => ({ ...c, startedAt: c.startedAt ?? r.startedAt })) };
}

/** One version's report from the parts several shards ran: checks and suites in the plan's suite order. */
function joinParts(parts: RunReport[], suites: string[]): RunReport {
  const order = (name?: string) => suites.indexOf(name ?? '');
  const checks = parts.flatMap((p) => p.checks).sort((a, b) => order(a.suite) - order(b.suite));
  const ran = parts.flatMap((p) => (p.subject.suites as string[] | undefined) ?? []);
  const first = parts[0]!;
  return {
    ...first,
    subject: { ...Object.assign({}, ...parts.map((p) => p.subject)), suites: suites.filter((s) => ran.includes(s)) },
    checks,
    summary: summarize(checks),
    suites: parts.flatMap((p) => p.suites ?? []).sort((a, b) => order(a.name) - order(b.name)),
    ...(parts.some((p) => p.metrics) ? { metrics: Object.assign({}, ...parts.map((p) => p.metrics ?? {})) } : {}),
    startedAt: parts.map((p) => p.startedAt).sort()[0]!,
    durationMs: parts.reduce((s, p) => s + p.durationMs, 0),
  };
}

/** The shard dirs' manifests, refused (UsageError, one line) unless they are exactly the N shards of one plan. */
export async function readShards(dirs: string[]): Promise<LoadedShard[]> {
  const shards = await Promise.all(dirs.map(load));
  checkShards(shards);
  return shards;
}

export async function mergeShards(
  shards: LoadedShard[],
  reportDir: string,
  redactor: Redactor,
): Promise<QualifyOutcome> {
  shards = [...shards].sort((a, b) => a.manifest.shard.index - b.manifest.shard.index);
  const { plan, command } = shards[0]!.manifest;
  const perVersion: Array<{ version: string; report: RunReport; reportPath: string }> = [];
  for (const requested of plan.versions) {
    const from = shards.flatMap((s) => s.manifest.ran.filter((r) => r.requested === requested).map((r) => ({ s, r })));
    const dir = join(reportDir, from[0]!.r.dir);
    const parts = await Promise.all(from.map(({ s, r }) => readReport(join(s.dir, r.dir, 'report.json'))));
    const report = joinParts(parts, plan.suites);
    for (const { s, r } of from)
      await cp(join(s.dir, r.dir, 'artifacts'), join(dir, 'artifacts'), { recursive: true, force: true }).catch(
        (e: NodeJS.ErrnoException) => {
          if (e.code !== 'ENOENT') throw e;
        },
      );
    await writeReports(report, dir, redactor);
    perVersion.push({ version: from[0]!.r.version, report, reportPath: join(dir, 'report.md') });
  }
  const starts = shards.map((s) => Date.parse(s.manifest.startedAt));
  const ends = shards.map((s) => Date.parse(s.manifest.startedAt) + s.manifest.durationMs);
  const written = await writeQualifyReports(perVersion, plan.suites, {
    reportDir,
    redactor,
    command,
    startedAt: new Date(Math.min(...starts)),
    durationMs: Math.max(...ends) - Math.min(...starts),
  });
  return { ...written, perVersion };
}
