// Registries the harness starts on this host's loopback, reached from kind
// nodes under the same address, so the nodes' containerd is configured
// exactly as the local provider's (hosts.toml `server = https://<address>:<port>`,
// the registry itself, and [host] entries only for the mirrors a route names) and TLS verifies the address the
// registry's certificate names. Two plain TCP hops carry it:
//   node: <address>:<port> (socat in the node's network namespace)
//     → this host: <kind network gateway>:<ephemeral> (a forwarder here)
//     → <address>:<port> (the registry).
// Nothing listens beyond the kind bridge, and no byte leaves this host.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { mkdir, rm, writeFile, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { spawnTied } from '../../core/tied-child.ts';
import { CredprovError } from '../../core/errors.ts';
import { mirrorUrl, type Endpoint, type RegistryRoute, type RegistryRouteHandle } from '../provider.ts';
import { hostsTomlText } from '../../engine/containerd-hosts.ts';
import { NODE_PATHS } from './config.ts';
import { must, type Runner } from './tools.ts';

/** containerd's hosts.toml in a node for a route: the registry as the image host's server, its mirrors as [host] entries (each CA at its node path). */
export function nodeHostsToml(route: RegistryRoute): string {
  const nodeDir = `${NODE_PATHS.certsDir}/${route.imageHost}`;
  return hostsTomlText(
    {
      url: `${route.scheme}://${route.address}:${route.port}`,
      ...(route.caCertPath && route.scheme === 'https' ? { caFile: `${nodeDir}/ca.crt` } : {}),
    },
    (route.mirrors ?? []).map((m, i) => ({
      url: mirrorUrl(m),
      ...(m.capabilities ? { capabilities: m.capabilities } : {}),
      ...(m.overridePath ? { overridePath: true } : {}),
      ...(m.caCertPath && m.scheme === 'https' ? { caFile: `${nodeDir}/mirror-${i}-ca.crt` } : {}),
    })),
  );
}

/** The IPv4 gateway of a docker network (this host's address on the nodes' bridge). */
export function ipv4Gateway(ipamConfigJson: string, network: string): string {
  const configs = JSON.parse(ipamConfigJson) as Array<{ Gateway?: string }> | null;
  const gw = (configs ?? []).map((c) => c.Gateway).find((g) => g && /^\d+\.\d+\.\d+\.\d+$/.test(g));
  if (!gw)
    throw new CredprovError(`docker network ${network} has no IPv4 gateway (IPAM config ${ipamConfigJson.trim()})`);
  return gw;
}

interface Forward {
  refs: number;
  server: Server;
  /** Open connections: containerd keeps them alive, and server.close() waits for every one. */
  sockets: Set<Socket>;
  inNodes: ChildProcess[];
}

/** The routes of one kind environment, sharing one forward per registry address. */
export class KindRegistryRoutes {
  private readonly forwards = new Map<string, Promise<Forward>>();
  private readonly run: Runner;
  private readonly certsDir: string;
  private readonly nodes: () => Promise<string[]>;
  private readonly network: string;

  constructor(run: Runner, certsDir: string, nodes: () => Promise<string[]>, network = 'kind') {
    this.run = run;
    this.certsDir = certsDir;
    this.nodes = nodes;
    this.network = network;
  }

  /** Forwards of these endpoints into every node; stop() releases them. */
  async reach(endpoints: Endpoint[]): Promise<RegistryRouteHandle> {
    const held: Array<{ key: string; forward: Forward }> = [];
    for (const e of endpoints) held.push(await this.hold(e));
    let released = false;
    return {
      stop: async () => {
        if (released) return;
        released = true;
        for (const { key, forward } of held) {
          if (--forward.refs > 0) continue;
          this.forwards.delete(key);
          await close(forward);
        }
      },
    };
  }

