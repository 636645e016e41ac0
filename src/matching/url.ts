// The kubelet's image matching (pkg/credentialprovider keyring.go URLsMatch),
// as an oracle that also says *why* something does not match. Steps, in the
// kubelet's order: parse both as "https://" + s; ports must be equal as
// written; host label counts must be equal; the target path must start with
// the pattern path (a raw string prefix, '*' is literal there); then each
// host label is a Go filepath.Match glob against the same label.
import { globMatch } from './glob.ts';
import { normalizeImage, type NormalizedImage } from './image.ts';
import { goQuote, parseGoUrl, parseSchemeless, splitHostPort, type GoUrl } from './gourl.ts';

export interface UrlParts {
  host: string;
  port: string;
  labels: string[];
  path: string;
}

export interface MatchResult {
  match: boolean;
  /** One line for humans: 'matched', 'port differs: …', 'host label count differs: …', 'path prefix …'. */
  reason: string;
  /** A likely fix when the miss looks like a common mistake. */
  hint?: string;
  detail?: {
    step: 'parse' | 'port' | 'labelCount' | 'path' | 'label' | 'matched';
    pattern?: UrlParts;
    target?: UrlParts;
    /** Index of the host label that failed the glob. */
    label?: number;
    /** The image as normalised before matching (matchImage only). */
    image?: NormalizedImage;
    /** The auth key as the kubelet stores it (authKeyMatches only). */
    key?: string;
  };
}

function parts(url: GoUrl): UrlParts {
  const split = splitHostPort(url.host);
  const host = split ? split.host : url.host;
  const port = split ? split.port : '';
  return { host, port, labels: host.split('.'), path: url.path };
}

/** URLsMatchStr(pattern, target): both strings taken as written. */
export function matchPattern(pattern: string, target: string): MatchResult {
  const p = parseSchemeless(pattern);
  if (!p.ok) {
    return {
      match: false,
      reason: `pattern is not a valid URL: ${p.error}`,
      hint: patternHint(pattern),
      detail: { step: 'parse' },
    };
  }
  const t = parseSchemeless(target);
  if (!t.ok) return { match: false, reason: `image is not a valid URL: ${t.error}`, detail: { step: 'parse' } };
  const pp = parts(p.url);
  const tp = parts(t.url);
  const detail = { pattern: pp, target: tp };
  const hint = patternHint(pattern);
  const withHint = (r: MatchResult): MatchResult => (hint && !r.match ? { ...r, hint } : r);

  if (pp.port !== tp.port) {
    const show = (x: string) => (x === '' ? 'none' : x);
    const hostsAgree = hostLabelsMatch(pp.labels, tp.labels);
    const portHint =
      pp.port === ''
        ? `add the port to the pattern: ${pp.host}:${tp.port}${pp.path}`
        : `the image names ${tp.port === '' ? 'no port' : `port ${tp.port}`}; a pattern with a port only matches that exact port`;
    return withHint({
      match: false,
      reason: `port differs: pattern has ${show(pp.port)}, image has ${show(tp.port)} (ports must be equal as written; no default port)${hostsAgree ? '' : '; the host differs too'}`,
      ...(hint || !hostsAgree ? {} : { hint: portHint }),
      detail: { step: 'port', ...detail },
    });
  }
  if (pp.labels.length !== tp.labels.length) {
    return withHint({
      match: false,
      reason: `host label count differs: pattern has ${pp.labels.length}, image has ${tp.labels.length} (${goQuote(pp.host)} vs ${goQuote(tp.host)}; '*' matches within one label only)`,
      detail: { step: 'labelCount', ...detail },
    });
  }
  if (!tp.path.startsWith(pp.path)) {
    return withHint({
      match: false,
      reason: `path prefix: image path ${goQuote(tp.path)} does not start with pattern path ${goQuote(pp.path)} (a plain string prefix; '*' is literal in paths)`,
      detail: { step: 'path', ...detail },
    });
  }
  for (let i = 0; i < pp.labels.length; i++) {
    const g = globMatch(pp.labels[i]!, tp.labels[i]!);
    if (g.error) {
      return withHint({
        match: false,
        reason: `host label ${i + 1} ${goQuote(pp.labels[i]!)} is not a valid glob: ${g.error}`,
        detail: { step: 'label', label: i, ...detail },
      });
    }
    if (!g.match) {
      return withHint({
        match: false,
        reason: `host label ${i + 1} differs: ${goQuote(pp.labels[i]!)} does not match ${goQuote(tp.labels[i]!)}`,
        detail: { step: 'label', label: i, ...detail },
      });
    }
  }
  return { match: true, reason: 'matched', detail: { step: 'matched', ...detail } };
}

