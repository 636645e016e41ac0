import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createServer, request, type Server } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createCA, issueServerCert } from '../src/core/tls.ts';
import { freePort } from '../src/core/ports.ts';
import { credentialOf, startRecordingProxy, type RecordingProxy } from './recording-proxy.ts';

describe('credentialOf: which credential, never the secret', () => {
  test('Basic user, none, bearer subject', () => {
    expect(credentialOf(undefined)).toBe('none');
    expect(credentialOf(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`)).toBe('alice');
    const jwt = ['e30', Buffer.from(JSON.stringify({ sub: 'bob' })).toString('base64url'), 'sig'].join('.');
    expect(credentialOf(`Bearer ${jwt}`)).toBe('bearer token for bob');
    expect(credentialOf('Bearer opaque')).toBe('bearer token (not a JWT)');
  });
});

describe('the recording proxy in front of an https registry', () => {
  let dir: string;
  let upstream: Server;
  let proxy: RecordingProxy;
  let ca: string;
  let registry: { address: string; port: number; scheme: 'https'; caCertPath: string; dir: string };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'credprov-proxy-'));
    const authority = await createCA(join(dir, 'tls'));
    const pair = await issueServerCert(authority, join(dir, 'tls'), ['127.0.0.1']);
    ca = await readFile(authority.certPath, 'utf8');
    // A registry stand-in: 401 with a Basic challenge unless alice:s3cret, 404 for /missing.
    upstream = createServer({ cert: await readFile(pair.certPath), key: await readFile(pair.keyPath) }, (req, res) => {
      const ok = req.headers.authorization === `Basic ${Buffer.from('alice:s3cret').toString('base64')}`;
      if (!ok) res.writeHead(401, { 'www-authenticate': 'Basic realm="lab"' }).end();
      else res.writeHead(req.url?.startsWith('/v2/missing') ? 404 : 200).end('body');
    });
    const port = await freePort('127.0.0.1');
    upstream.listen(port, '127.0.0.1');
    await once(upstream, 'listening');
    registry = { address: '127.0.0.1', port, scheme: 'https', caCertPath: authority.certPath, dir };
    proxy = await startRecordingProxy(registry, join(dir, 'requests.jsonl'));
  });
  afterAll(async () => {
    await proxy?.stop();
    await new Promise((r) => upstream?.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  const get = (path: string, authorization?: string, via: RecordingProxy = proxy) =>
    new Promise<number>((resolve, reject) => {
      const r = request(
        {
          host: via.address,
          port: via.port,
          path,
          ca,
          headers: {
            host: via.host,
            'user-agent': 'containerd/v2.3.7',
            ...(authorization ? { authorization } : {}),
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      r.on('error', reject);
      r.end();
    });

  test('forwards, answers as the registry does, and records host, path, ns, status and the user name only', async () => {
    const alice = `Basic ${Buffer.from('alice:s3cret').toString('base64')}`;
    expect(await get('/v2/app/manifests/v1?ns=origin.test')).toBe(401);
    expect(await get('/v2/app/manifests/v1?ns=origin.test', alice)).toBe(200);
    expect(await get('/v2/missing/manifests/v1', alice)).toBe(404);
    const rs = await proxy.requests();
    expect(rs.map((r) => [r.host, r.method, r.path, r.ns, r.status, r.credential, r.agent])).toEqual([
      [proxy.host, 'GET', '/v2/app/manifests/v1', 'origin.test', 401, 'none', 'containerd/v2.3.7'],
      [proxy.host, 'GET', '/v2/app/manifests/v1', 'origin.test', 200, 'alice', 'containerd/v2.3.7'],
      [proxy.host, 'GET', '/v2/missing/manifests/v1', undefined, 404, 'alice', 'containerd/v2.3.7'],
    ]);
    expect(await readFile(proxy.logFile, 'utf8')).not.toContain('s3cret');
  });

  test('delayMs holds the requests it names before forwarding them, and each line says when it arrived', async () => {
    const held = await startRecordingProxy(registry, join(dir, 'held.jsonl'), {
      delayMs: (r) => (r.credential !== 'none' && r.path.includes('/manifests/') ? 300 : 0),
    });
    const alice = `Basic ${Buffer.from('alice:s3cret').toString('base64')}`;
    try {
      expect(await get('/v2/app/manifests/v1', undefined, held)).toBe(401);
      expect(await get('/v2/app/manifests/v1', alice, held)).toBe(200);
      const [anonymous, authenticated] = await held.requests();
      const waited = (r: typeof anonymous) => Date.parse(r!.time) - Date.parse(r!.received!);
      expect(waited(anonymous)).toBeLessThan(300);
      expect(waited(authenticated)).toBeGreaterThanOrEqual(290);
    } finally {
      await held.stop();
    }
  });
});
