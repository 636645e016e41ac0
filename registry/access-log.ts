// What a lab registry's own log says about each request (distribution 2.8.2,
// logrus text lines). It names a REFUSED login but not an accepted one, so
// suites that must know which credential reached a registry route through
// a recording proxy instead (recording-proxy.ts, which writes the same
// RegistryRequest records); this reader is for the registry's side:
// - every line of a request carries http.request.id, .host (the Host header:
//   the host:port the client addressed), .method and .uri (with ?ns=… when
//   containerd used it as a mirror);
// - an accepted request ends with "response completed" (or "… with error",
//   which alone carries auth.user.name) and http.response.status;
// - a refused one logs "error authorizing context: …" (401): with
//   "invalid authorization credential" when no Authorization came, and after
//   "error authenticating user \"<name>\"" when Basic credentials of <name>
//   did not verify.
// An accepted request without auth.user.name reads `unknown (accepted)`.
// The password is never in the log.

/** An accepted request whose log lines name no user (distribution 2.8.2 names one only on error completions). */
export const ACCEPTED_UNNAMED = 'unknown (accepted)';

/** One HTTP request the registry answered. */
export interface RegistryRequest {
  /** When it was answered (the answer's status line). */
  time: string;
  /** When it arrived, before any scripted delay (the recording proxy's lines only). */
  received?: string;
  host: string;
  method: string;
  /** The path, without the query. */
  path: string;
  /** `ns` of the query: the image host containerd pulled for, when it used this registry as a mirror. */
  ns?: string;
  status: number;
  /** `none`, the Basic user name, `bearer token for <subject>` (token-auth registries), or ACCEPTED_UNNAMED. */
  credential: string;
  /** The User-Agent (`containerd/v2.3.7` for pulls; empty for the harness's own client). */
  agent: string;
}

/** logfmt fields of one logrus line (quoted values unescaped). */
export function logfmtFields(line: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const re = /([\w.]+)=("((?:[^"\\]|\\.)*)"|\S*)/g;
  for (let m = re.exec(line); m; m = re.exec(line))
    fields[m[1]!] = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[2]!;
  return fields;
}

/** The requests of a registry log, in the order they started. `auth: 'token'`: names are token subjects. */
export function registryRequests(log: string, o: { auth?: 'htpasswd' | 'token' | 'none' } = {}): RegistryRequest[] {
  const byId = new Map<
    string,
    { first: Record<string, string>; user?: string; refusedUser?: string; status?: number }
  >();
  for (const line of log.split('\n')) {
    if (!line.includes('http.request.id=')) continue;
    const f = logfmtFields(line);
    const id = f['http.request.id']!;
    const r = byId.get(id) ?? { first: f };
    byId.set(id, r);
    const msg = f['msg'] ?? '';
    if (f['auth.user.name']) r.user = f['auth.user.name'];
    const refused = /^error authenticating user "(.*)"/.exec(msg);
    if (refused) r.refusedUser = refused[1]!;
    if (msg.startsWith('error authorizing context')) r.status = 401;
    if (f['http.response.status']) r.status = Number(f['http.response.status']);
  }
  const named = (user: string) => (o.auth === 'token' ? `bearer token for ${user}` : user);
  return [...byId.values()]
    .filter((r) => r.status !== undefined)
    .map((r) => {
      const [path, query] = (r.first['http.request.uri'] ?? '').split('?', 2) as [string, string | undefined];
      const ns = query ? new URLSearchParams(query).get('ns') : null;
      const user = r.user ?? r.refusedUser;
      return {
        time: (r.first['time'] ?? '').toString(),
        host: r.first['http.request.host'] ?? '',
        method: r.first['http.request.method'] ?? '',
        path,
        ...(ns ? { ns } : {}),
        status: r.status!,
        credential: user ? named(user) : r.status === 401 ? 'none' : ACCEPTED_UNNAMED,
        agent: r.first['http.request.useragent'] ?? '',
      };
    })
    .sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
}

/** Per addressed host, the credentials seen ('none' for anonymous requests), sorted. */
export function credentialsSeen(requests: RegistryRequest[]): Record<string, string[]> {
  const seen: Record<string, Set<string>> = {};
  for (const r of requests) (seen[r.host] ??= new Set()).add(r.credential);
  return Object.fromEntries(Object.entries(seen).map(([h, s]) => [h, [...s].sort()]));
}
