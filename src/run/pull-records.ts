// The kubelet's KEP-2535 state on disk (capability kubeletFiles):
// <root>/image_manager/pulled holds an ImagePulledRecord per image,
// <root>/image_manager/pulling an ImagePullIntent while a pull is in flight.
// Read as files (mode, text, JSON), and a watcher that catches the intents,
// which live only from just before a pull until just after it.
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Environment } from '../cluster/provider.ts';
import { kubeletFilesOf } from './environment-fields.ts';

/** The kubelet's image_manager dir on this host. */
export const imageManagerDir = (env: Environment): string => join(kubeletFilesOf(env).rootDir, 'image_manager');

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

export async function readRecords(dir: string): Promise<RecordsListing> {
  const dirModes: Record<string, number> = {};
  for (const d of ['', 'pulled', 'pulling']) {
    const st = await stat(join(dir, d)).catch(() => undefined);
    if (st) dirModes[d || 'image_manager'] = st.mode & 0o777;
  }
  const [pulled, pulling] = await Promise.all([readDirFiles(join(dir, 'pulled')), readDirFiles(join(dir, 'pulling'))]);
  return { dirModes, pulled: pulled.files, pulling: pulling.files, tmp: [...pulled.tmp, ...pulling.tmp] };
}

export async function readRecord(dir: string, fileName: string): Promise<Record<string, unknown> | undefined> {
  const text = await readFile(join(dir, 'pulled', fileName), 'utf8').catch(() => undefined);
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
