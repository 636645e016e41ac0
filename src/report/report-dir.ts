// Makes sure reports can be written before a run starts, so a bad --report-dir
// costs a second, not a whole certification, and gets one clear line (exit 2)
// instead of a raw EEXIST or ENOTDIR at the end. Directories are created one
// level at a time: Node's recursive mkdir never returns for a path under /proc
// (it retries forever at 100% CPU).
import { constants } from 'node:fs';
import { mkdir, open, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { defaultReportDir } from '../core/paths.ts';

const WHY: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  ENOENT: 'directories cannot be created there',
  ENAMETOOLONG: 'the name is too long',
};

/**
 * Resolves --report-dir (`given`; undefined for the default reports/<timestamp>/)
 * against `cwd`, creates it and proves it writable. Returns the absolute path.
 */
export async function prepareReportDir(
  given: string | undefined,
  cwd: string,
  startedAt = new Date(),
  flag = '--report-dir',
): Promise<string> {
  if (given !== undefined && given.trim() === '') {
    throw new UsageError(`${flag} "": the path is empty`, {
      hint: `name a directory, or leave ${flag} out for reports/<timestamp>/`,
    });
  }
  const dir = given !== undefined ? resolve(cwd, given) : defaultReportDir(cwd, startedAt);
  const refuse = (why: string): never => {
    throw new UsageError(`${flag} ${dir}: ${why}`, {
      hint:
        given === undefined ? `pass ${flag} with a directory you can write to` : 'pick a directory you can write to',
    });
  };

  // The missing tail of the path, deepest first, and the nearest thing that exists.
  const missing: string[] = [];
  let at = dir;
  for (;;) {
    let isDir: boolean;
    try {
      isDir = (await stat(at)).isDirectory();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      if (code === 'ENOTDIR') refuse(`${dirname(at)} is not a directory`);
      if (code !== 'ENOENT') refuse(`cannot look at ${at} (${WHY[code] ?? code})`);
      missing.unshift(at);
      const up = dirname(at);
      if (up === at) break;
      at = up;
      continue;
    }
    if (!isDir) refuse(at === dir ? 'is a file, not a directory' : `${at} is a file, not a directory`);
    break;
  }
  for (const d of missing) {
    try {
      await mkdir(d);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? '';
      if (code !== 'EEXIST') refuse(`cannot create ${d} (${WHY[code] ?? code})`);
    }
  }
  // Write access as root ignores modes, but not read-only mounts or /proc: try it.
  const probe = join(dir, `.credprov-write-test-${process.pid}`);
  try {
    const fh = await open(probe, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
    await fh.close();
    await unlink(probe);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    refuse(`cannot write there (${code === 'ENOENT' ? 'files cannot be created there' : (WHY[code] ?? code)})`);
  }
  return dir;
}