  async add(route: RegistryRoute): Promise<RegistryRouteHandle> {
    const mirrors = route.mirrors ?? [];
    const forwards = await this.reach([
      { address: route.address, port: route.port },
      ...(route.alsoReach ?? []),
      ...mirrors.flatMap((m) => [{ address: m.address, port: m.port }, ...(m.alsoReach ?? [])]),
    ]);
    const dir = join(this.certsDir, route.imageHost);
    await mkdir(dir, { recursive: true });
    if (route.caCertPath && route.scheme === 'https') await copyFile(route.caCertPath, join(dir, 'ca.crt'));
    for (const [i, m] of mirrors.entries())
      if (m.caCertPath && m.scheme === 'https') await copyFile(m.caCertPath, join(dir, `mirror-${i}-ca.crt`));
    await writeFile(join(dir, 'hosts.toml'), nodeHostsToml(route));
    let stopped = false;
    return {
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await rm(dir, { recursive: true, force: true });
        await forwards.stop();
      },
    };
  }

  /** The forward of one endpoint, opened on first use and counted. */
  private async hold(e: Endpoint): Promise<{ key: string; forward: Forward }> {
    const key = `${e.address}:${e.port}`;
    let fwd = this.forwards.get(key);
    if (!fwd) {
      fwd = this.open(e).catch((err: unknown) => {
        this.forwards.delete(key);
        throw err;
      });
      this.forwards.set(key, fwd);
    }
    const forward = await fwd;
    forward.refs++;
    return { key, forward };
  }

  async stopAll(): Promise<void> {
    const all = [...this.forwards.values()];
    this.forwards.clear();
    await Promise.all(all.map((f) => f.then(close, () => undefined)));
  }

  private async open(route: Endpoint): Promise<Forward> {
    const gateway = ipv4Gateway(
      await must(this.run, `inspect docker network ${this.network}`, 'docker', [
        'network',
        'inspect',
        this.network,
        '--format',
        '{{json .IPAM.Config}}',
      ]),
      this.network,
    );
    const sockets = new Set<Socket>();
    const server = createServer((client) => {
      const upstream = connect(route.port, route.address);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end);
      upstream.on('error', end);
    });
    server.listen(0, gateway);
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    const forward: Forward = { refs: 0, server, sockets, inNodes: [] };
    try {
      for (const node of await this.nodes()) {
        const pid = (
          await must(this.run, `find node ${node}'s pid`, 'docker', ['inspect', '--format', '{{.State.Pid}}', node])
        ).trim();
        const child = spawnTied(
          'nsenter',
          [
            '-t',
            pid,
            '-n',
            '--',
            'socat',
            `TCP-LISTEN:${route.port},bind=${route.address},fork,reuseaddr`,
            `TCP:${gateway}:${port}`,
          ],
          { stdio: 'ignore' },
        );
        forward.inNodes.push(child);
        await listening(this.run, node, route);
      }
    } catch (err) {
      await close(forward);
      throw err;
    }
    return forward;
  }
}

/** Waits until the node's forward accepts connections (socat binds within milliseconds). */
async function listening(run: Runner, node: string, route: Endpoint): Promise<void> {
  const probe = `for i in $(seq 1 50); do (exec 3<>/dev/tcp/${route.address}/${route.port}) 2>/dev/null && exit 0; sleep 0.1; done; exit 1`;
  const r = await run('docker', ['exec', node, 'bash', '-c', probe], { timeoutMs: 15_000 });
  if (r.exitCode !== 0)
    throw new CredprovError(
      `the forward of ${route.address}:${route.port} into kind node ${node} does not accept connections`,
      { hint: 'is socat installed on this host? (scripts/setup.sh --kind installs it)' },
    );
}

async function close(f: Forward): Promise<void> {
  for (const c of f.inNodes) if (c.exitCode === null) c.kill('SIGTERM');
  const closed = new Promise<void>((resolve) => f.server.close(() => resolve()));
  for (const s of f.sockets) s.destroy();
  await closed;
}
