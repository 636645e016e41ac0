// The mirrors suite's plan, as data: one private origin registry, the
// registries that may stand in front of it, and the cases, each with an image
// host of its own (so each gets its own hosts.toml) and a repository of its
// own (so each registry's request log says which case a request belongs to).
import type { Capability } from '../../src/model/containerd-hosts.ts';

/** Who stands in front of the origin for a case. */
export type MirrorKind =
  | 'replica' //   accepts the origin's account and has the image (a replica, or a pull-through cache sharing logins)
  | 'refuses' //   its own accounts only: answers 401 to the origin's
  | 'lacks' //     accepts the origin's account, has no image: 404
  | 'down'; //     nothing listens

/** Where the kubelet's credential comes from. */
export type Source = 'provider' | 'secret' | 'provider naming the mirror';

export interface MirrorCase {
  /** Check id suffix and repository name. */
  id: string;
  title: string;
  source: Source;
  by: 'tag' | 'digest';
  /** A [host] entry in front of the origin (absent: none). */
  mirror?: { kind: MirrorKind; capabilities?: Capability[] };
  /** The image host's `server`: the origin, or the replica (server = elsewhere). */
  server: 'origin' | 'replica';
}

export const PROVIDER = 'mirrors-origin';
export const MIRROR_NAMED_PROVIDER = 'mirrors-named';
export const SECRET = 'origin-login';
/** Every image host is a name under this domain, routed by hosts.toml only (no DNS). */
const DOMAIN = 'origin.mirrors.test';

export const CASES: MirrorCase[] = [
  {
    id: 'A-PROVIDER',
    title: 'a replica mirror, provider credentials',
    source: 'provider',
    by: 'tag',
    mirror: { kind: 'replica' },
    server: 'origin',
  },
  {
    id: 'A-SECRET',
    title: 'a replica mirror, pull-secret credentials',
    source: 'secret',
    by: 'tag',
    mirror: { kind: 'replica' },
    server: 'origin',
  },
  {
    id: 'B-401',
    title: 'a mirror that refuses the login (401)',
    source: 'provider',
    by: 'tag',
    mirror: { kind: 'refuses' },
    server: 'origin',
  },
  {
    id: 'B-404',
    title: 'a mirror that accepts the login but lacks the image (404)',
    source: 'provider',
    by: 'tag',
    mirror: { kind: 'lacks' },
    server: 'origin',
  },
  {
    id: 'B-DOWN',
    title: 'a mirror that is down',
    source: 'provider',
    by: 'tag',
    mirror: { kind: 'down' },
    server: 'origin',
  },
  {
    id: 'C-MIRROR-NAMED',
    title: "a provider whose matchImages name the mirror's host, not the image's",
    source: 'provider naming the mirror',
    by: 'tag',
    mirror: { kind: 'replica' },
    server: 'origin',
  },
  {
    id: 'D-SERVER',
    title: '`server =` pointing at another registry, no [host] entry',
    source: 'provider',
    by: 'tag',
    server: 'replica',
  },
  {
    id: 'E-DIGEST',
    title: 'a pull by digest through a pull-only mirror',
    source: 'provider',
    by: 'digest',
    mirror: { kind: 'replica', capabilities: ['pull'] },
    server: 'origin',
  },
  {
    id: 'E-TAG',
    title: 'a pull by tag through the same pull-only mirror',
    source: 'provider',
    by: 'tag',
    mirror: { kind: 'replica', capabilities: ['pull'] },
    server: 'origin',
  },
];

export const imageHostOf = (c: MirrorCase) => `${c.id.toLowerCase()}.${DOMAIN}`;
export const repositoryOf = (c: MirrorCase) => `mirrors/${c.id.toLowerCase()}`;

/** The image a case's pod pulls. */
export function imageOf(c: MirrorCase, digest: string): string {
  const name = `${imageHostOf(c)}/${repositoryOf(c)}`;
  return c.by === 'digest' ? `${name}@${digest}` : `${name}:v1`;
}

/** The registries' host:port as containerd addresses them (known once they run), and the origin's account. */
export interface Topology {
  origin: string;
  replica: string;
  refuses: string;
  lacks: string;
  down: string;
  /** The origin's account name (the replica and the 404 mirror share it). */
  user: string;
}

/** The providers of the kubelet's config: one for the provider cases' image hosts, one naming the replica's host. */
export function providersOf(t: Topology): Array<{ name: string; matchImages: string[] }> {
  return [
    { name: PROVIDER, matchImages: CASES.filter((c) => c.source === 'provider').map(imageHostOf) },
    { name: MIRROR_NAMED_PROVIDER, matchImages: [t.replica] },
  ];
}
