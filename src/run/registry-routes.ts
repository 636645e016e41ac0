// Routing a registry the suite started on this host's loopback to the nodes,
// through the environment's provider (capability hostRegistries): the local
// provider writes containerd's hosts.toml on this host; kind also forwards the
// registry's address into each node.
import type { StartedRegistry } from '../../registry/provider.ts';
import { CredprovError } from '../core/errors.ts';
import type { Environment, EnvironmentProvider, RegistryRouteHandle } from '../cluster/provider.ts';

/** What a route needs of the suite's run: SuiteRun has both. */
export interface RouteTarget {
  environment: Environment;
  provider: EnvironmentProvider;
}

/** Pulls of images named `imageHost` (default: the registry's own host) reach `registry` from every node. */
export async function routeRegistry(
  target: RouteTarget,
  registry: StartedRegistry,
  imageHost = registry.host,
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
  });
}

/** The token realm's address and port, when it is a URL on this host's loopback. */
export function realmEndpoint(realm: string | undefined): { address: string; port: number } | undefined {
  if (!realm) return undefined;
  const u = new URL(realm);
  if (!/^127\.\d+\.\d+\.\d+$/.test(u.hostname)) return undefined;
  return { address: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) };
}
