// Image reference normalisation as the kubelet does it before asking the
// credential providers (pkg/util/parsers.ParseImageName, which uses the
// distribution/reference grammar and ParseNormalizedNamed): implicit
// docker.io and library/, tag and digest split off. `repository` is exactly
// the string the kubelet sends as CredentialProviderRequest.image.
import { ConfigError } from '../core/errors.ts';

export interface NormalizedImage {
  input: string;
  /** docker.io/library/nginx: the request's `image`, the string matched against matchImages. */
  repository: string;
  /** host[:port], the cache key for cacheKeyType Registry. */
  registry: string;
  /** Repository path without the registry: library/nginx. */
  path: string;
  tag?: string;
  digest?: string;
  /** No tag and no digest given: the kubelet pulls :latest. */
  implicitLatest: boolean;
}

const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const NAME_TOTAL_LENGTH_MAX = 255;

// distribution/reference grammar.
const alnum = '[a-z0-9]+';
const separator = '(?:[._]|__|[-]+)';
const pathComponent = `${alnum}(?:${separator}${alnum})*`;
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const ipv6 = '\\[(?:[a-fA-F0-9:]+)\\]';
const domainName = `${domainComponent}(?:\\.${domainComponent})*`;
const domainAndPort = `(?:${domainName}|${ipv6})(?::[0-9]+)?`;
const tagPat = '[\\w][\\w.-]{0,127}';
const digestPat = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const namePat = `(?:${domainAndPort}/)?${pathComponent}(?:/${pathComponent})*`;
const REFERENCE = new RegExp(`^(${namePat})(?::(${tagPat}))?(?:@(${digestPat}))?$`);
const ANCHORED_NAME = new RegExp(`^(?:(${domainAndPort})/)?(${pathComponent}(?:/${pathComponent})*)$`);
const IDENTIFIER = /^[a-f0-9]{64}$/;

const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

function splitDockerDomain(name: string): { domain: string; remainder: string } {
  const i = name.indexOf('/');
  let domain: string;
  let remainder: string;
  const first = i < 0 ? '' : name.slice(0, i);
  if (i < 0 || (!/[.:]/.test(first) && first !== 'localhost' && first.toLowerCase() === first)) {
    domain = DEFAULT_DOMAIN;
    remainder = name;
  } else {
    domain = first;
    remainder = name.slice(i + 1);
  }
  if (domain === LEGACY_DEFAULT_DOMAIN) domain = DEFAULT_DOMAIN;
  if (domain === DEFAULT_DOMAIN && !remainder.includes('/')) remainder = `library/${remainder}`;
  return { domain, remainder };
}

/** Returns the distribution/reference error text, or the parsed parts. */
export function parseImageReference(ref: string): { error: string } | Omit<NormalizedImage, 'input'> {
  if (IDENTIFIER.test(ref))
    return { error: `invalid repository name (${ref}), cannot specify 64-byte hexadecimal strings` };
  const { domain, remainder } = splitDockerDomain(ref);
  const tagSep = remainder.indexOf(':');
  const remote = tagSep > -1 ? remainder.slice(0, tagSep) : remainder;
  if (remote.toLowerCase() !== remote)
    return { error: `invalid reference format: repository name (${remote}) must be lowercase` };
  const full = `${domain}/${remainder}`;
  const m = REFERENCE.exec(full);
  if (!m) {
    if (full === '') return { error: 'repository name must have at least one component' };
    if (REFERENCE.test(full.toLowerCase()))
      return { error: 'invalid reference format: repository name must be lowercase' };
    return { error: 'invalid reference format' };
  }
  const name = m[1]!;
  const nm = ANCHORED_NAME.exec(name);
  const registry = nm?.[1] ?? '';
  const path = nm?.[2] ?? name;
  if (path.length > NAME_TOTAL_LENGTH_MAX)
    return { error: `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters` };
  const tag = m[2];
  const digest = m[3];
  if (digest !== undefined) {
    const [algorithm, hex] = digest.split(':') as [string, string];
    const want = DIGEST_HEX_LENGTH[algorithm];
    if (want === undefined) {
      return {
        error: /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(digest)
          ? 'unsupported digest algorithm'
          : 'invalid checksum digest format',
      };
    }
    if (hex.length !== want) return { error: 'invalid checksum digest length' };
    if (!/^[a-f0-9]+$/.test(hex)) return { error: 'invalid checksum digest format' };
  }
  return {
    repository: name,
    registry,
    path,
    ...(tag !== undefined ? { tag } : {}),
    ...(digest !== undefined ? { digest } : {}),
    implicitLatest: tag === undefined && digest === undefined,
  };
}

/** Normalise like the kubelet; an invalid reference is a ConfigError carrying the kubelet's reason. */
export function normalizeImage(ref: string): NormalizedImage {
  const parsed = parseImageReference(ref);
  if ('error' in parsed) {
    throw new ConfigError(`invalid image reference ${JSON.stringify(ref)}: ${parsed.error}`, {
      hint: 'write it as [registry[:port]/]path[:tag][@digest], path in lowercase, e.g. reg.example.com:5000/team/app:1.0',
    });
  }
  return { input: ref, ...parsed };
}
