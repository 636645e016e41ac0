// A minimal ustar writer: enough for image layers (regular files, dirs,
// symlinks) and archives of blobs. Deterministic: fixed mtime, uid/gid 0, so the
// same inputs give the same layer digest and pushes are idempotent.

export type TarEntry =
  | { type: 'file'; path: string; data: Uint8Array | string; mode?: number }
  | { type: 'dir'; path: string; mode?: number }
  | { type: 'symlink'; path: string; target: string };

const BLOCK = 512;
const encoder = new TextEncoder();

export function tar(entries: TarEntry[], mtime = 0): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data =
      e.type === 'file' ? (typeof e.data === 'string' ? Buffer.from(e.data) : Buffer.from(e.data)) : Buffer.alloc(0);
    parts.push(header(e, data.length, mtime));
    if (data.length > 0) {
      parts.push(data);
      const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
      if (pad) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

function header(e: TarEntry, size: number, mtime: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  let path = e.path.replace(/^\/+/, '');
  if (e.type === 'dir' && !path.endsWith('/')) path += '/';
  const [prefix, name] = splitPath(path);
  put(h, 0, 100, name);
  const mode = e.type === 'symlink' ? 0o777 : (e.mode ?? (e.type === 'dir' ? 0o755 : 0o644));
  put(h, 100, 8, octal(mode, 7));
  put(h, 108, 8, octal(0, 7));
  put(h, 116, 8, octal(0, 7));
  put(h, 124, 12, octal(size, 11));
  put(h, 136, 12, octal(mtime, 11));
  h.fill(0x20, 148, 156); // checksum is computed with its own field as spaces
  put(h, 156, 1, e.type === 'file' ? '0' : e.type === 'dir' ? '5' : '2');
  if (e.type === 'symlink') put(h, 157, 100, e.target);
  put(h, 257, 6, 'ustar\0');
  put(h, 263, 2, '00');
  put(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  put(h, 148, 8, `${octal(sum, 6)}\0 `);
  return h;
}

// ustar keeps long paths as prefix (155) + name (100), split at a slash.
function splitPath(path: string): [string, string] {
  if (encoder.encode(path).length <= 100) return ['', path];
  for (let i = path.length - 1; i > 0; i--) {
    if (path[i] !== '/') continue;
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (encoder.encode(prefix).length <= 155 && encoder.encode(name).length <= 100 && name.length > 0)
      return [prefix, name];
  }
  throw new Error(`tar: path too long for ustar: ${path}`);
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width, '0');
}

function put(buf: Buffer, offset: number, length: number, value: string): void {
  const bytes = encoder.encode(value);
  if (bytes.length > length) throw new Error(`tar: field too long: ${value}`);
  buf.set(bytes, offset);
}

/** Reads back entry names and types: for tests, and to check archives we wrote. */
export function listTar(buf: Buffer): Array<{ path: string; type: string; size: number; linkTarget: string }> {
  const out = [];
  let off = 0;
  while (off + BLOCK <= buf.length) {
    const h = buf.subarray(off, off + BLOCK);
    if (h.every((b) => b === 0)) break;
    const str = (a: number, l: number) =>
      h
        .subarray(a, a + l)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = parseInt(str(124, 12) || '0', 8);
    const prefix = str(345, 155);
    const name = str(0, 100);
    out.push({ path: prefix ? `${prefix}/${name}` : name, type: str(156, 1), size, linkTarget: str(157, 100) });
    off += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return out;
}
