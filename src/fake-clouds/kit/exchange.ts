// What a fake cloud deals in: the request it was sent (read once, body in full),
// the reply it gives, and the refusal a cloud gives, in that cloud's own shape.
import type { IncomingHttpHeaders } from 'node:http';

/** One request as a fake cloud sees it. */
export interface CloudRequest {
  method: string;
  /** The request target as sent: path and query, untouched (SigV4 signs it as is). */
  target: string;
  url: URL;
  /** The Host header without its port ('' when there is none). */
  host: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** A header's value as one string (repeated headers comma-joined), or undefined. */
  header(name: string): string | undefined;
  text(): string;
  /** The body as an HTML form (application/x-www-form-urlencoded). */
  form(): URLSearchParams;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/**
 * A cloud saying no: its HTTP status, its error code (AccessDenied, invalid_grant…)
 * and its message. A fake throws it; the endpoint's RefusalShape writes it the way
 * that cloud does, and the request's record keeps it.
 */
export class Refusal extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'Refusal';
    this.status = status;
    this.code = code;
  }
}

/** How a cloud writes a refusal: status, headers and body. */
export type RefusalShape = (r: Refusal, req: CloudRequest) => Reply;

export function jsonReply(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** RFC 6749 §5.2's error response, as OAuth token endpoints (Google's, Entra ID's) give it. */
export const oauthRefusal: RefusalShape = (r) => jsonReply(r.status, { error: r.code, error_description: r.message });

export function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A request built in process (no socket): for an endpoint's unit tests, and the server's own parsing. */
export function cloudRequest(o: {
  method?: string;
  target: string;
  headers?: IncomingHttpHeaders;
  body?: string | Buffer;
}): CloudRequest {
  const headers = o.headers ?? {};
  const host = String(headers.host ?? '').replace(/:\d+$/, '');
  const body = typeof o.body === 'string' ? Buffer.from(o.body) : (o.body ?? Buffer.alloc(0));
  return {
    method: o.method ?? 'GET',
    target: o.target,
    url: parseTarget(o.target),
    host,
    headers,
    body,
    header(name) {
      const v = headers[name.toLowerCase()];
      return v === undefined ? undefined : Array.isArray(v) ? v.join(', ') : String(v);
    },
    text: () => body.toString('utf8'),
    form: () => new URLSearchParams(body.toString('utf8')),
  };
}

/** Origin-form targets keep their path as sent (`//x` is a path, not a host); absolute-form ones (a proxy's) parse as URLs. */
function parseTarget(target: string): URL {
  try {
    return target.startsWith('/') ? new URL(`http://fake${target}`) : new URL(target);
  } catch {
    return new URL('http://fake/');
  }
}
