// Loopback helpers: distinct free ports for the environment's components (one
// free port: src/core/ports.ts), and HTTPS probes with client certs (readyz
// on the API server) that need neither curl nor kubectl.
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { freePort } from '../../core/ports.ts';

export async function freePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

export interface TlsFiles {
  ca: string;
  cert?: string;
  key?: string;
}

/** GETs a URL; resolves with the status code and body (never rejects on HTTP status). */
export function get(url: string, tls?: TlsFiles, timeoutMs = 3000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const opts = {
      timeout: timeoutMs,
      ...(tls
        ? {
            ca: readFileSync(tls.ca),
            ...(tls.cert ? { cert: readFileSync(tls.cert) } : {}),
            ...(tls.key ? { key: readFileSync(tls.key) } : {}),
          }
        : {}),
    };
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, opts, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}
