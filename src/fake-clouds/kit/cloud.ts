// A fake cloud's service: loopback listeners (http, or https with a certificate
// for the cloud's own host names), each serving one endpoint or one endpoint per
// Host, every request recorded. An endpoint is the cloud's rules and nothing
// else: it answers a request or throws a Refusal, and notes what the record keeps.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { cloudRequest, Refusal, type CloudRequest, type RefusalShape, type Reply } from './exchange.ts';
import { RequestLog, type CloudRecord } from './request-log.ts';

/** Adds fields to the record of the request being answered (never a secret). */
export type Note<R> = (fields: Partial<R>) => void;

export interface Endpoint<R extends CloudRecord> {
  /** The cloud's rules: the reply to `req`, or a thrown Refusal. */
  answer(req: CloudRequest, note: Note<R>): Reply | Promise<Reply>;
  /** How this endpoint's cloud writes a refusal. */
  refuse: RefusalShape;
  /** The record's first fields (default: method, URL path, user agent); never a secret. */
  record?(req: CloudRequest): Partial<R>;
  /** The largest body it reads (default 1 MiB); past it, a 413 with this code (default RequestEntityTooLarge). */
  maxBody?: { bytes: number; code?: string };
}

/** One endpoint for every request, or one per Host (a TLS listener serving several of a cloud's names). */
export type Serve<R extends CloudRecord> =
  | Endpoint<R>
  | {
      hosts: Record<string, Endpoint<R>>;
      /** For any other Host; default: 421 Misdirected Request. */ otherwise?: Endpoint<R>;
    };

export interface ListenAt {
  /** A loopback address (default 127.0.0.1). */
  address?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Serve https with this certificate (made for the cloud's host names) instead of http. */
  tls?: { certPem: string; keyPem: string };
}

export interface Listening {
  address: string;
  port: number;
  /** http(s)://address:port */
  url: string;
}

export interface FakeCloudOptions<R extends CloudRecord> {
  /** Named in the reply to a request the fake itself failed on ("credprov fake AWS: …"). */
  name: string;
  /** A JSONL copy of every record. */
  logFile?: string;
  /** The fake's clock (records' time; a fake's rules may use it too). */
  clock?: () => number;
  /** What a record keeps of a refusal (default: its message). */
  errorOf?: (r: Refusal) => R['error'];
}

const DEFAULT_MAX_BODY = 1 << 20;

export class FakeCloud<R extends CloudRecord> {
  readonly now: () => number;
  private readonly log: RequestLog<R>;
  private readonly servers: Server[] = [];
  private readonly o: FakeCloudOptions<R>;

  constructor(o: FakeCloudOptions<R>) {
    this.o = o;
    this.now = o.clock ?? Date.now;
    this.log = new RequestLog<R>({ ...(o.logFile ? { file: o.logFile } : {}), clock: this.now });
  }

  /** Every request so far, oldest first (copies). */
  requests(): R[] {
    return this.log.all();
  }

  /** Listens on a loopback address; a port already taken rejects (EADDRINUSE) and leaves nothing behind. */
  async listen(serve: Serve<R>, at: ListenAt = {}): Promise<Listening> {
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.dispatch(serve, req, res);
    const address = at.address ?? '127.0.0.1';
    // A fake cloud answers this machine only.
    if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address) && address !== '::1')
      throw new Error(`a fake cloud listens on loopback only, not on ${address}`);
    const server = at.tls
      ? createTlsServer({ cert: at.tls.certPem, key: at.tls.keyPem }, handler)
      : createServer(handler);
    this.servers.push(server);
    await new Promise<void>((resolve, reject) => {
      const failed = (err: Error) => {
        this.servers.splice(this.servers.indexOf(server), 1);
        reject(err);
      };
      server.once('error', failed);
      server.listen(at.port ?? 0, address, () => {
        server.off('error', failed);
        resolve();
      });
    });
    const port = (server.address() as AddressInfo).port;
    return { address, port, url: `${at.tls ? 'https' : 'http'}://${address}:${port}` };
  }

  /** Closes every listener and its open connections. */
  async stop(): Promise<void> {
    await Promise.all(
      this.servers.splice(0).map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
  }

  /** Answers `req` with `endpoint` and records it, in process: what a listener does after reading the request. */
  async exchange(endpoint: Endpoint<R>, req: CloudRequest): Promise<{ reply: Reply; record: R }> {
    const ua = req.header('user-agent');
    const base = {
      method: req.method,
      path: req.url.pathname,
      ...(ua ? { userAgent: ua.slice(0, 160) } : {}),
      ...endpoint.record?.(req),
    } as Partial<R>;
    const noted: Partial<R> = {};
    const note: Note<R> = (fields) => Object.assign(noted, fields);
    let reply: Reply;
    let error: R['error'] | undefined;
    try {
      reply = await endpoint.answer(req, note);
    } catch (err) {
      const refusal =
        err instanceof Refusal
          ? err
          : new Refusal(
              500,
              'InternalFailure',
              `credprov fake ${this.o.name}: ${err instanceof Error ? err.message : String(err)}`,
            );
      reply = endpoint.refuse(refusal, req);
      error = this.o.errorOf ? this.o.errorOf(refusal) : refusal.message;
    }
    const record = this.log.add({
      ...base,
      ...noted,
      status: reply.status,
      ...(error !== undefined ? { error } : {}),
    } as Omit<R, 'seq' | 'time'>);
    return { reply, record };
  }

  private async dispatch(serve: Serve<R>, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = String(req.headers.host ?? '').replace(/:\d+$/, '');
    const endpoint = 'answer' in serve ? serve : (serve.hosts[host] ?? serve.otherwise ?? misdirected<R>(host));
    const limit = endpoint.maxBody?.bytes ?? DEFAULT_MAX_BODY;
    const body = await readBody(req, limit).catch(() => null);
    if (body === null) return; // the connection broke while the request was being sent: nobody to answer
    const request = cloudRequest({
      method: req.method ?? 'GET',
      target: req.url ?? '/',
      headers: req.headers,
      body: body ?? '',
    });
    const tooLarge: Endpoint<R> = {
      ...endpoint,
      answer: () => {
        throw new Refusal(413, endpoint.maxBody?.code ?? 'RequestEntityTooLarge', `body over ${limit} bytes`);
      },
    };
    const { reply } = await this.exchange(body === undefined ? tooLarge : endpoint, request).catch(
      (err: unknown) =>
        ({ reply: { status: 500, body: `credprov fake ${this.o.name}: ${String(err)}` } }) as { reply: Reply },
    );
    try {
      if (!res.headersSent) res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body ?? '');
    } catch {
      res.destroy(); // a reply Node cannot write (a bad header): the client sees the connection drop
    }
  }
}

/** A request for a name this listener does not serve: 421, and the record names the host. */
function misdirected<R extends CloudRecord>(host: string): Endpoint<R> {
  return {
    record: () => ({ path: `//${host}` }) as Partial<R>,
    answer: () => {
      throw new Refusal(421, 'MisdirectedRequest', `not served: ${host}`);
    },
    refuse: (r) => ({ status: r.status }),
  };
}

/** The body in full, or undefined past `limit` bytes (the rest is read and dropped, so the refusal can still be sent). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