function hostLabelsMatch(pattern: string[], target: string[]): boolean {
  return pattern.length === target.length && pattern.every((l, i) => globMatch(l, target[i]!).match);
}

/** Is this provider's matchImages entry used for this image, as the kubelet decides it. */
export function matchImage(pattern: string, imageRef: string): MatchResult {
  const image = normalizeImage(imageRef);
  const r = matchPattern(pattern, image.repository);
  const hint = r.hint ?? dockerHubHint(pattern, image);
  return {
    ...r,
    ...(hint && !r.match ? { hint } : {}),
    detail: { step: r.detail?.step ?? 'parse', ...r.detail, image },
  };
}

/** The kubelet's keyring key for a response `auth` key (BasicDockerKeyring.Add), or undefined if it is ignored. */
export function authKeyToKeyringKey(key: string): string | undefined {
  const withScheme = key.startsWith('https://') || key.startsWith('http://') ? key : `https://${key}`;
  const parsed = parseGoUrl(withScheme);
  if (!parsed.ok) return undefined;
  let path = parsed.url.path;
  // docker-client compatibility: /v1/ and /v2/ mean "the registry itself".
  if (path.startsWith('/v2/') || path.startsWith('/v1/')) path = path.slice(3);
  return path.length > 0 && path !== '/' ? parsed.url.host + path : parsed.url.host;
}

/**
 * Does a response `auth` key apply to a repository (the request's `image`)?
 * Keys lose their http(s):// scheme and a leading /v1/ or /v2/; the key
 * index.docker.io (and so https://index.docker.io/v1/) also serves any
 * Docker Hub image when no other key of the keyring matched it.
 */
export function authKeyMatches(key: string, repository: string): MatchResult {
  const keyringKey = authKeyToKeyringKey(key);
  if (keyringKey === undefined) {
    const p = parseGoUrl(key.startsWith('https://') || key.startsWith('http://') ? key : `https://${key}`);
    return {
      match: false,
      reason: `auth key is ignored by the kubelet: ${p.ok ? 'unparseable' : p.error}`,
      detail: { step: 'parse' },
    };
  }
  const r = matchPattern(keyringKey, repository);
  if (!r.match && keyringKey === 'index.docker.io' && isDefaultRegistryMatch(repository)) {
    return {
      match: true,
      reason: 'matched as the default registry (index.docker.io serves Docker Hub images)',
      detail: { ...r.detail, step: 'matched', key: keyringKey },
    };
  }
  return { ...r, detail: { step: r.detail?.step ?? 'parse', ...r.detail, key: keyringKey } };
}

/** keyring.go isDefaultRegistryMatch: would this repository be pulled from Docker Hub? */
export function isDefaultRegistryMatch(image: string): boolean {
  const slash = image.indexOf('/');
  const first = slash < 0 ? image : image.slice(0, slash);
  if (first.length === 0) return false;
  if (slash < 0) return true;
  if (first === 'docker.io' || first === 'index.docker.io') return true;
  return !/[.:]/.test(first);
}

/**
 * Why a matchImages entry the kubelet accepts can still never match an
 * image (a scheme, a glob in the path, '?' in the host, a Docker Hub alias).
 */
export function patternWarning(pattern: string): string | undefined {
  const hint = patternHint(pattern);
  if (hint) return hint;
  const host = pattern.split('/')[0]!;
  if (host === 'index.docker.io' || host === 'registry-1.docker.io' || host === '*.docker.io') {
    return `Docker Hub images are normalised to docker.io/…, so ${JSON.stringify(host)} never matches them; use "docker.io${pattern.slice(host.length)}"`;
  }
  return undefined;
}

function patternHint(pattern: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pattern)) {
    return `drop the scheme: matchImages entries are schemeless, the kubelet reads this one as host ${goQuote(pattern.split(':')[0]!)}`;
  }
  const slash = pattern.indexOf('/');
  if (slash >= 0 && /[*?[]/.test(pattern.slice(slash))) {
    return 'globs work only in host labels; the path is a plain prefix, so drop the wildcard (reg.io/team matches reg.io/team/app)';
  }
  if (slash < 0 ? pattern.includes('?') : pattern.slice(0, slash).includes('?')) {
    return "'?' starts a URL query, so it cannot be used as a glob in matchImages; use '*' or list the hosts";
  }
  return undefined;
}

function dockerHubHint(pattern: string, image: NormalizedImage): string | undefined {
  if (image.registry !== 'docker.io') return undefined;
  const host = pattern.split('/')[0]!;
  if (host === 'docker.io') return undefined;
  if (/docker\.io$/.test(host) || host === 'registry-1.docker.io') {
    return `Docker Hub images are normalised to docker.io/…; use the pattern "docker.io${pattern.slice(host.length)}"`;
  }
  return undefined;
}
