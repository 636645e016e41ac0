// Which images to ask the plugin about. The kubelet sends the normalized
// repository (no tag, no digest), and only for images one of the provider's
// matchImages covers; credprov does the same.
import { UsageError } from '../../core/errors.ts';
import type { CredentialProvider } from '../../api/credentialprovider/types.ts';
import { normalizeImage } from '../../matching/image.ts';
import { matchImage } from '../../matching/url.ts';

export const PROBE_REPOSITORY = 'credprov/probe';
const MAX_DERIVED = 4;

/**
 * An image a matchImages pattern covers: each host glob becomes a concrete
 * label (`*` → `credprov`, `?` → `x`, `[a-z]` → its first member), the port is
 * kept, and the path (a raw prefix) gets `/credprov/probe` appended.
 *   *.reg.io              → credprov.reg.io/credprov/probe
 *   127.0.0.1:5000        → 127.0.0.1:5000/credprov/probe
 *   reg.io/team           → reg.io/team/credprov/probe
 */
export function imageForPattern(pattern: string): string {
  const slash = pattern.indexOf('/');
  const hostPort = slash < 0 ? pattern : pattern.slice(0, slash);
  const path = slash < 0 ? '' : pattern.slice(slash + 1);
  const colon = hostPort.lastIndexOf(':');
  const host = colon < 0 ? hostPort : hostPort.slice(0, colon);
  const port = colon < 0 ? '' : hostPort.slice(colon);
  const concrete = host
    .split('.')
    .map((label) =>
      label
        .replace(/\[!?([^\]]*)\]/g, (_, set: string) => set.replace(/^\^/, '')[0] ?? 'x')
        .replace(/\*/g, 'credprov')
        .replace(/\?/g, 'x'),
    )
    .join('.');
  const prefix = path === '' ? '' : path.endsWith('/') ? path : `${path}/`;
  return `${concrete}${port}/${prefix}${PROBE_REPOSITORY}`;
}

/** Images derived from the provider's matchImages (at most 4, duplicates dropped). */
export function derivedImages(provider: CredentialProvider): string[] {
  const out: string[] = [];
  for (const p of provider.matchImages) {
    const image = repositoryOf(imageForPattern(p));
    if (!out.includes(image)) out.push(image);
    if (out.length >= MAX_DERIVED) break;
  }
  return out;
}

export function repositoryOf(ref: string): string {
  return normalizeImage(ref).repository;
}

/** Normalizes user-given images and refuses ones the kubelet would never send to this provider. */
export function chooseImages(provider: CredentialProvider, given: string[]): string[] {
  if (given.length === 0) return derivedImages(provider);
  const out: string[] = [];
  for (const ref of given) {
    let repo: string;
    try {
      repo = repositoryOf(ref);
    } catch (err) {
      throw new UsageError(
        `--image ${ref}: not an image reference (${err instanceof Error ? err.message : String(err)})`,
      );
    }
    if (!provider.matchImages.some((p) => matchImage(p, repo).match)) {
      throw new UsageError(
        `--image ${ref}: provider ${provider.name} does not match it (matchImages: ${provider.matchImages.join(', ')}), so the kubelet would never ask this plugin for it`,
        {
          hint: 'pick an image one of the matchImages patterns covers (globs only in host labels, exact port, path prefix); `credprov explain` says why a pattern does not match',
        },
      );
    }
    if (!out.includes(repo)) out.push(repo);
  }
  return out;
}

/** An image none of the matchImages covers, to see how the plugin declines. */
export function unservableImage(provider: CredentialProvider): string {
  for (const host of ['credprov-unservable.invalid', 'unservable.credprov.example', 'localhost:1']) {
    const repo = `${host}/${PROBE_REPOSITORY}`;
    if (!provider.matchImages.some((p) => matchImage(p, repo).match)) return repo;
  }
  return `credprov-unservable-${Date.now()}.invalid/${PROBE_REPOSITORY}`;
}
