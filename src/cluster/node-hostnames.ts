// Host names that must resolve to a server on this host's loopback inside
// every node, for plugins whose cloud URL is a fixed name (auth-provider-gcp's
// http://metadata.google.internal./): capability pluginsReachHost. Where the
// nodes are this host (the local provider) the names go into this host's
// /etc/hosts, owner-tagged by process so a crashed run's lines are pruned and
// a live run's are a conflict; kind writes them into each node's own.
import { randomBytes } from 'node:crypto';
import { HostsFile } from '../core/hosts.ts';
import { pidExists } from '../core/pids.ts';
import { CredprovError } from '../core/errors.ts';
import type { NodeHostname, RegistryRouteHandle } from './provider.ts';

export type { NodeHostname } from './provider.ts';

const OWNER_PREFIX = 'nodes/names/';

/** Maps `names` in this host's hosts file (the local provider's nodes are this host); stop() removes the lines. */
export async function mapHostnamesHere(
  names: readonly NodeHostname[],
  hosts = new HostsFile(),
): Promise<RegistryRouteHandle> {
  if (names.length === 0) return { stop: async () => {} };
  await hosts.prune((owner) => {
    const m = new RegExp(`^${OWNER_PREFIX.replace(/\//g, '\\/')}(\\d+)-`).exec(owner);
    return !!m && !pidExists(Number(m[1]));
  });
  const existing = await hosts.entries();
  // A name this host already maps to the same address (a lab's own line) is reachable as asked: leave it be.
  const already = (n: NodeHostname) =>
    existing.some((e) => e.address === n.address && e.hostnames.includes(n.hostname));
  names = names.filter((n) => !already(n));
  if (names.length === 0) return { stop: async () => {} };
  const taken = existing.filter((e) => names.some((n) => e.hostnames.includes(n.hostname)));
  if (taken.length > 0)
    throw new CredprovError(
      `${taken.flatMap((e) => e.hostnames).join(', ')} already mapped in ${hosts.path} by '${taken[0]!.owner}' (another credprov run that is still going)`,
      { hint: 'wait for it to finish: a name resolves to one address at a time' },
    );
  const owners: string[] = [];
  for (const [address, group] of groupByAddress(names)) {
    const owner = `${OWNER_PREFIX}${process.pid}-${randomBytes(3).toString('hex')}`;
    await hosts.add({ address, hostnames: group, owner });
    owners.push(owner);
  }
  let stopped = false;
  return {
    stop: async () => {
      if (stopped) return;
      stopped = true;
      for (const o of owners) await hosts.remove(o);
    },
  };
}

export function groupByAddress(names: readonly NodeHostname[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const n of names) out.set(n.address, [...(out.get(n.address) ?? []), n.hostname]);
  return out;
}
