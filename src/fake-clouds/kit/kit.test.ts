// The fake-cloud kit: listeners (http, https per Host), records, refusals in a
// cloud's shape, the body limit, in-process exchanges, the JWT and issued-token
// rules, and serving under a real host name through a hosts file.
import { afterEach, describe, expect, test } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { HostsFile } from '../../core/hosts.ts';
import { createCA, issueServerCert } from '../../core/tls.ts';
import { useTempDir } from '../../testing/tmp.ts';
import {
  claimHostname,
  cloudRequest,
  FakeCloud,
  IssuedTokens,
  jsonReply,
  oauthRefusal,
  Refusal,
  serveOnFreeLoopbackAddress,
  serveUnderHostnames,
  TrustedIssuer,
  type CloudRecord,
  type Endpoint,
} from './index.ts';

interface Rec extends CloudRecord {
  who?: string;
  error?: string;
}

const tmp = useTempDir('credprov-fake-cloud-kit-');
const clouds: Array<FakeCloud<Rec>> = [];
afterEach(async () => {
  await Promise.all(clouds.splice(0).map((c) => c.stop()));
});

function cloud(o: { logFile?: string } = {}): FakeCloud<Rec> {
  const c = new FakeCloud<Rec>({ name: 'Test', ...o, errorOf: (r) => `${r.code}: ${r.message}` });
  clouds.push(c);
  return c;
}

/** Answers "hello <who>" to a form post with who=…; refuses anything else the OAuth way; throws on who=crash. */
const hello: Endpoint<Rec> = {
  refuse: oauthRefusal,
  maxBody: { bytes: 64, code: 'invalid_request' },
  answer(req, note) {
    if (req.method !== 'POST') throw new Refusal(405, 'invalid_request', `${req.method} not allowed`);
    const who = req.form().get('who') ?? '';
    note({ who });
    if (who === 'crash') throw new Error('a bug in the fake');
    return jsonReply(200, { hello: who });
  },
};

const post = (url: string, body: string) =>
  fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'kit-test/1' },
  });

