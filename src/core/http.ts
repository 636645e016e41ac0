// A small HTTP(S) request helper over node:http(s). Node's fetch cannot take a
// per-request CA without the undici package, and tests of the harness's TLS
// servers (registries, token servers) need exactly that: trust the harness CA
// for one request and not for the next.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

export interface TransportOptions {
  /** PEM CA bundle to trust (instead of the system's) for https URLs. */
  ca?: string | Buffer;
  timeoutMs?: number;
}

export async function send(
  url: string | URL,
  req: HttpRequest = {},
  opts: TransportOptions = {},
): Promise<HttpResponse> {
  const u = typeof url === 'string' ? new URL(url) : url;
  const isHttps = u.protocol === 'https:';
  const fn = isHttps ? httpsRequest : httpRequest;
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  if (body) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const r = fn(
      u,
      {
        method: req.method ?? 'GET',
        headers,
        ...(isHttps && opts.ca ? { ca: opts.ca } : {}),
        timeout: opts.timeoutMs ?? 15_000,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const buf = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: buf,
            text: () => buf.toString('utf8'),
            json: <T>() => JSON.parse(buf.toString('utf8')) as T,
          });
        });
      },
    );
    r.on('timeout', () =>
      r.destroy(new Error(`${req.method ?? 'GET'} ${u.href} timed out after ${opts.timeoutMs ?? 15_000} ms`)),
    );
    r.on('error', reject);
    if (body) r.write(body);
    r.end();
  });
}

export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export function header(res: HttpResponse, name: string): string | undefined {
  const v = res.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}
