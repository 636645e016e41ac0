// Reading a file the user named (--config and its directory, --kubeconfig and
// the CA files it names, --spec, --verify-pull-ca). Whatever sits at the path,
// the read ends at once: a FIFO would block open() and read() forever, a
// device never ends, and a 20 MB "config" is a mistake, so each is refused
// with an InputFileError naming the file (exit 2).
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { InputFileError } from './errors.ts';

/** Configs, kubeconfigs, specs and CA files are kilobytes; anything past this is refused. */
export const MAX_INPUT_BYTES = 8 * 1024 * 1024;

export interface InputFileOptions {
  /** Put before the path in messages: "kubeconfig", "--verify-pull-ca" … */
  label?: string;
  hint?: string;
  maxBytes?: number;
}

const CODES: Record<string, string> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'no such file or directory (a parent is not a directory)',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the name is too long',
};

/** What a non-regular file is, in a few words. */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a file';
}

export async function readInputText(path: string, o: InputFileOptions = {}): Promise<string> {
  return (await readInputBytes(path, o)).toString('utf8');
}

export async function readInputBytes(path: string, o: InputFileOptions = {}): Promise<Buffer> {
  const max = o.maxBytes ?? MAX_INPUT_BYTES;
  const refuse = (what: string): never => {
    throw new InputFileError(`${o.label ? `${o.label} ` : ''}${path}: ${what}`, {
      file: path,
      ...(o.hint ? { hint: o.hint } : {}),
    });
  };
  let fh: FileHandle | undefined;
  try {
    // O_NONBLOCK: opening a FIFO without a writer would otherwise wait for one.
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    refuse(CODES[code] ?? `cannot be read (${code || String(e)})`);
  }
  try {
    // Judged on the open file, not the path, so nothing can be swapped in between.
    const st = await fh!.stat();
    if (st.isDirectory()) refuse('is a directory, not a file');
    if (!st.isFile()) refuse(`not a regular file (${fileKind(st)})`);
    if (st.size > max) refuse(tooLarge(st.size, max));
    // Read to the end, up to one byte past the limit (files in /proc say size 0).
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead, buffer } = await fh!.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > max) refuse(tooLarge(total, max, true));
    }
    return Buffer.concat(chunks);
  } catch (e) {
    if (e instanceof InputFileError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? '';
    return refuse(CODES[code] ?? `cannot be read (${code || String(e)})`);
  } finally {
    await fh!.close();
  }
}

function tooLarge(bytes: number, max: number, atLeast = false): string {
  return `${atLeast ? 'more than ' : ''}${mib(atLeast ? max : bytes)} is too large; credprov reads input files of up to ${mib(max)}`;
}

function mib(bytes: number): string {
  const m = bytes / (1024 * 1024);
  return Number.isInteger(m) ? `${m} MiB` : `${m.toFixed(1)} MiB`;
}
