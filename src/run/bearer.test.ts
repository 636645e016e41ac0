import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, issueServerCert } from '../core/tls.ts';
import { bearerRequest, selfSubjectReview } from './bearer.ts';

let server: Server;
let dir: string;
let cluster: { server: string; caPem: string };
const seen: Array<{ method?: string; url?: string; auth?: string; body: string }> = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'credprov-bearer-'));
  const ca = await createCA(dir);
  const cert = await issueServerCert(ca, dir, ['127.0.0.1']);
  const [certPem, keyPem, caPem] = await Promise.all(
    [cert.certPath, cert.keyPath, ca.certPath].map((f) => readFile(f, 'utf8')),
  );
  server = createServer({ cert: certPem, key: keyPem }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += String(c)));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body });
      if (req.headers.authorization !== 'Bearer good') {
        res.writeHead(401).end('{"kind":"Status"}');
        return;
      }
      res.writeHead(201).end('{"status":{"userInfo":{"username":"system:serviceaccount:ns:sa"}}}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cluster = { server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem: caPem! };
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

test('a bearer request trusts the cluster CA, carries the token, and reads a refusal as a status', async () => {
  expect((await bearerRequest(cluster, 'bad', { path: '/api' })).status).toBe(401);
  expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/api', auth: 'Bearer bad' });
  expect(await selfSubjectReview(cluster, 'good')).toEqual({ status: 201, username: 'system:serviceaccount:ns:sa' });
  expect(JSON.parse(seen.at(-1)!.body)).toMatchObject({ kind: 'SelfSubjectReview' });
  expect(await selfSubjectReview(cluster, 'bad')).toEqual({ status: 401 });
});

test('no answer at all is status 0', async () => {
  expect(
    (await bearerRequest({ server: 'https://127.0.0.1:1', caPem: cluster.caPem }, 'x', { path: '/' })).status,
  ).toBe(0);
});
