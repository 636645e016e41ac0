// The scripts credprov writes for something else to run (wrappers in front of
// plugins, the fake provider's launcher): one quoting rule and one way to put
// them in place, so a kubelet or client never execs half a script.
import { chmod, rename, writeFile } from 'node:fs/promises';

/** One word for sh: safe characters as they are, anything else single-quoted. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Writes an executable script at `path` atomically (a temp file renamed over it); returns `path`. */
export async function writeScript(path: string, text: string): Promise<string> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, text);
  await chmod(tmp, 0o755);
  await rename(tmp, path);
  return path;
}