describe('FakeCloud', () => {
  test('answers over http on loopback and records each request: seq, time, method, path, user agent, noted fields, status', async () => {
    const logFile = join(tmp(), 'requests.jsonl');
    const c = cloud({ logFile });
    const { url, address } = await c.listen(hello);
    expect(address).toBe('127.0.0.1');
    const r = await post(`${url}/greet?x=1`, 'who=ana');
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ hello: 'ana' });
    const [rec] = c.requests();
    expect(rec).toEqual({
      seq: 1,
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      method: 'POST',
      path: '/greet',
      userAgent: 'kit-test/1',
      who: 'ana',
      status: 200,
    });
    expect(JSON.parse((await readFile(logFile, 'utf8')).trim())).toEqual(rec);
  });

  test("a Refusal is written in the endpoint's cloud shape and recorded with errorOf; a bug in the fake is a 500 in that shape", async () => {
    const c = cloud();
    const { url } = await c.listen(hello);
    const refused = await fetch(url);
    expect(refused.status).toBe(405);
    expect(await refused.json()).toEqual({ error: 'invalid_request', error_description: 'GET not allowed' });
    const crashed = await post(url, 'who=crash');
    expect(crashed.status).toBe(500);
    expect(await crashed.json()).toEqual({
      error: 'InternalFailure',
      error_description: 'credprov fake Test: a bug in the fake',
    });
    expect(c.requests().map((r) => [r.seq, r.status, r.error, r.who])).toEqual([
      [1, 405, 'invalid_request: GET not allowed', undefined],
      [2, 500, 'InternalFailure: credprov fake Test: a bug in the fake', 'crash'],
    ]);
  });

  test('a body over the endpoint’s limit is refused with 413 and its code, without reading it into memory', async () => {
    const c = cloud();
    const { url } = await c.listen(hello);
    const r = await post(url, `who=${'x'.repeat(200)}`);
    expect(r.status).toBe(413);
    expect(await r.json()).toEqual({ error: 'invalid_request', error_description: 'body over 64 bytes' });
    expect(c.requests()[0]).toMatchObject({ status: 413, error: 'invalid_request: body over 64 bytes' });
  });

  test('over https, one endpoint per Host; another Host gets 421 and its record names the host', async () => {
    const dir = tmp();
    const ca = await createCA(join(dir, 'ca-hosts'));
    const cert = await issueServerCert(ca, join(dir, 'ca-hosts'), ['a.cloud.test', 'b.cloud.test'], 'hosts');
    const [certPem, keyPem, caPem] = await Promise.all([
      readFile(cert.certPath, 'utf8'),
      readFile(cert.keyPath, 'utf8'),
      readFile(ca.certPath, 'utf8'),
    ]);
    const named = (name: string): Endpoint<Rec> => ({
      refuse: oauthRefusal,
      answer: () => jsonReply(200, { name }),
    });
    const c = cloud();
    const { port, url } = await c.listen(
      { hosts: { 'a.cloud.test': named('a'), 'b.cloud.test': named('b') } },
      { tls: { certPem, keyPem } },
    );
    expect(url).toBe(`https://127.0.0.1:${port}`);
    const get = (host: string) => httpsGet({ port, host, ca: caPem, path: '/x' });
    expect(await get('a.cloud.test')).toEqual({ status: 200, body: '{"name":"a"}' });
    expect(await get('b.cloud.test')).toEqual({ status: 200, body: '{"name":"b"}' });
    // A client that connected for a.cloud.test and then asks for another name (HTTP/1.1 connection reuse, a proxy).
    expect(
      (await httpsGet({ port, host: 'c.cloud.test', servername: 'a.cloud.test', ca: caPem, path: '/x' })).status,
    ).toBe(421);
    expect(c.requests().map((r) => `${r.status} ${r.path}`)).toEqual(['200 /x', '200 /x', '421 //c.cloud.test']);
    expect(c.requests()[2]!.error).toBe('MisdirectedRequest: not served: c.cloud.test');
  });

  test('exchange answers and records in process, without a socket (how an endpoint is unit-tested)', async () => {
    const c = cloud();
    const { reply, record } = await c.exchange(
      hello,
      cloudRequest({ method: 'POST', target: '/greet', headers: { host: 'x.test:443' }, body: 'who=bo' }),
    );
    expect(reply).toMatchObject({ status: 200, body: '{"hello":"bo"}' });
    expect(record).toMatchObject({ seq: 1, method: 'POST', path: '/greet', who: 'bo', status: 200 });
    expect(cloudRequest({ target: '//host/p?q=1', headers: { host: 'h:1' } })).toMatchObject({ host: 'h' });
    expect(cloudRequest({ target: '//host/p?q=1' }).url.pathname).toBe('//host/p');
  });

  test('listens on loopback only', async () => {
    await expect(cloud().listen(hello, { address: '0.0.0.0' })).rejects.toThrow('loopback only, not on 0.0.0.0');
  });

  test('a port already taken rejects listen and leaves no listener behind', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (taken.address() as { port: number }).port;
      const c = cloud();
      await expect(c.listen(hello, { port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      await c.stop();
    } finally {
      taken.close();
    }
  });
});

