// Names that resolve to a forwarded loopback address inside each kind node
// (capability pluginsReachHost: a plugin whose cloud URL is a fixed name). A
// node's /etc/hosts is a file docker bind-mounts, so lines are appended and
// later filtered out in place (cat over it), never renamed over it.
import { randomBytes } from 'node:crypto';
import type { RegistryRouteHandle } from '../provider.ts';
import { groupByAddress, type NodeHostname } from '../node-hostnames.ts';
import { isHostname } from '../../core/hosts.ts';
import { must, type Runner } from './tools.ts';

/** Appends one marked line per address to every node's /etc/hosts; stop() removes exactly those lines. */
export async function mapNodeHostnames(
  run: Runner,
  nodes: readonly string[],
  names: readonly NodeHostname[],
): Promise<RegistryRouteHandle> {
  if (names.length === 0) return { stop: async () => {} };
  for (const n of names)
    if (!isHostname(n.hostname) || !/^127\.\d+\.\d+\.\d+$/.test(n.address))
      throw new Error(`a node hostname must be a hostname on a loopback address, not ${n.hostname} → ${n.address}`);
  const mark = `credprov:node-names:${randomBytes(4).toString('hex')}`;
  const lines = [...groupByAddress(names)].map(([address, hostnames]) => `${address} ${hostnames.join(' ')} # ${mark}`);
  const done: string[] = [];
  try {
    for (const node of nodes) {
      await must(
        run,
        `map ${names.map((n) => n.hostname).join(', ')} in ${node}`,
        'docker',
        ['exec', '-i', node, 'sh', '-c', 'cat >> /etc/hosts'],
        { input: `${lines.join('\n')}\n` },
      );
      done.push(node);
    }
  } catch (err) {
    await unmap(run, done, mark);
    throw err;
  }
  let stopped = false;
  return {
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await unmap(run, done, mark);
    },
  };
}

async function unmap(run: Runner, nodes: readonly string[], mark: string): Promise<void> {
  for (const node of nodes)
    await run('docker', [
      'exec',
      node,
      'sh',
      '-c',
      `grep -v '# ${mark}$' /etc/hosts > /tmp/hosts.credprov; cat /tmp/hosts.credprov > /etc/hosts; rm -f /tmp/hosts.credprov`,
    ]);
}
