// What the suite reads and does on the node behind the kubelet's back:
// containerd's image store (ctr), the kubelet's image_manager records and
// intents, its /metrics through the API server's node proxy, and a watcher
// that catches ImagePullIntent files while pulls are in flight.
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { kubeApi } from '../../src/cluster/api.ts';
import type { Environment } from '../../src/cluster/provider.ts';
import { CommandError } from '../../src/core/errors.ts';

// ---- containerd --------------------------------------------------------------

function ctrArgs(env: Environment, args: string[]): [string, string[]] {
  if (!env.containerd) throw new Error(`environment ${env.name} has no containerd the harness can reach`);
  return [env.containerd.ctr, ['--address', env.containerd.address, '--namespace', 'k8s.io', ...args]];
}

async function ctr(env: Environment, args: string[]): Promise<string> {
  const [bin, argv] = ctrArgs(env, args);
  const r = await execa(bin, argv, { reject: false, all: true, timeout: 120_000 });
  if (r.exitCode !== 0)
    throw new CommandError(`ctr ${args.slice(0, 2).join(' ')} failed`, {
      argv: [bin, ...argv],
      output: String(r.all ?? ''),
    });
  return r.stdout;
}

/** Imports an OCI archive into the CRI namespace, unpacked: the kubelet sees images it never pulled. */
export async function importImages(env: Environment, archive: Buffer, file: string): Promise<void> {
  await writeFile(file, archive);
  try {
    await ctr(env, ['images', 'import', file]);
  } finally {
    await rm(file, { force: true });
  }
}

/** containerd's image names whose target is `manifestDigest` (the tag, the repo digest and the CRI's `sha256:<id>` ref). */
export async function imageNames(env: Environment, manifestDigest: string): Promise<string[]> {
  const out = await ctr(env, ['images', 'ls']);
  return out
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.includes(manifestDigest))
    .map((f) => f[0]!);
}

/** Removes every image whose name contains `needle` (a run's own images, at the end). */
export async function removeImagesNamed(env: Environment, needle: string): Promise<number> {
  const names = (await ctr(env, ['images', 'ls', '-q']))
    .split('\n')
    .map((l) => l.trim())
    .filter((n) => n.includes(needle));
  for (let i = 0; i < names.length; i += 100) await ctr(env, ['images', 'rm', ...names.slice(i, i + 100)]);
  return names.length;
}

/** Removes an image behind the kubelet's back (every name of it, as `crictl rmi` would). */
export async function removeImage(env: Environment, manifestDigest: string): Promise<string[]> {
  const names = await imageNames(env, manifestDigest);
  if (names.length > 0) await ctr(env, ['images', 'rm', ...names]);
  return names;
}

// ---- the kubelet's records -----------------------------------------------------

export interface RecordFile {
  name: string;
  mode: number;
  text: string;
  json?: Record<string, unknown>;
  parseError?: string;
}

export interface RecordsListing {
  dirModes: Record<string, number>;
  pulled: RecordFile[];
  pulling: RecordFile[];
  /** Names ending in .tmp, in either directory. */
  tmp: string[];
}

async function readDirFiles(dir: string): Promise<{ files: RecordFile[]; tmp: string[] }> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const files: RecordFile[] = [];
  const tmp: string[] = [];
  for (const name of names.sort()) {
    if (name.endsWith('.tmp')) {
      tmp.push(join(dir, name));
      continue;
    }
    const path = join(dir, name);
    try {
      const [st, text] = await Promise.all([stat(path), readFile(path, 'utf8')]);
      if (!st.isFile()) continue;
      try {
        files.push({ name, mode: st.mode & 0o777, text, json: JSON.parse(text) as Record<string, unknown> });
      } catch (err) {
        files.push({ name, mode: st.mode & 0o777, text, parseError: (err as Error).message });
      }
    } catch {
      // removed between readdir and read (an intent whose pull finished)
    }
  }
  return { files, tmp };
}

export async function readRecords(imageManagerDir: string): Promise<RecordsListing> {
  const dirModes: Record<string, number> = {};
  for (const d of ['', 'pulled', 'pulling']) {
    const st = await stat(join(imageManagerDir, d)).catch(() => undefined);
    if (st) dirModes[d || 'image_manager'] = st.mode & 0o777;
  }
  const [pulled, pulling] = await Promise.all([
    readDirFiles(join(imageManagerDir, 'pulled')),
    readDirFiles(join(imageManagerDir, 'pulling')),
  ]);
  return { dirModes, pulled: pulled.files, pulling: pulling.files, tmp: [...pulled.tmp, ...pulling.tmp] };
}

export async function readRecord(
  imageManagerDir: string,
  fileName: string,
): Promise<Record<string, unknown> | undefined> {
  const text = await readFile(join(imageManagerDir, 'pulled', fileName), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
}

/**
 * Catches ImagePullIntent files in <image_manager>/pulling while the kubelet
 * pulls: an intent lives only from just before a pull until just after it.
 * Also notes every .tmp name seen (the kubelet writes <file>.tmp, then renames).
 */
export class IntentWatcher {
  readonly caught = new Map<string, { mode: number; text: string }>();
  readonly tmpSeen = new Set<string>();
  private watcher?: FSWatcher;
  private pending = new Set<Promise<void>>();

  private readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  start(): void {
    this.watcher = watch(this.dir, (_event, name) => {
      if (!name) return;
      if (name.endsWith('.tmp')) {
        this.tmpSeen.add(name);
        return;
      }
      if (this.caught.has(name)) return;
      const p = (async () => {
        const path = join(this.dir, name);
        try {
          const [st, text] = await Promise.all([stat(path), readFile(path, 'utf8')]);
          if (text) this.caught.set(name, { mode: st.mode & 0o777, text });
        } catch {
          // already gone
        }
      })();
      this.pending.add(p);
      void p.finally(() => this.pending.delete(p));
    });
  }

  async stop(): Promise<void> {
    this.watcher?.close();
    this.watcher = undefined;
    await Promise.all([...this.pending]);
  }
}

// ---- metrics -------------------------------------------------------------------

export type Metrics = Map<string, number>;

/** The kubelet's /metrics through the API server's node proxy. */
export async function scrapeMetrics(env: Environment): Promise<Metrics> {
  const text = await (
    await kubeApi(env)
  ).raw(`/api/v1/nodes/${encodeURIComponent(env.nodeName)}/proxy/metrics`, 30_000);
  return parseMetrics(text);
}

/** Prometheus text format, samples keyed as written (`name{a="b"}`), labels sorted. */
export function parseMetrics(text: string): Metrics {
  const out: Metrics = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = m[2]
      ? [...m[2].slice(1, -1).matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)]
          .map((x) => `${x[1]}="${x[2]}"`)
          .sort()
          .join(',')
      : '';
    out.set(labels ? `${m[1]}{${labels}}` : m[1]!, Number(m[3]));
  }
  return out;
}

export const MUSTPULL = (result: string) => `kubelet_imagemanager_image_mustpull_checks_total{result="${result}"}`;
export const ONDISK_RECORDS = 'kubelet_imagemanager_ondisk_pulledrecords';
export const ONDISK_INTENTS = 'kubelet_imagemanager_ondisk_pullintents';
