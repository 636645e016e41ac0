// credprov's model of which hosts containerd contacts for one CRI image pull,
// and which credential each of them sees (containerd v2.3.7; paths below are
// in github.com/containerd/containerd/v2@v2.3.7).
//
// The host list, from certs.d/<image host>/hosts.toml:
// - core/remotes/docker/config/hosts.go:380-422 parseHostsFile: the
//   [host."…"] entries in file order (getSortedHosts, :551-585), then the
//   top-level `server` LAST;
// - hosts.go:424-470 parseHostConfig: no scheme means https; the path gets
//   /v2 appended unless override_path; no `capabilities` means all four;
// - hosts.go:100-136 ConfigureHosts: a file without `server` (or no file)
//   ends with the image host itself (docker.io: registry-1.docker.io), with
//   all capabilities.
//
// Which credential a request carries:
// - internal/cri/server/images/image_pull.go:105-114: the credentials
//   function answers every host with the CRI AuthConfig the kubelet sent;
//   ParseAuth (:341-382) withholds it only when ServerAddress is set and
//   names another host. The kubelet sets no ServerAddress, so every host gets
//   it. image_pull.go:310-318 and core/transfer/registry/registry.go:128-136
//   (the transfer service, the default) call the same function per host.
// - core/remotes/docker/authorizer.go:121-144 Authorize: a request carries an
//   Authorization header only once that host answered a challenge;
//   :153-212 AddResponses asks the credentials function for THAT host (the
//   mirror's, not the image's) and, for Basic, refuses an empty credential
//   ("no basic auth credentials", :196-202). A registry that never answers
//   401 never sees a credential.
//
// The pull (core/remotes/docker/resolver.go, fetcher.go):
// - resolver.go:247-268: by tag, resolve uses hosts with pull AND resolve;
//   by digest, hosts with pull only (filterHosts, :541-548);
// - resolver.go:296-372: any error (connection refused, repeated 401,
//   "no basic auth credentials"), 404 or other 4xx moves on to the next host;
//   a 401 is retried through AddResponses up to maxAttempts (:733, 5);
// - fetcher.go:318-357: the manifest by digest and the blobs are fetched from
//   r.hosts, EVERY host of the list in order (not only the pull-capable ones),
//   each miss moving to the next;
// - resolver.go:611-616 with registry.go:85-92: a host other than the image
//   host gets `?ns=<image host>` on every request.
export type Capability = 'pull' | 'resolve' | 'push' | 'referrers';
const ALL: Capability[] = ['pull', 'resolve', 'push', 'referrers'];

/** One [host."url"] entry of hosts.toml. */
export interface HostEntry {
  url: string;
  capabilities?: Capability[];
  overridePath?: boolean;
}

/** certs.d/<image host>/hosts.toml, as data. */
export interface HostsToml {
  server?: string;
  hosts?: HostEntry[];
}

export interface ContainerdHost {
  /** host[:port], as requests address it. */
  host: string;
  scheme: string;
  path: string;
  capabilities: Capability[];
  from: 'host entry' | 'server' | 'image host';
}

/** The hosts containerd tries for images of `imageHost`, in order (no config: the image host alone). */
export function containerdHosts(imageHost: string, toml?: HostsToml): ContainerdHost[] {
  const entries = (toml?.hosts ?? []).map((h) => parsed(h.url, h, 'host entry'));
  const root = toml?.server ? parsed(toml.server, {}, 'server') : undefined;
  return [...entries, root ?? defaultHost(imageHost)];
}

function parsed(server: string, h: Omit<HostEntry, 'url'>, from: ContainerdHost['from']): ContainerdHost {
  const u = new URL(server.startsWith('http') ? server : `https://${server}`);
  const clean = u.pathname.replace(/\/+$/, '');
  const path = h.overridePath ? clean || '/' : clean.endsWith('/v2') ? clean : `${clean}/v2`;
  return { host: u.host, scheme: u.protocol.replace(':', ''), path, capabilities: h.capabilities ?? ALL, from };
}

function defaultHost(imageHost: string): ContainerdHost {
  const host = imageHost === 'docker.io' ? 'registry-1.docker.io' : imageHost;
  return { host, scheme: 'https', path: '/v2', capabilities: ALL, from: 'image host' };
}

/** How a host answers the pull: a real registry (its auth, whether it accepts the credential, whether it has the image), or nothing listening. */
export type HostAnswer =
  { kind: 'down' } | { kind: 'registry'; auth: 'none' | 'basic'; accepts: string[]; hasImage: boolean };

