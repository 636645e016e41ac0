// The parts of Go's net/url.Parse and net.SplitHostPort that decide how the
// kubelet reads a matchImages entry or an image (both as "https://" + s).
// Rules follow Go 1.26 (the toolchain of kubelet 1.36/1.37, godebug
// default=go1.26): a '[' is only allowed to open an IPv6 literal, and a
// second ':' in an https host is an invalid port, not part of the host.

export interface GoUrl {
  /** Host as url.URL.Host: percent-decoded, brackets and port kept. */
  host: string;
  /** url.URL.Path: percent-decoded, '' when the input has no '/'. */
  path: string;
}

export type GoUrlResult = { ok: true; url: GoUrl } | { ok: false; error: string };

// Bytes Go's encoding table allows unescaped in a host (encodeHost).
const HOST_OK = new Set([
  ...'!"$&\'()*+,-.:;<=>[]_~',
  ...'0123456789',
  ...'abcdefghijklmnopqrstuvwxyz',
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
]);

/** url.Parse("https://" + s), with Go's error text. */
export function parseSchemeless(s: string): GoUrlResult {
  return parseGoUrl(`https://${s}`);
}

/** url.Parse for an absolute http(s) URL string. */
export function parseGoUrl(raw: string): GoUrlResult {
  const [withoutFragment, fragment] = cut(raw, '#');
  const fail = (msg: string, url = withoutFragment): GoUrlResult => ({
    ok: false,
    error: `parse ${goQuote(url)}: ${msg}`,
  });
  if (/[\x00-\x1f\x7f]/.test(withoutFragment)) return fail('net/url: invalid control character in URL');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(withoutFragment);
  if (!scheme) return fail('missing protocol scheme');
  let rest = withoutFragment.slice(scheme[0].length);
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else rest = cut(rest, '?')[0];
  let path = rest;
  let host = '';
  if (rest.startsWith('//')) {
    let authority = rest.slice(2);
    path = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      path = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const at = authority.lastIndexOf('@');
    const parsedHost = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (typeof parsedHost !== 'string') return fail(parsedHost.error);
    host = parsedHost;
    if (at >= 0 && !/^[-A-Za-z0-9._:~!$&'()*+,;=%@]*$/.test(authority.slice(0, at)))
      return fail('net/url: invalid userinfo');
  }
  const decodedPath = unescape(path, 'path');
  if (typeof decodedPath !== 'string') return fail(decodedPath.error);
  if (fragment !== undefined) {
    const f = unescape(fragment, 'path');
    if (typeof f !== 'string') return fail(f.error, raw);
  }
  return { ok: true, url: { host, path: decodedPath } };
}

function parseHost(host: string): string | { error: string } {
  const open = host.lastIndexOf('[');
  if (open > 0) return { error: 'invalid IP-literal' };
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) return { error: "missing ']' in host" };
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) return { error: `invalid port ${goQuote(colonPort)} after host` };
    const inner = unescape(host.slice(1, close), 'host');
    if (typeof inner !== 'string') return inner;
    if (!isIPv6(inner))
      return {
        error: isIPv4(inner) ? 'invalid IP-literal' : `invalid host: ParseAddr(${goQuote(inner)}): unable to parse IP`,
      };
    return `[${inner}]${colonPort}`;
  }
  const colon = host.indexOf(':');
  if (colon >= 0) {
    const colonPort = host.slice(colon);
    if (!validOptionalPort(colonPort)) return { error: `invalid port ${goQuote(colonPort)} after host` };
  }
  return unescape(host, 'host');
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

function unescape(s: string, mode: 'host' | 'path'): string | { error: string } {
  const bytes: number[] = [];
  const raw = Buffer.from(s, 'utf8');
  for (let i = 0; i < raw.length;) {
    const c = raw[i]!;
    if (c === 0x25 /* % */) {
      const hex = raw.subarray(i + 1, i + 3).toString('latin1');
      if (!/^[0-9a-fA-F]{2}$/.test(hex))
        return { error: `invalid URL escape ${goQuote(raw.subarray(i, i + 3).toString('latin1'))}` };
      if (mode === 'host' && parseInt(hex[0]!, 16) < 8 && hex !== '25')
        return { error: `invalid URL escape ${goQuote(`%${hex}`)}` };
      bytes.push(parseInt(hex, 16));
      i += 3;
      continue;
    }
    if (mode === 'host' && c < 0x80 && !HOST_OK.has(String.fromCharCode(c))) {
      return { error: `invalid character ${goQuote(String.fromCharCode(c))} in host name` };
    }
    bytes.push(c);
    i++;
  }
  return Buffer.from(bytes).toString('utf8');
}

/** net.SplitHostPort; on error the kubelet uses the whole host and no port. */
export function splitHostPort(hostport: string): { host: string; port: string } | undefined {
  const i = hostport.lastIndexOf(':');
  if (i < 0) return undefined;
  let host: string;
  let j = 0;
  let k = 0;
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']');
    if (end < 0 || end + 1 !== i) return undefined;
    host = hostport.slice(1, end);
    j = 1;
    k = end + 1;
  } else {
    host = hostport.slice(0, i);
    if (host.includes(':')) return undefined;
  }
  if (hostport.slice(j).includes('[') || hostport.slice(k).includes(']')) return undefined;
  return { host, port: hostport.slice(i + 1) };
}

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
}

function isIPv6(addr: string): boolean {
  const s = addr.replace(/%.*$/, '');
  if (!s.includes(':')) return false;
  let groups = s.split(':');
  let tail = 0;
  if (groups.length > 0 && groups[groups.length - 1]!.includes('.')) {
    if (!isIPv4(groups[groups.length - 1]!)) return false;
    groups = groups.slice(0, -1);
    tail = 2;
  }
  const text = groups.join(':');
  const doubles = text.split('::').length - 1;
  if (doubles > 1) return false;
  const hexGroup = (g: string) => /^[0-9a-fA-F]{1,4}$/.test(g);
  if (doubles === 1) {
    const [a, b] = text.split('::') as [string, string];
    const left = a === '' ? [] : a.split(':');
    const right = b === '' ? [] : b.split(':');
    return [...left, ...right].every(hexGroup) && left.length + right.length + tail < 8;
  }
  const all = text.split(':');
  return all.every(hexGroup) && all.length + tail === 8;
}

function cut(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}

/** Go's %q for the strings that occur here (JSON quoting is the same for printable text). */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
