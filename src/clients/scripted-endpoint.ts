// A scripted HTTPS endpoint on loopback that stands in for the API server when
// `certify exec-plugin --clients` runs a plugin through real clients without a
// cluster. It does what the API server does with a credential-less request
// (401 Unauthorized, as with anonymous auth off) and answers any request that
// carries a credential (a bearer token or a client certificate) with 200 and
// a /version body: certification asks whether each client accepted the
// plugin's answer and sent what it got, not whether the credential is good.
//
// Every request is recorded with the credential it carried, the token as a
// sha256 (the raw token stays in memory only, for redaction). TLS asks for a
// client certificate but accepts any (like kube-apiserver's
// RequestClientCert: verification is the authenticator's job, not the
// handshake's).
//
// It takes the request headers kube-apiserver takes, not Node's 16 KiB
// default: k8s.io/apiserver's secure serving sets MaxHeaderBytes 1 << 20, and
// Go's server reads that plus 4096 bytes of slack before it answers 431. A
// request the server refuses before any handler sees it (431 for headers over
// that, 400 for a header value with a control character, which Node's llhttp
// refuses as Go's server does) is recorded as a rejection: the client sent
// it, so its verdict is the server's refusal, never "the client refused".
import { createHash, X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { createCA, issueServerCert } from '../core/tls.ts';
import type { Verdict } from './decoding-model.ts';

export type CarriedCredential =
  | { kind: 'bearer'; tokenSha256: string; tokenLength: number }
  | { kind: 'client-certificate'; subject: string; fingerprint256: string; validTo: string }
  | {
      kind: 'bearer+client-certificate';
      tokenSha256: string;
      tokenLength: number;
      subject: string;
      fingerprint256: string;
      validTo: string;
    };

export interface RecordedRequest {
  seq: number;
  at: string;
  method: string;
  /** Path and query, as sent. */
  url: string;
  userAgent?: string;
  /** What the request authenticated with; absent: nothing (the client sent no credential). */
  credential?: CarriedCredential;
  status: number;
}

/** A request the server refused before reading it through (it cannot say which path it was for). */
export interface RejectedRequest {
  seq: number;
  at: string;
  status: 400 | 431;
  /** llhttp's error code, e.g. HPE_HEADER_OVERFLOW, HPE_INVALID_HEADER_TOKEN. */
  reason: string;
}

/** kube-apiserver's request header limit: k8s.io/apiserver pkg/server/secure_serving.go sets MaxHeaderBytes: 1 << 20. */
export const KUBE_APISERVER_MAX_HEADER_BYTES = 1 << 20;

/** Go's net/http server limit as kube-apiserver sets it: MaxHeaderBytes plus the 4096 bytes of bufio slack it reads. */
export const ENDPOINT_MAX_HEADER_BYTES = KUBE_APISERVER_MAX_HEADER_BYTES + 4096;

export interface ScriptedEndpoint {
  /** https://127.0.0.1:<port> */
  readonly server: string;
  /** PEM of the CA that signed the server certificate (for certificate-authority-data). */
  readonly caPem: string;
  requests(): RecordedRequest[];
  /** Requests refused before a handler saw them (malformed or too large headers), in order. */
  rejections(): RejectedRequest[];
  /** Every bearer token seen so far, for a Redactor: they are the plugin's secrets. */
  tokensSeen(): string[];
  stop(): Promise<void>;
}

/** The body of a 200: what kube-apiserver's /version says, marked as credprov's. */
export const VERSION_BODY = {
  major: '1',
  minor: '0',
  gitVersion: 'v0.0.0-credprov-scripted-endpoint',
  platform: 'linux/amd64',
};

const UNAUTHORIZED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Unauthorized',
  reason: 'Unauthorized',
  code: 401,
};

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export async function startScriptedEndpoint(): Promise<ScriptedEndpoint> {
  const dir = await mkdtemp(join(tmpdir(), 'credprov-endpoint-'));
  let server: Server | undefined;
  try {
    const ca = await createCA(dir, 'credprov scripted endpoint CA');
    const cert = await issueServerCert(ca, dir, ['127.0.0.1', 'localhost']);
    const [caPem, certPem, keyPem] = await Promise.all([
      readFile(ca.certPath, 'utf8'),
      readFile(cert.certPath, 'utf8'),
      readFile(cert.keyPath, 'utf8'),
    ]);
    // The keys are in memory now; nothing of them needs to stay on disk.
    await rm(dir, { recursive: true, force: true });
    const recorded: RecordedRequest[] = [];
    const tokens = new Set<string>();
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      const credential = credentialOf(req, tokens);
      const status = credential ? 200 : 401;
      recorded.push({
        seq: recorded.length + 1,
        at: new Date().toISOString(),
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
        ...(credential ? { credential } : {}),
        status,
      });
      req.resume();
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status === 200 ? VERSION_BODY : UNAUTHORIZED));
    };
    const rejected: RejectedRequest[] = [];
    server = createServer(
      {
        cert: certPem,
        key: keyPem,
        requestCert: true,
        rejectUnauthorized: false,
        maxHeaderSize: ENDPOINT_MAX_HEADER_BYTES,
      },
      handler,
    );
    const s = server;
    // With a listener, answering is ours: the status Node would give, as Go's server gives it.
    s.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
      if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
      const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      rejected.push({
        seq: rejected.length + 1,
        at: new Date().toISOString(),
        status,
        reason: err.code ?? err.message,
      });
      const text = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
      socket.end(
        `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status} ${text}`,
      );
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (s.address() as { port: number }).port;
    let stopped: Promise<void> | undefined;
    return {
      server: `https://127.0.0.1:${port}`,
      caPem,
      requests: () => recorded.map((r) => ({ ...r })),
      rejections: () => rejected.map((r) => ({ ...r })),
      tokensSeen: () => [...tokens],
      stop: () => {
        stopped ??= new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeAllConnections();
        });
        return stopped;
      },
    };
  } catch (err) {
    server?.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

function credentialOf(req: IncomingMessage, tokens: Set<string>): CarriedCredential | undefined {
  // As kube-apiserver reads it (k8s.io/apiserver pkg/authentication/request/bearertoken): trimmed, split on
  // single spaces, the second part is the token; an empty one is no token ("Bearer  x" is anonymous).
  const parts = (req.headers.authorization ?? '').trim().split(' ');
  const token = parts.length >= 2 && parts[0]!.toLowerCase() === 'bearer' ? parts[1] : undefined;
  if (token) tokens.add(token);
  const peer = (req.socket as TLSSocket).getPeerX509Certificate?.();
  const cert = peer ? describeCert(peer) : undefined;
  if (token && cert)
    return { kind: 'bearer+client-certificate', tokenSha256: sha256(token), tokenLength: token.length, ...cert };
  if (token) return { kind: 'bearer', tokenSha256: sha256(token), tokenLength: token.length };
  if (cert) return { kind: 'client-certificate', ...cert };
  return undefined;
}

function describeCert(c: X509Certificate): { subject: string; fingerprint256: string; validTo: string } {
  return { subject: c.subject.replace(/\n/g, ', '), fingerprint256: c.fingerprint256, validTo: c.validTo };
}

/**
 * A client's verdict from what reached the endpoint for its request: `seen`
 * (the requests for its path) and `rejected` (refusals during its turn, which
 * name no path).
 */
export function verdictAtEndpoint(seen: readonly RecordedRequest[], rejected: readonly RejectedRequest[]): Verdict {
  if (seen.length === 0) return rejected.length > 0 ? 'server-refuses' : 'refuses';
  return seen.every((r) => r.credential) ? 'accepts' : 'sends-no-credential';
}