describe('rules', () => {
  const ISSUER = 'https://issuer.test';
  const mint = async (key: Parameters<SignJWT['sign']>[0], o: { iss?: string; exp?: number } = {}) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(o.iss ?? ISSUER)
      .setSubject('system:serviceaccount:ns:sa')
      .setAudience(['aud1', 'aud2'])
      .setExpirationTime(o.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(key);

  test('TrustedIssuer: untrusted until set, then ok / expired (at the fake’s time) / issuer / invalid', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const other = await generateKeyPair('RS256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    const trust = new TrustedIssuer();
    const token = await mint(privateKey);
    expect(await trust.verify(token)).toEqual({ ok: false, failure: 'untrusted' });
    trust.set({ issuer: ISSUER, jwks: { keys: [jwk] } });
    expect(trust.issuer).toBe(ISSUER);
    const ok = await trust.verify(token);
    expect(ok).toMatchObject({ ok: true, payload: { sub: 'system:serviceaccount:ns:sa', aud: ['aud1', 'aud2'] } });
    expect(await trust.verify(token, { now: Date.now() + 3_600_000 })).toMatchObject({ ok: false, failure: 'expired' });
    expect(await trust.verify(await mint(privateKey, { iss: 'https://other.test' }))).toMatchObject({
      ok: false,
      failure: 'issuer',
    });
    expect(await trust.verify(await mint(other.privateKey))).toMatchObject({ ok: false, failure: 'invalid' });
    expect(await trust.verify('not a jwt')).toMatchObject({ ok: false, failure: 'invalid' });
  });

  test('IssuedTokens: a token it issued is recognised with its grant, and told to onSecret first; others are not', () => {
    const heard: string[] = [];
    const tokens = new IssuedTokens<{ resource: string }>({ onSecret: (t) => heard.push(t) });
    const a = tokens.issue({ resource: 'r1' });
    const b = tokens.issue({ resource: 'r2' });
    expect(a).not.toBe(b);
    expect(heard).toEqual([a, b]);
    expect(tokens.lookup(a)).toEqual({ resource: 'r1' });
    expect(tokens.lookup('forged')).toBeUndefined();
  });
});

describe('host names', () => {
  test('serveOnFreeLoopbackAddress tries another 127.x address when one is taken, and gives up on other errors', async () => {
    let calls = 0;
    const addr = await serveOnFreeLoopbackAddress(async (a) => {
      calls++;
      if (calls === 1) throw Object.assign(new Error('taken'), { code: 'EADDRINUSE' });
      expect(a).toMatch(/^127\.\d+\.\d+\.\d+$/);
    });
    expect(calls).toBe(2);
    expect(addr).toMatch(/^127\./);
    await expect(serveOnFreeLoopbackAddress(() => Promise.reject(new Error('EACCES')))).rejects.toThrow('EACCES');
  });

  test('claimHostname removes a dead lab’s line and refuses a live one’s', async () => {
    const hosts = new HostsFile(join(tmp(), 'hosts-claim'));
    await hosts.add({ address: '127.1.2.3', hostnames: ['sts.test'], owner: 'vendor/x/999999999-ab' });
    await claimHostname(hosts, 'sts.test', 'vendor/x/');
    expect(await hosts.entries()).toEqual([]);
    await hosts.add({ address: '127.1.2.3', hostnames: ['sts.test'], owner: `vendor/x/${process.pid}-ab` });
    await expect(claimHostname(hosts, 'sts.test', 'vendor/x/')).rejects.toThrow(/already mapped .* by 'vendor\/x\//);
  });

  test('serveUnderHostnames: a certificate for the names, 443 of a free loopback address, a hosts line; unmap removes it', async () => {
    const dir = tmp();
    const hostsFile = new HostsFile(join(dir, 'hosts-serve'));
    await writeFile(hostsFile.path, '127.0.0.1 localhost\n');
    const c = cloud();
    let served: { address: string; port: number } | undefined;
    const s = await serveUnderHostnames(
      {
        hostnames: ['api.cloud.test'],
        dir: join(dir, 'serve'),
        caName: 'kit test CA',
        ownerPrefix: 'vendor/kit-test/',
        hostsFile,
      },
      async (at) => {
        served = await c.listen(
          { refuse: oauthRefusal, answer: (req) => jsonReply(200, { host: req.host }) },
          { address: at.address, port: 0, tls: { certPem: at.certPem, keyPem: at.keyPem } },
        );
        expect(at.port).toBe(443);
      },
    );
    expect(s.address).toMatch(/^127\./);
    expect(await hostsFile.entries()).toEqual([
      { address: s.address, hostnames: ['api.cloud.test'], owner: expect.stringMatching(/^vendor\/kit-test\/\d+-/) },
    ]);
    const ca = await readFile(s.caFile, 'utf8');
    expect(await httpsGet({ port: served!.port, address: s.address, host: 'api.cloud.test', ca, path: '/' })).toEqual({
      status: 200,
      body: '{"host":"api.cloud.test"}',
    });
    await s.unmap();
    expect(await hostsFile.entries()).toEqual([]);
    expect(await readFile(hostsFile.path, 'utf8')).toContain('127.0.0.1 localhost');
  });
});

function httpsGet(o: { port: number; host: string; ca: string; path: string; address?: string; servername?: string }) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpsRequest(
      {
        host: o.address ?? '127.0.0.1',
        port: o.port,
        servername: o.servername ?? o.host,
        path: o.path,
        ca: o.ca,
        headers: { host: o.host },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
