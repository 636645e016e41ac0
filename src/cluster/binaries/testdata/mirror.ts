// A release mirror on 127.0.0.1 for download tests: serves
// /<version>/bin/linux/<arch>/<name> and <name>.sha256 from files on disk,
// with an optional wrong checksum to prove nothing corrupt gets cached.
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Mirror {
  baseUrl: string;
  requests: string[];
  close(): Promise<void>;
}

export async function startMirror(o: {
  version: string;
  arch: string;
  /** name → file to serve. */
  files: Record<string, string>;
  /** Names whose .sha256 lies. */
  wrongSum?: string[];
}): Promise<Mirror> {
  const requests: string[] = [];
  const sums = new Map<string, string>();
  const sumOf = (name: string) => {
    if (!sums.has(name)) sums.set(name, createHash('sha256').update(readFileSync(o.files[name]!)).digest('hex'));
    return sums.get(name)!;
  };
  const prefix = `/${o.version}/bin/linux/${o.arch}/`;
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '';
    requests.push(url);
    if (!url.startsWith(prefix)) return void res.writeHead(404).end('not found');
    const rest = url.slice(prefix.length);
    const name = rest.replace(/\.sha256$/, '');
    const file = o.files[name];
    if (!file) return void res.writeHead(404).end('not found');
    if (rest.endsWith('.sha256')) {
      const sum = o.wrongSum?.includes(name) ? '0'.repeat(64) : sumOf(name);
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(sum);
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
