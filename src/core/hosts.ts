// /etc/hosts entries owned by credprov. Each line carries a marker
// `# credprov:<owner>` so it can be found again, replaced, and removed even
// after a crashed run. The file is rewritten whole (temp file + rename) under a
// lock file, because registries and the cluster may edit it at the same time.
import { open, readFile, rename, rm, stat, writeFile, chmod } from 'node:fs/promises';
import { dirname, join, basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CredprovError, PrerequisiteError } from './errors.ts';

export const HOSTS_FILE = '/etc/hosts';
const MARK = '# credprov:';

export interface HostEntry {
  address: string;
  hostnames: string[];
  /** Who owns the line, e.g. `registry/default`; lines are removed by owner. */
  owner: string;
}

const OWNER_RE = /^[A-Za-z0-9._/:-]+$/;
const HOSTNAME_RE = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

export function formatEntry(e: HostEntry): string {
  return `${e.address} ${e.hostnames.join(' ')} ${MARK}${e.owner}`;
}

/** Parses the credprov-owned lines of a hosts file; other lines are ignored. */
export function parseEntries(text: string): HostEntry[] {
  const out: HostEntry[] = [];
  for (const line of text.split('\n')) {
    const i = line.indexOf(MARK);
    if (i < 0) continue;
    const [address, ...hostnames] = line.slice(0, i).trim().split(/\s+/);
    if (!address || hostnames.length === 0) continue;
    out.push({ address, hostnames, owner: line.slice(i + MARK.length).trim() });
  }
  return out;
}

/** Pure edit: drops the lines of `removeOwners` (and any line naming one of the added hostnames), then appends `add`. */
export function editHosts(text: string, change: { add?: HostEntry[]; removeOwners?: string[] }): string {
  const remove = new Set(change.removeOwners ?? []);
  const add = change.add ?? [];
  for (const e of add) remove.add(e.owner);
  const lines = text.split('\n');
  const keep = lines.filter((line) => {
    const i = line.indexOf(MARK);
    return i < 0 || !remove.has(line.slice(i + MARK.length).trim());
  });
  // Nothing of ours was there and nothing is added: leave the file byte for byte as it was.
  if (keep.length === lines.length && add.length === 0) return text;
  while (keep.length > 0 && keep[keep.length - 1] === '') keep.pop();
  return [...keep, ...add.map(formatEntry)].join('\n') + '\n';
}

/** An RFC 1123 hostname: dot-separated labels of letters, digits and inner dashes. */
export function isHostname(h: string): boolean {
  return HOSTNAME_RE.test(h);
}

export function validateEntry(e: HostEntry): void {
  if (!OWNER_RE.test(e.owner))
    throw new CredprovError(`hosts entry owner '${e.owner}' has characters outside [A-Za-z0-9._/:-]`);
  for (const h of e.hostnames)
    if (!HOSTNAME_RE.test(h)) throw new CredprovError(`'${h}' is not a valid hostname for /etc/hosts`);
}

/** Edits a hosts file in place of the real one (tests pass a temp file). */
export class HostsFile {
  readonly path: string;
  private readonly lockTimeoutMs: number;

  constructor(path = HOSTS_FILE, opts: { lockTimeoutMs?: number } = {}) {
    this.path = path;
    this.lockTimeoutMs = opts.lockTimeoutMs ?? 5000;
  }

  async entries(): Promise<HostEntry[]> {
    return parseEntries(await this.read());
  }

  /** Replaces the owner's lines with `entries` (all for the same owner or several). */
  async add(...entries: HostEntry[]): Promise<void> {
    entries.forEach(validateEntry);
    await this.update((t) => editHosts(t, { add: entries }));
  }

  /** Removes every line of these owners; removing what is not there is fine. */
  async remove(...owners: string[]): Promise<void> {
    await this.update((t) => editHosts(t, { removeOwners: owners }));
  }

  /** Removes lines whose owner `isStale` says is gone (a crashed run's leftovers). Returns the owners removed. */
  async prune(isStale: (owner: string) => boolean | Promise<boolean>): Promise<string[]> {
    const owners = [...new Set((await this.entries()).map((e) => e.owner))];
    const stale: string[] = [];
    for (const o of owners) if (await isStale(o)) stale.push(o);
    if (stale.length > 0) await this.remove(...stale);
    return stale;
  }

  private async read(): Promise<string> {
    try {
      return await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw err;
    }
  }

  private async update(edit: (text: string) => string): Promise<void> {
    const release = await this.lock();
    try {
      const before = await this.read();
      const after = edit(before);
      if (after === before) return;
      await this.write(after);
    } finally {
      await release();
    }
  }

  private async write(text: string): Promise<void> {
    const tmp = join(dirname(this.path), `.${basename(this.path)}.credprov-${process.pid}`);
    const mode = await stat(this.path).then(
      (s) => s.mode & 0o777,
      () => 0o644,
    );
    try {
      await writeFile(tmp, text, { mode });
      await chmod(tmp, mode);
      await rename(tmp, this.path);
    } catch (err) {
      await rm(tmp, { force: true });
      const code = (err as NodeJS.ErrnoException).code;
      // A bind-mounted /etc/hosts (containers) cannot be replaced, only rewritten.
      if (code === 'EBUSY' || code === 'EXDEV') return writeFile(this.path, text);
      if (code === 'EACCES' || code === 'EPERM') {
        throw new PrerequisiteError(`cannot write ${this.path} (${code})`, {
          hint: 'run as root, or use registry hostnames that already resolve to 127.0.0.1',
        });
      }
      throw err;
    }
  }

  // O_EXCL lock file beside the hosts file; a lock older than 30 s is a dead run's and is broken.
  private async lock(): Promise<() => Promise<void>> {
    const lockPath = `${this.path}.credprov.lock`;
    const deadline = Date.now() + this.lockTimeoutMs;
    for (;;) {
      try {
        const fh = await open(lockPath, 'wx');
        await fh.writeFile(String(process.pid));
        await fh.close();
        return () => rm(lockPath, { force: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const age = await stat(lockPath).then(
          (s) => Date.now() - s.mtimeMs,
          () => 0,
        );
        if (age > 30_000) await rm(lockPath, { force: true });
        else if (Date.now() > deadline)
          throw new CredprovError(`${lockPath} is held by another process for more than ${this.lockTimeoutMs} ms`, {
            hint: `remove ${lockPath} if no credprov is running`,
          });
        else await sleep(25);
      }
    }
  }
}
