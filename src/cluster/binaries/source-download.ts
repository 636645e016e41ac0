// Official release binaries: <base>/vX.Y.Z/bin/linux/<arch>/<name>, each with
// a <name>.sha256 holding the hex digest. The first request is the small
// checksum file under a short timeout, so an unreachable host (no DNS, no
// route, a firewall) costs seconds and the resolver falls through to a build.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CredprovError } from '../../core/errors.ts';
import { type Logger, noopLogger } from '../../core/logger.ts';
import type { BinaryRecord } from './cache.ts';

export const DEFAULT_DOWNLOAD_BASE_URL = 'https://dl.k8s.io/release';

export type DownloadOutcome =
  | { ok: true; binaries: Record<string, BinaryRecord> }
  /** `unreachable`: the host did not answer (skip it for other versions too); `missing`: it answered 404. */
  | { ok: false; why: 'unreachable' | 'missing'; reason: string };

export interface DownloadOptions {
  version: string;
  names: readonly string[];
  into: string;
  baseUrl?: string;
  arch?: string;
  /** Budget for the first (checksum) request; keeps an unreachable host cheap. */
  connectTimeoutMs?: number;
  /** Budget for one binary (100+ MB). */
  binaryTimeoutMs?: number;
  fetchImpl?: typeof fetch;
  log?: Logger;
}

export function goArch(nodeArch = process.arch): string {
  const map: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' };
  return map[nodeArch] ?? nodeArch;
}

export function releaseUrl(base: string, version: string, arch: string, name: string): string {
  return `${base.replace(/\/+$/, '')}/${version}/bin/linux/${arch}/${name}`;
}

export class ChecksumMismatchError extends CredprovError {}

export async function downloadKubeBinaries(o: DownloadOptions): Promise<DownloadOutcome> {
  const base = o.baseUrl ?? DEFAULT_DOWNLOAD_BASE_URL;
  const arch = o.arch ?? goArch();
  const doFetch = o.fetchImpl ?? fetch;
  const log = o.log ?? noopLogger;
  const out: Record<string, BinaryRecord> = {};
  for (const [i, name] of o.names.entries()) {
    const url = releaseUrl(base, o.version, arch, name);
    let sumText: string;
    try {
      const r = await doFetch(`${url}.sha256`, { signal: AbortSignal.timeout(o.connectTimeoutMs ?? 5000) });
      if (r.status === 404 || r.status === 403) {
        return {
          ok: false,
          why: 'missing',
          reason: `${url}.sha256 answered ${r.status}: ${o.version} is not published there`,
        };
      }
      if (!r.ok) return { ok: false, why: 'unreachable', reason: `${url}.sha256 answered ${r.status}` };
      sumText = await r.text();
    } catch (err) {
      // Only the very first request decides reachability; later failures are real errors.
      if (i > 0) throw new CredprovError(`downloading ${url}.sha256 failed: ${describe(err)}`);
      return { ok: false, why: 'unreachable', reason: `${new URL(url).host} is unreachable (${describe(err)})` };
    }
    const expected = /^[0-9a-f]{64}/i.exec(sumText.trim())?.[0]?.toLowerCase();
    if (!expected)
      throw new CredprovError(`${url}.sha256 does not hold a SHA-256 digest`, { detail: sumText.slice(0, 200) });

    const file = join(o.into, name);
    log.debug(`downloading ${url}`);
    const { sha256, size } = await fetchToFile(doFetch, url, file, o.binaryTimeoutMs ?? 15 * 60_000);
    if (sha256 !== expected) {
      await rm(file, { force: true });
      throw new ChecksumMismatchError(`checksum mismatch for ${name} ${o.version} from ${url}`, {
        detail: `expected sha256 ${expected}\ngot      sha256 ${sha256}`,
        hint: 'the download is corrupt or the mirror serves other files; nothing was cached',
      });
    }
    await chmod(file, 0o755);
    out[name] = { sha256, size };
  }
  return { ok: true, binaries: out };
}

async function fetchToFile(doFetch: typeof fetch, url: string, file: string, timeoutMs: number): Promise<BinaryRecord> {
  let r: Response;
  try {
    r = await doFetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new CredprovError(`downloading ${url} failed: ${describe(err)}`);
  }
  if (!r.ok || !r.body) throw new CredprovError(`downloading ${url} failed: HTTP ${r.status}`);
  const hash = createHash('sha256');
  let size = 0;
  const body = Readable.fromWeb(r.body as import('node:stream/web').ReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    size += chunk.length;
  });
  try {
    await pipeline(body, createWriteStream(file, { mode: 0o644 }));
  } catch (err) {
    await rm(file, { force: true });
    throw new CredprovError(`downloading ${url} failed: ${describe(err)}`);
  }
  return { sha256: hash.digest('hex'), size };
}

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return 'timed out';
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}