export interface HostPullCase {
  imageHost: string;
  by: 'tag' | 'digest';
  hosts: ContainerdHost[];
  /** By host[:port]; a host without an answer is down. */
  answers: Record<string, HostAnswer>;
  /** The CRI AuthConfig of this PullImage call (one kubelet attempt); absent: anonymous. */
  auth?: { username: string; serverAddress?: string };
  /** The host[:port] the credential was issued for (default: the image host). */
  issuedFor?: string;
}

export type VisitOutcome = 'ok' | 'unauthorized' | 'not found' | 'refused' | 'no basic auth credentials';

export interface HostVisit {
  host: string;
  phase: 'resolve' | 'fetch';
  outcome: VisitOutcome;
  /** What Authorization the host saw, in order: 'none' (anonymous), or the credential's username. */
  credentials: string[];
  /** Requests carried ?ns=<image host>. */
  namespaceQuery: boolean;
}

/** A credential sent to a host other than the one it was issued for. */
export interface Crossing {
  username: string;
  issuedFor: string;
  sentTo: string;
}

export interface HostPullPrediction {
  pull: 'success' | 'failure';
  resolvedBy?: string;
  fetchedFrom?: string;
  visits: HostVisit[];
  /** Per host, every credential it saw ('none' for anonymous requests), sorted. */
  seen: Record<string, string[]>;
  crossings: Crossing[];
  because: string;
}

/** One request to one host, with authorizer.go's challenge-then-credential exchange. */
function visit(c: HostPullCase, h: ContainerdHost, phase: HostVisit['phase']): HostVisit {
  const a = c.answers[h.host] ?? { kind: 'down' };
  const namespaceQuery = h.host !== c.imageHost && !(c.imageHost === 'docker.io' && h.host === 'registry-1.docker.io');
  const base = { host: h.host, phase, namespaceQuery };
  if (a.kind === 'down') return { ...base, outcome: 'refused', credentials: [] };
  const found: VisitOutcome = a.hasImage ? 'ok' : 'not found';
  if (a.auth === 'none') return { ...base, outcome: found, credentials: ['none'] };
  // ParseAuth: ServerAddress naming another host withholds the credential.
  const sent =
    c.auth && (!c.auth.serverAddress || new URL(c.auth.serverAddress).host === h.host) ? c.auth.username : undefined;
  if (!sent) return { ...base, outcome: 'no basic auth credentials', credentials: ['none'] };
  return { ...base, outcome: a.accepts.includes(sent) ? found : 'unauthorized', credentials: ['none', sent] };
}

export function predictHostPull(c: HostPullCase): HostPullPrediction {
  const visits: HostVisit[] = [];
  const caps: Capability[] = c.by === 'tag' ? ['pull', 'resolve'] : ['pull'];
  const resolvers = c.hosts.filter((h) => caps.every((k) => h.capabilities.includes(k)));
  let resolvedBy: string | undefined;
  for (const h of resolvers) {
    const v = visit(c, h, 'resolve');
    visits.push(v);
    if (v.outcome === 'ok') {
      resolvedBy = h.host;
      break;
    }
  }
  let fetchedFrom: string | undefined;
  if (resolvedBy)
    for (const h of c.hosts) {
      const v = visit(c, h, 'fetch');
      visits.push(v);
      if (v.outcome === 'ok') {
        fetchedFrom = h.host;
        break;
      }
    }
  const seen: Record<string, string[]> = {};
  for (const v of visits) seen[v.host] = [...new Set([...(seen[v.host] ?? []), ...v.credentials])].sort();
  const issuedFor = c.issuedFor ?? c.imageHost;
  const crossings = Object.entries(seen).flatMap(([host, creds]) =>
    host !== issuedFor && c.auth && creds.includes(c.auth.username)
      ? [{ username: c.auth.username, issuedFor, sentTo: host }]
      : [],
  );
  const pull = fetchedFrom ? 'success' : 'failure';
  return {
    pull,
    ...(resolvedBy ? { resolvedBy } : {}),
    ...(fetchedFrom ? { fetchedFrom } : {}),
    visits,
    seen,
    crossings,
    because: because(c, visits, pull, crossings),
  };
}

function because(c: HostPullCase, visits: HostVisit[], pull: string, crossings: Crossing[]): string {
  const path = visits.map((v) => `${v.phase} ${v.host}: ${v.outcome}`).join(', ');
  const cross = crossings.length
    ? `; ${crossings.map((x) => `${x.username}'s credential (for ${x.issuedFor}) reaches ${x.sentTo}`).join('; ')}`
    : '';
  const none = visits.length === 0 ? `no host of ${c.imageHost} has the capabilities a ${c.by} pull needs` : path;
  return `containerd tries ${none} → ${pull}${cross}`;
}
