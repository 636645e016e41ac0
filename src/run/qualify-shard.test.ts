// qualify --shard I/N and report merge, without a cluster: qualify's runVersion
// seam gets a fake that answers each version × suite cell deterministically,
// so an unsharded run and every split of it produce comparable report dirs.
import { describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { noopLogger } from '../core/logger.ts';
import { silentProgress } from '../core/progress.ts';
import { Redactor } from '../core/redact.ts';
import { summarize, type CheckResult, type RunReport, type Status } from '../report/model.ts';
import { useTempDir } from '../testing/tmp.ts';
import { mergeShards, readShards } from './qualify-merge.ts';
import { qualify, type QualifyOptions } from './qualify.ts';
import { parseShard, SHARD_FILE, shardCells, type ShardManifest } from './shard.ts';
import type { Suite } from './suite.ts';

const tmp = useTempDir('credprov-qualify-shard-');
const VERSIONS = ['1.35', '1.36', '1.37'];
const SUITES = ['smoke', 'matching', 'caching'].map((name) => ({ name, summary: name }) as unknown as Suite);
const COMMAND = 'credprov qualify --kube-versions 1.35,1.36,1.37';

/** A cell's checks follow from a hash of (version, suite): some fail, some skip, the same on every call. */
const fakeRunVersion: NonNullable<QualifyOptions['runVersion']> = async (suites, o) => {
  const version = `${String(o.baseSpec.kubeVersion)}.4`;
  const checks: CheckResult[] = suites.flatMap((s) =>
    [0, 1, 2].map((i): CheckResult => {
      const h = createHash('sha256').update(`${version}/${s.name}/${i}`).digest()[0]!;
      const status: Status = h % 5 === 0 ? 'failed' : h % 5 === 1 ? 'skipped' : 'passed';
      return {
        id: `${s.name}.case-${i}`,
        title: `case ${i}`,
        level: 'MUST',
        source: 'KEP-2133',
        suite: s.name,
        status,
        message: `${status} on ${version}`,
        evidence: [{ kind: 'text', label: 'seen', text: `${s.name} ${i}` }],
        startedAt: new Date(0).toISOString(),
        durationMs: h,
      };
    }),
  );
  await mkdir(o.artifactsDir, { recursive: true });
  for (const s of suites) await writeFile(join(o.artifactsDir, `${s.name}.log`), `${s.name} on ${version}\n`);
  const report: RunReport = {
    tool: { name: 'credprov', version: 'test', command: o.command ?? '' },
    subject: { suites: suites.map((s) => s.name), provider: 'local', kubeVersion: version },
    checks,
    summary: summarize(checks),
    suites: suites.map((s) => ({ name: s.name, summary: s.name, durationMs: 1 })),
    startedAt: new Date().toISOString(),
    durationMs: 5,
  };
  return { report };
};

async function run(reportDir: string, shard?: { index: number; count: number }) {
  return qualify({
    versions: VERSIONS,
    suites: SUITES,
    ...(shard ? { shard } : {}),
    baseSpec: {},
    reportDir,
    log: noopLogger,
    progress: silentProgress,
    redactor: new Redactor(),
    processEnv: {},
    command: COMMAND,
    runVersion: fakeRunVersion,
  });
}

async function shards(count: number): Promise<string[]> {
  const root = join(tmp(), `split-${count}`);
  const dirs = Array.from({ length: count }, (_, i) => join(root, `shard-${i + 1}`));
  for (const [i, d] of dirs.entries()) await run(d, { index: i + 1, count });
  return dirs;
}

/** A file of a report dir with the dir itself and every timing taken out. */
async function comparable(dir: string, file: string): Promise<unknown> {
  const text = (await readFile(join(dir, file), 'utf8')).split(dir).join('<dir>');
  if (!file.endsWith('.json')) return text;
  const doc = JSON.parse(text) as Record<string, unknown>;
  return file.endsWith('report.json')
    ? {
        ...doc,
        checks: (doc.checks as Array<Record<string, unknown>>).map(({ durationMs: _, ...c }) => c),
        suites: undefined,
        startedAt: undefined,
        durationMs: undefined,
      }
    : doc;
}

describe('qualify --shard and report merge', () => {
  let unsharded: string;
  test.each([2, 3, 4, 12])('split into %i shards and merged equals the unsharded run, cell for cell', async (n) => {
    unsharded ??= join(tmp(), 'unsharded');
    await run(unsharded);
    const merged = join(tmp(), `merged-${n}`);
    await mergeShards(await readShards(await shards(n)), merged, new Redactor());
    const files = ['matrix.json', 'matrix.xml', 'matrix.md', 'report.json'];
    for (const v of VERSIONS) files.push(`v${v}/report.json`, `v${v}/artifacts/smoke.log`);
    for (const f of files) expect([f, await comparable(merged, f)]).toEqual([f, await comparable(unsharded, f)]);
    const matrix = JSON.parse(await readFile(join(merged, 'matrix.json'), 'utf8')) as {
      rows: Array<{ cells: Record<string, { status: Status }> }>;
    };
    // The fake's answers are mixed, so equality is not two empty matrices agreeing.
    const statuses = new Set(matrix.rows.flatMap((r) => Object.values(r.cells).map((c) => c.status)));
    expect(matrix.rows.flatMap((r) => Object.keys(r.cells))).toHaveLength(9);
    expect(statuses.size).toBeGreaterThan(1);
  });

  test('a shard records its plan and leaves the cells it did not run out of its matrix', async () => {
    const [first] = await shards(2);
    const m = JSON.parse(await readFile(join(first!, SHARD_FILE), 'utf8')) as ShardManifest;
    expect(m.plan).toMatchObject({ versions: VERSIONS, suites: ['smoke', 'matching', 'caching'] });
    expect(m.plan.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(m.shard).toEqual({ index: 1, count: 2 });
    expect(m.command).toBe(COMMAND);
    expect(m.ran.map((r) => r.version)).toEqual(['v1.35.4', 'v1.36.4']);
    const matrix = JSON.parse(await readFile(join(first!, 'matrix.json'), 'utf8')) as {
      rows: Array<{ suite: string; cells: Record<string, unknown> }>;
    };
    expect(matrix.rows.map((r) => [r.suite, Object.keys(r.cells)])).toEqual([
      ['smoke', ['v1.35.4', 'v1.36.4']],
      ['matching', ['v1.35.4', 'v1.36.4']],
      ['caching', ['v1.35.4']],
    ]);
  });
});

describe('shard arithmetic', () => {
  test.each([1, 2, 3, 4, 5, 9, 10])('%i shards: every cell once, sizes within one, few cluster bring-ups', (n) => {
    const parts = Array.from({ length: n }, (_, i) =>
      shardCells(VERSIONS, ['a', 'b', 'c'], { index: i + 1, count: n }),
    );
    expect(parts.flat()).toEqual(VERSIONS.flatMap((version) => ['a', 'b', 'c'].map((suite) => ({ version, suite }))));
    const sizes = parts.map((p) => p.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    const bringUps = parts.reduce((s, p) => s + new Set(p.map((c) => c.version)).size, 0);
    expect(bringUps).toBeLessThanOrEqual(VERSIONS.length + n - 1);
  });

  test.each(['0/2', '3/2', '1/0', '2', 'a/b', '-1/2', ''])('--shard %j is a usage error', (text) => {
    expect(() => parseShard(text)).toThrow(/--shard .*expected I\/N with 1 ≤ I ≤ N/);
  });

  test('2/4 is shard 2 of 4', () => expect(parseShard('2/4')).toEqual({ index: 2, count: 4 }));
});

describe('report merge refuses', () => {
  async function edit(dir: string, change: (m: ShardManifest) => void): Promise<void> {
    const m = JSON.parse(await readFile(join(dir, SHARD_FILE), 'utf8')) as ShardManifest;
    change(m);
    await writeFile(join(dir, SHARD_FILE), JSON.stringify(m));
  }

  test('shards of different plans, naming the dir and the field', async () => {
    const [a, b] = await shards(2);
    await edit(b!, (m) => (m.plan.versions = ['1.35', '1.36']));
    await expect(readShards([a!, b!])).rejects.toThrow(
      `report merge: ${b}: plan.versions 1.35,1.36 differs from ${a}'s 1.35,1.36,1.37 (shards of different plans)`,
    );
    await edit(b!, (m) => ((m.plan.versions = VERSIONS), (m.plan.suites = ['smoke'])));
    await expect(readShards([a!, b!])).rejects.toThrow(`${b}: plan.suites smoke differs`);
  });

  test('shards of different counts', async () => {
    const [a] = await shards(2);
    const [, b] = await shards(3);
    await expect(readShards([a!, b!])).rejects.toThrow(`${b}: shard count /3 differs from ${a}'s /2`);
  });

  test('a shard given twice', async () => {
    const [a, b] = await shards(2);
    await expect(readShards([a!, b!, a!])).rejects.toThrow(`report merge: ${a}: shard 1/2 again (already ${a})`);
  });

  test('a missing shard, listing the cells without a result', async () => {
    const [a, , c] = await shards(3);
    await expect(readShards([a!, c!])).rejects.toThrow(
      'report merge: shard 2/3 missing: no result for smoke on 1.36, matching on 1.36, caching on 1.36',
    );
  });

  test('one version run as two releases', async () => {
    const [a, b] = await shards(2);
    await edit(b!, (m) => (m.ran[0]!.version = 'v1.36.9'));
    await expect(readShards([a!, b!])).rejects.toThrow(`${b}: ran 1.36 as v1.36.9, ${a} as v1.36.4`);
  });

  test('a dir that is not a shard', async () => {
    await expect(readShards([tmp()])).rejects.toThrow(`report merge: ${tmp()}: no shard.json`);
  });
});
