// The endpoint that stands in for the API server in certification: 401 without a credential, 200 with one, every request recorded.
import { request } from 'node:https';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { issueClientCertificate } from '../core/client-cert.ts';
import { clientGoVersionFor, defaultClientEnv, exactKubeVersion } from './common.ts';
import {
  KUBE_APISERVER_MAX_HEADER_BYTES,
  startScriptedEndpoint,
  verdictAtEndpoint,
  VERSION_BODY,
  type ScriptedEndpoint,
} from './scripted-endpoint.ts';

let ep: ScriptedEndpoint;
beforeAll(async () => {
  ep = await startScriptedEndpoint();
});
afterAll(async () => {
  await ep?.stop();
});

function get(
  path: string,
  o: { token?: string; cert?: { certPem: string; keyPem: string } } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${ep.server}${path}`,
      {
        ca: ep.caPem,
        headers: o.token ? { authorization: `Bearer ${o.token}` } : {},
        ...(o.cert ? { cert: o.cert.certPem, key: o.cert.keyPem } : {}),
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('scripted endpoint', () => {
  test('serves https on loopback under its own CA, 401 to a request without a credential', async () => {
    expect(ep.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const r = await get('/version?n=1');
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body)).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
    expect(ep.requests().find((x) => x.url === '/version?n=1')).toMatchObject({ status: 401 });
    expect(ep.requests().find((x) => x.url === '/version?n=1')?.credential).toBeUndefined();
  });

  test('200 with a token, recorded as its hash only; the token is kept for redaction', async () => {
    const r = await get('/version?n=2', { token: 'a-secret-token-123' });
    expect([r.status, JSON.parse(r.body)]).toEqual([200, VERSION_BODY]);
    const rec = ep.requests().find((x) => x.url === '/version?n=2')!;
    expect(rec.credential).toMatchObject({ kind: 'bearer', tokenLength: 18 });
    expect(JSON.stringify(ep.requests())).not.toContain('a-secret-token-123');
    expect(ep.tokensSeen()).toContain('a-secret-token-123');
  });

  test('200 with a client certificate, recorded by subject and fingerprint', async () => {
    const cert = issueClientCertificate({ commonName: 'alice' });
    expect((await get('/version?n=3', { cert })).status).toBe(200);
    const rec = ep.requests().find((x) => x.url === '/version?n=3')!;
    expect(rec.credential).toMatchObject({ kind: 'client-certificate' });
    expect((rec.credential as { subject: string }).subject).toContain('CN=alice');
  });
});

/** One request written byte for byte (a client that sends what Node's own client would refuse); resolves with the status line. */
function raw(path: string, authorization: string): Promise<string> {
  const port = Number(new URL(ep.server).port);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca: ep.caPem, servername: 'localhost' }, () =>
      socket.end(
        Buffer.from(
          `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\nConnection: close\r\n\r\n`,
          'latin1',
        ),
      ),
    );
    let got = '';
    socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(got.split('\r\n')[0]!));
  });
}

describe('the scripted endpoint takes what kube-apiserver takes, and says what it refused', () => {
  test('a 512 KiB token is read (Node alone stops at 16 KiB)', async () => {
    const token = `big.${'g'.repeat(512 * 1024)}`;
    expect((await get('/version?n=big', { token })).status).toBe(200);
    expect(ep.requests().find((x) => x.url === '/version?n=big')?.credential).toMatchObject({
      tokenLength: token.length,
    });
  });

  test('headers over 1 MiB: 431, recorded as the server refusing, not the client', async () => {
    const before = ep.rejections().length;
    expect(await raw('/version?n=huge', `Bearer ${'g'.repeat(KUBE_APISERVER_MAX_HEADER_BYTES + 8192)}`)).toBe(
      'HTTP/1.1 431 Request Header Fields Too Large',
    );
    const rejected = ep.rejections().slice(before);
    expect(rejected).toMatchObject([{ status: 431, reason: 'HPE_HEADER_OVERFLOW' }]);
    expect(verdictAtEndpoint([], rejected)).toBe('server-refuses');
    expect(verdictAtEndpoint([], [])).toBe('refuses');
  });

  test('a control character in a header value: 400, as Go net/http answers', async () => {
    const before = ep.rejections().length;
    expect(await raw('/version?n=del', 'Bearer to\x7fk')).toBe('HTTP/1.1 400 Bad Request');
    expect(ep.rejections().slice(before)).toMatchObject([{ status: 400 }]);
  });

  test('the token is read as kube-apiserver reads it: split on single spaces', async () => {
    expect((await raw('/version?n=lead', 'Bearer  tok-lead')).startsWith('HTTP/1.1 401')).toBe(true);
    expect((await raw('/version?n=tab', 'bearer to\tk-tab')).startsWith('HTTP/1.1 200')).toBe(true);
  });
});

describe('probe options', () => {
  test("client-go is taken at the cluster's release", () => {
    expect(clientGoVersionFor('v1.37.1')).toBe('v0.37.1');
    expect(clientGoVersionFor('1.34.5')).toBe('v0.34.5');
    expect(clientGoVersionFor('v1.38.0-alpha.0')).toBe('v0.38.0-alpha.0');
    expect(() => clientGoVersionFor('1.37')).toThrow(/not an exact Kubernetes version/);
    expect([exactKubeVersion('1.36.5'), exactKubeVersion('v1.37.1'), exactKubeVersion('1.37')]).toEqual([
      'v1.36.5',
      'v1.37.1',
      undefined,
    ]);
    expect(exactKubeVersion('1.38.0-rc.1')).toBe('v1.38.0-rc.1');
  });

  test("the default client environment keeps credprov's, minus variables named like secrets", () => {
    expect(defaultClientEnv({ PATH: '/bin', HOME: '/root', GITHUB_TOKEN: 'x', REGISTRY_PASSWORD: 'y' })).toEqual({
      PATH: '/bin',
      HOME: '/root',
    });
  });
});
