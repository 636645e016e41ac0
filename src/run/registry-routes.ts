// Routing a registry the suite started on this host's loopback to the nodes,
// through the environment's provider (capability hostRegistries): the local
// provider writes containerd's hosts.toml on this host; kind also forwards the
// registry's address into each node.
import type { StartedRegistry } from '../../registry/index.ts';
import { CredprovError } from '../core/errors.ts';
import type {
  Endpoint,
  Environment,
  EnvironmentProvider,
  NodeHostname,
  RegistryMirror,
  RegistryRouteHandle,
} from '../cluster/provider.ts';

/** What a route needs of the suite's run: SuiteRun has both. */
export interface RouteTarget {
  environment: Environment;
  provider: EnvironmentProvider;
}

/** What a route needs of a registry: a StartedRegistry, or a recording proxy in front of one. */
export type RoutedRegistry = Pick<StartedRegistry, 'address' | 'port' | 'scheme' | 'host'> & {
  caCertPath?: string;
  auth: { realm?: string | undefined };
};

/** A registry (or a bare loopback endpoint: a mirror that is down) that containerd should try before the route's own. */
export interface MirrorOf {
  registry: Pick<StartedRegistry, 'address' | 'port' | 'scheme'> & {
    caCertPath?: string;
    auth?: { realm?: string | undefined };
  };
  capabilities?: RegistryMirror['capabilities'];
  path?: string;
  overridePath?: boolean;
}

/**
 * Pulls of images named `imageHost` (default: the registry's own host) reach
 * `registry` from every node; `o.mirrors` become hosts.toml [host] entries
 * containerd tries first, in order.
 */
export async function routeRegistry(
  target: RouteTarget,
  registry: RoutedRegistry,
  imageHost = registry.host,
  o: { mirrors?: MirrorOf[] } = {},
): Promise<RegistryRouteHandle> {
  const { environment: env, provider } = target;
  if (!provider.routeRegistry)
    throw new CredprovError(
      `provider ${provider.name} cannot route ${imageHost} to a registry on this host (environment ${env.name})`,
      { hint: 'the suite should declare capability hostRegistries' },
    );
  return provider.routeRegistry(env, {
    imageHost,
    address: registry.address,
    port: registry.port,
    scheme: registry.scheme,
    ...(registry.caCertPath ? { caCertPath: registry.caCertPath } : {}),
    ...(realmEndpoint(registry.auth.realm) ? { alsoReach: [realmEndpoint(registry.auth.realm)!] } : {}),
    ...(o.mirrors?.length ? { mirrors: o.mirrors.map(mirrorRoute) } : {}),
  });
}

function mirrorRoute(m: MirrorOf): RegistryMirror {
  const r = m.registry;
  const realm = realmEndpoint(r.auth?.realm);
  return {
    address: r.address,
    port: r.port,
    scheme: r.scheme,
    ...(r.caCertPath ? { caCertPath: r.caCertPath } : {}),
    ...(realm ? { alsoReach: [realm] } : {}),
    ...(m.capabilities ? { capabilities: m.capabilities } : {}),
    ...(m.path ? { path: m.path } : {}),
    ...(m.overridePath ? { overridePath: true } : {}),
  };
}

/**
 * Servers on this host's loopback that plugins call (a fake cloud API, by URL)
 * answer at the same URL inside every node (capability pluginsReachHost);
 * `names` (a fixed host name → the loopback address its server listens on)
 * resolve there too.
 */
export async function reachFromPlugins(
  target: RouteTarget,
  urls: string[],
  names: NodeHostname[] = [],
): Promise<RegistryRouteHandle> {
  const { environment: env, provider } = target;
  if (!provider.reachFromNodes)
    throw new CredprovError(`provider ${provider.name} cannot make this host's servers reachable from its nodes`, {
      hint: 'the suite should declare capability pluginsReachHost',
    });
  const endpoints = [
    ...new Map(
      urls
        .map(loopbackEndpoint)
        .filter((e) => e !== undefined)
        .map((e) => [`${e.address}:${e.port}`, e]),
    ).values(),
  ];
  return provider.reachFromNodes(env, endpoints, names);
}

/** The token realm's address and port, when it is a URL on this host's loopback. */
export function realmEndpoint(realm: string | undefined): Endpoint | undefined {
  return realm ? loopbackEndpoint(realm) : undefined;
}

function loopbackEndpoint(url: string): Endpoint | undefined {
  const u = new URL(url);
  if (!/^127\.\d+\.\d+\.\d+$/.test(u.hostname)) return undefined;
  return { address: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) };
}
