// Would execve(2) start this file? Decided before spawning it, because the
// answer differs between us and the components we stand in for:
//   - the kubelet and client-go start plugins with Go's os/exec, a bare execve:
//     a file the kernel has no loader for fails with ENOEXEC, which Go reports
//     as "fork/exec <path>: exec format error";
//   - Node's spawn goes through libuv's execvp, and glibc's execvp runs such a
//     file with /bin/sh instead. A script without a #! line works here and
//     fails in production.
// The kernel's loaders, in the order it tries them: ELF (\x7fELF), scripts
// (#!), then the binfmt_misc handlers registered on this machine (magic bytes
// at an offset, or a file name extension). What none of them claims is ENOEXEC.
// Not modelled: an ELF file the kernel cannot load (another architecture with
// no binfmt_misc handler) still goes to spawn, which falls back to /bin/sh.
import { accessSync, closeSync, constants, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The kernel reads this much of the file to pick a loader (BINPRM_BUF_SIZE); unread bytes are zeros. */
const HEADER_BYTES = 256;
export const BINFMT_MISC_DIR = '/proc/sys/fs/binfmt_misc';

export interface BinfmtHandler {
  name: string;
  /** Match by magic bytes at offset (under mask)… */
  magic?: Buffer;
  mask?: Buffer;
  offset: number;
  /** …or by the file name's extension (without the dot). */
  extension?: string;
}

/**
 * 'ENOEXEC' when execve would refuse `file` (an absolute path) for its format.
 * Undefined when it would start it, and whenever the answer is another error
 * (missing, not executable, unreadable): spawn then reports that, as execve would.
 */
export function execveFormatError(file: string, binfmtDir = BINFMT_MISC_DIR): 'ENOEXEC' | undefined {
  try {
    // The kernel checks these first (ENOENT, EACCES), and spawn reports them the same way.
    if (!statSync(file).isFile()) return undefined;
    accessSync(file, constants.X_OK);
  } catch {
    return undefined;
  }
  const header = readHeader(file);
  if (!header || hasBuiltinLoader(header)) return undefined;
  if (readBinfmtMisc(binfmtDir).some((h) => binfmtMatches(h, header, file))) return undefined;
  return 'ENOEXEC';
}

/**
 * Why execve refuses `file` for its format, in words a vendor can act on:
 * "the file is empty (0 bytes)", or what it starts with instead of #! or an
 * ELF header. Undefined when it cannot be read.
 */
export function formatRefusalReason(file: string): string | undefined {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return undefined;
  }
  if (size === 0) return 'the file is empty (0 bytes)';
  const header = readHeader(file);
  if (!header) return undefined;
  const first = header.subarray(0, Math.min(size, HEADER_BYTES)).toString('utf8').split('\n')[0]!;
  const shown = first.length > 40 ? `${first.slice(0, 40)}…` : first;
  return `it starts with ${JSON.stringify(shown)}: no #! line and no ELF header`;
}

/** ELF, or a #! script: the loaders every Linux kernel has. */
export function hasBuiltinLoader(header: Buffer): boolean {
  const elf = header[0] === 0x7f && header[1] === 0x45 && header[2] === 0x4c && header[3] === 0x46;
  const script = header[0] === 0x23 && header[1] === 0x21;
  return elf || script;
}

function readHeader(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buf = Buffer.alloc(HEADER_BYTES);
    readSync(fd, buf, 0, HEADER_BYTES, 0);
    return buf;
  } catch {
    // Execute-only (no read permission) or gone: let execve decide.
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The enabled handlers under a binfmt_misc mount; none when it is not mounted or disabled. */
export function readBinfmtMisc(dir: string): BinfmtHandler[] {
  try {
    if (readFileSync(join(dir, 'status'), 'utf8').trim() !== 'enabled') return [];
  } catch {
    return [];
  }
  const handlers: BinfmtHandler[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'status' || name === 'register') continue;
    try {
      const h = parseBinfmtEntry(name, readFileSync(join(dir, name), 'utf8'));
      if (h) handlers.push(h);
    } catch {
      // removed meanwhile
    }
  }
  return handlers;
}

/** One /proc/sys/fs/binfmt_misc/<name> file, as the kernel shows it ("enabled", "offset 0", "magic 7f45…", "mask ff…" or "extension .jar"). */
export function parseBinfmtEntry(name: string, text: string): BinfmtHandler | undefined {
  const lines = text.split('\n').map((l) => l.trim());
  if (lines[0] !== 'enabled') return undefined;
  const field = (key: string) =>
    lines
      .find((l) => l.startsWith(`${key} `))
      ?.slice(key.length + 1)
      .trim();
  const extension = field('extension');
  if (extension !== undefined) return { name, offset: 0, extension: extension.replace(/^\./, '') };
  const magic = field('magic');
  if (!magic) return undefined;
  const mask = field('mask');
  return {
    name,
    offset: Number(field('offset') ?? 0),
    magic: Buffer.from(magic, 'hex'),
    ...(mask ? { mask: Buffer.from(mask, 'hex') } : {}),
  };
}

/** The kernel's check_file(): the extension after the path's last dot, or the magic under its mask. */
export function binfmtMatches(h: BinfmtHandler, header: Buffer, file: string): boolean {
  if (h.extension !== undefined) {
    const dot = file.lastIndexOf('.');
    return dot >= 0 && file.slice(dot + 1) === h.extension;
  }
  if (!h.magic) return false;
  for (let i = 0; i < h.magic.length; i++) {
    const mask = h.mask ? (h.mask[i] ?? 0xff) : 0xff;
    if (((header[h.offset + i] ?? 0) ^ h.magic[i]!) & mask) return false;
  }
  return true;
}
