// Sharding a qualification across CI runners: the version × suite cells of a
// plan, cut into N deterministic shares, and the identity each shard records
// in its report dir (shard.json) so `credprov report merge` can prove that
// the shards it joins come from one plan and cover it exactly once.
//
// A share is a contiguous run of the cells in version-major order, the sizes
// differing by at most one. Contiguous because a cell costs a whole cluster
// bring-up (and perhaps a kube build) for its version: cutting version-major
// keeps a version's suites on one shard where the count allows, so N shards
// bring up at most versions + N − 1 clusters, the fewest any equal split can.
import { createHash } from 'node:crypto';
import { UsageError } from '../core/errors.ts';

export interface Cell {
  /** The version as asked (--kube-versions), not the release a runner resolved it to. */
  version: string;
  suite: string;
}

export interface Shard {
  index: number;
  count: number;
}

/** What a plan is, from the command line alone: the same on every runner whatever its cache holds. */
export interface PlanIdentity {
  versions: string[];
  suites: string[];
  /** sha256 of the versions and suites, in order. */
  hash: string;
}

/** shard.json: written by `qualify --shard`, read by `report merge`. */
export interface ShardManifest {
  plan: PlanIdentity;
  shard: Shard;
  /** The qualify command without --shard: the title an unsharded run would give its reports. */
  command: string;
  cells: Cell[];
  /** Per version this shard ran: the release it resolved to and its report dir (relative). */
  ran: Array<{ requested: string; version: string; dir: string }>;
  startedAt: string;
  durationMs: number;
}

export const SHARD_FILE = 'shard.json';

export function planIdentity(versions: string[], suites: string[]): PlanIdentity {
  const hash = createHash('sha256').update(JSON.stringify({ versions, suites })).digest('hex');
  return { versions: [...versions], suites: [...suites], hash };
}

/** "2/3" → {index: 2, count: 3}; anything else, or I outside 1..N, is a usage error. */
export function parseShard(text: string, flag = '--shard'): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count)
    throw new UsageError(`${flag} ${JSON.stringify(text)}: expected I/N with 1 ≤ I ≤ N (e.g. ${flag} 2/4)`, {
      hint: 'N is the number of runners; I is this runner, counted from 1',
    });
  return { index, count };
}

export function cellsOf(versions: string[], suites: string[]): Cell[] {
  return versions.flatMap((version) => suites.map((suite) => ({ version, suite })));
}

/** Shard I of N: the I-th contiguous block of the version-major cells; the first (cells mod N) blocks get one more. */
export function shardCells(versions: string[], suites: string[], shard: Shard): Cell[] {
  const cells = cellsOf(versions, suites);
  const base = Math.floor(cells.length / shard.count);
  const extra = cells.length % shard.count;
  const i = shard.index - 1;
  const start = i * base + Math.min(i, extra);
  return cells.slice(start, start + base + (i < extra ? 1 : 0));
}

/** The qualify command as an unsharded run would have been typed: --shard and its value left out. */
export function withoutShard(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--shard') i++;
    else if (!argv[i]!.startsWith('--shard=')) out.push(argv[i]!);
  }
  return out;
}
