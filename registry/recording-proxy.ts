// A recording reverse proxy in front of a lab registry, on the registry's own
// loopback address (another port) with the registry's own certificate, so
// clients trust it with the same CA. distribution 2.8.2 logs the user name of
// a refused Basic login but not of an accepted one, so its log cannot say
// which credential reached it; the proxy can. Each request is one jsonl line:
// the Host it was addressed as, method, path, ns, status, the user agent and
// WHICH credential the Authorization header carried (the Basic user name,
// "none", or "bearer token for <subject>"), never the secret.
import { createServer, request, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import type { RegistryRequest } from './access-log.ts';
import { freePort } from '../src/core/ports.ts';

/** What the proxy needs of the registry behind it (a StartedRegistry has it all). */
export interface ProxiedRegistry {
  address: string;
  port: number;
  scheme: 'http' | 'https';
  caCertPath?: string;
  /** The registry's dir: its certificate and key are `tls/server.{crt,key}` there. */
  dir: string;
}

export interface RecordingProxy {
  /** `address:port` of the proxy. */
  host: string;
  address: string;
  port: number;
  scheme: 'https';
  caCertPath?: string;
  auth: { realm?: string };
  logFile: string;
  requests(): Promise<RegistryRequest[]>;
  stop(): Promise<void>;
}

/** Which credential an Authorization header carries, by name only. */
export function credentialOf(authorization: string | undefined): string {
  if (!authorization) return 'none';
  const [scheme, value = ''] = authorization.split(' ', 2);
  if (/^basic$/i.test(scheme ?? '')) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const user = decoded.split(':', 1)[0];
    return user ? user : 'none (empty user)';
  }
  if (/^bearer$/i.test(scheme ?? '')) {
    try {
      const claims = JSON.parse(Buffer.from(value.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
        sub?: string;
      };
      return `bearer token for ${claims.sub ?? '(no subject)'}`;
    } catch {
      return 'bearer token (not a JWT)';
    }
  }
  return `${scheme} (other scheme)`;
}

/** What a proxy may script: `delayMs` holds a request that long before it is forwarded (0: at once). */
export interface ProxyOptions {
  delayMs?: (r: { method: string; path: string; credential: string }) => number;
}

export async function startRecordingProxy(
  registry: ProxiedRegistry,
  logFile: string,
  o: ProxyOptions = {},
): Promise<RecordingProxy> {
  if (registry.scheme !== 'https')
    throw new Error(`the recording proxy fronts https registries; ${registry.address}:${registry.port} is http`);
  const [cert, key, ca] = await Promise.all([
    readFile(join(registry.dir, 'tls', 'server.crt')),
    readFile(join(registry.dir, 'tls', 'server.key')),
    registry.caCertPath ? readFile(registry.caCertPath) : Promise.resolve(undefined),
  ]);
  const sockets = new Set<Socket>();
  const held = new Set<NodeJS.Timeout>();
  // One append at a time, in the order requests were answered: concurrent appends may land out of order.
  let written: Promise<void> = Promise.resolve();
  const server: Server = createServer({ cert, key }, (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://proxy');
    const received = new Date().toISOString();
    const credential = credentialOf(req.headers.authorization);
    const record = (status: number) => {
      const line: RegistryRequest = {
        time: new Date().toISOString(),
        received,
        host: req.headers.host ?? '',
        method: req.method ?? '',
        path: url.pathname,
        ...(url.searchParams.get('ns') ? { ns: url.searchParams.get('ns')! } : {}),
        status,
        credential,
        agent: req.headers['user-agent'] ?? '',
      };
      written = written.then(() => appendFile(logFile, `${JSON.stringify(line)}\n`)).catch(() => {});
    };
    const delay = o.delayMs?.({ method: req.method ?? '', path: url.pathname, credential }) ?? 0;
    if (delay <= 0) return forward(req, res, record);
    const timer = setTimeout(() => {
      held.delete(timer);
      forward(req, res, record);
    }, delay);
    held.add(timer);
  });
  const forward = (req: IncomingMessage, res: ServerResponse, record: (status: number) => void) => {
    const upstream = request(
      {
        host: registry.address,
        port: registry.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        ...(ca ? { ca } : {}),
        // The Host header is the one the client addressed; the certificate is checked against the registry's address.
        checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(registry.address, cert),
      },
      (up) => {
        record(up.statusCode ?? 0);
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      record(502);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`recording proxy: ${err.message}\n`);
    });
    req.pipe(upstream);
  };
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await freePort(registry.address);
  server.listen(port, registry.address);
  await once(server, 'listening');
  return {
    host: `${registry.address}:${port}`,
    address: registry.address,
    port,
    scheme: 'https',
    ...(registry.caCertPath ? { caCertPath: registry.caCertPath } : {}),
    auth: {},
    logFile,
    async requests() {
      await written;
      const text = await readFile(logFile, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as RegistryRequest);
    },
    async stop() {
      for (const t of held) clearTimeout(t);
      held.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
