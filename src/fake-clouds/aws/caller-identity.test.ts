// The fake STS's GetCallerIdentity: presigned GETs as aws-iam-authenticator
// tokens carry them (signature, region of the Host, 15-minute window after
// X-Amz-Date, JSON or XML), header-signed POSTs, and the https listener for a
// real STS hostname. When the plugin's build is cached, its own tokens too.
import { afterEach, describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, issueServerCert } from '../../core/tls.ts';
import { ensureVendorPlugin } from '../../plugin/vendors/build.ts';
import { IAM_AUTHENTICATOR_RECIPE, IAM_AUTHENTICATOR_VERSION } from '../../plugin/vendors/aws-iam-authenticator.ts';
import { FakeAws, newIamUser, type IamUser } from './index.ts';
import { presignGet, sigV4Signature } from '../../api/aws/sigv4.ts';
import { stsRegionOfHost } from '../../api/aws/sts.ts';
import { testIf } from '../../testing/prerequisites.ts';

const HOST = 'sts.us-west-2.amazonaws.com';
const fakes: FakeAws[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.stop()));
});

async function startFake(o: { skewMs?: number } = {}) {
  const user = newIamUser('credprov-dev', '111122223333');
  const fake = new FakeAws({ users: [user], clock: () => Date.now() + (o.skewMs ?? 0) });
  fakes.push(fake);
  await fake.start();
  return { fake, user };
}

const presign = (
  user: Pick<IamUser, 'accessKeyId' | 'secretAccessKey'>,
  o: { clusterId?: string | null; signedAtMs?: number; region?: string } = {},
) =>
  presignGet({
    url: `https://${HOST}/`,
    params: [
      ['Action', 'GetCallerIdentity'],
      ['Version', '2011-06-15'],
    ],
    headers: o.clusterId === null ? {} : { 'x-k8s-aws-id': o.clusterId ?? 'c1' },
    region: o.region ?? 'us-west-2',
    service: 'sts',
    credentials: user,
    signedAtMs: o.signedAtMs ?? Date.now(),
    expiresSeconds: 60,
  });

/** Sends a presigned URL to the fake's http endpoint as the authenticator sends it: Host of the URL, its own x-k8s-aws-id. */
function replay(
  fake: FakeAws,
  url: string,
  headers: Record<string, string> = { 'x-k8s-aws-id': 'c1', accept: 'application/json' },
): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  const endpoint = new URL(fake.endpoints!.sts);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: endpoint.hostname,
        port: endpoint.port,
        method: 'GET',
        path: `${u.pathname}${u.search}`,
        headers: { host: u.host, ...headers },
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

describe('fake STS: GetCallerIdentity, presigned', () => {
  test('a URL presigned by a key it issued, replayed with the signed cluster id, answers the caller as JSON', async () => {
    const { fake, user } = await startFake();
    const r = await replay(fake, presign(user));
    expect(r.status).toBe(200);
    const result = (
      JSON.parse(r.body) as { GetCallerIdentityResponse: { GetCallerIdentityResult: Record<string, string> } }
    ).GetCallerIdentityResponse.GetCallerIdentityResult;
    expect(result).toMatchObject({ Account: '111122223333', Arn: 'arn:aws:iam::111122223333:user/credprov-dev' });
    expect(result.UserId).toMatch(/^AIDA[A-Z2-7]{17}$/);
    // The same user id every time (AWS's is stable per principal).
    expect(
      JSON.parse((await replay(fake, presign(user))).body).GetCallerIdentityResponse.GetCallerIdentityResult.UserId,
    ).toBe(result.UserId);
    expect(fake.requests({ service: 'sts' })[0]).toMatchObject({
      operation: 'GetCallerIdentity',
      signature: 'valid',
      status: 200,
      sts: {
        host: HOST,
        k8sAwsId: 'c1',
        presigned: { expiresSeconds: 60, signedHeaders: ['host', 'x-k8s-aws-id'] },
        caller: { arn: result.Arn },
      },
    });
    // The request log keeps that the URL was signed, never the signature (it is the credential while its window lasts).
    const logged = fake.requests({ service: 'sts' })[0]!.path;
    expect(logged).toContain('X-Amz-Signature=(not kept)');
    expect(logged).not.toMatch(/X-Amz-Signature=[0-9a-f]/);
  });

  test("without Accept: application/json the answer is STS's XML", async () => {
    const { fake, user } = await startFake();
    const r = await replay(fake, presign(user), { 'x-k8s-aws-id': 'c1' });
    expect(r.body).toMatch(/<GetCallerIdentityResponse[\s\S]*<Arn>arn:aws:iam::111122223333:user\/credprov-dev<\/Arn>/);
  });

  test.each([
    [
      'a wrong secret',
      (u: IamUser) => presign({ ...u, secretAccessKey: 'not-it' }),
      undefined,
      'SignatureDoesNotMatch',
      'invalid',
    ],
    [
      'a key it never issued',
      () => presign(newIamUser('x', '111122223333')),
      undefined,
      'InvalidClientTokenId',
      'unknown-key',
    ],
    [
      'another cluster id than the one signed',
      (u: IamUser) => presign(u),
      { 'x-k8s-aws-id': 'c2', accept: 'application/json' },
      'SignatureDoesNotMatch',
      'invalid',
    ],
    [
      "a signature for another region than the Host's",
      (u: IamUser) => presign(u, { region: 'eu-west-1' }),
      undefined,
      'SignatureDoesNotMatch',
      'invalid',
    ],
    [
      'an X-Amz-Date 16 minutes old',
      (u: IamUser) => presign(u, { signedAtMs: Date.now() - 16 * 60_000 }),
      undefined,
      'SignatureDoesNotMatch',
      'expired',
    ],
    [
      'an X-Amz-Date 16 minutes ahead',
      (u: IamUser) => presign(u, { signedAtMs: Date.now() + 16 * 60_000 }),
      undefined,
      'SignatureDoesNotMatch',
      'not-yet-valid',
    ],
  ])('%s is refused with 403', async (_what, url, headers, code, signature) => {
    const { fake, user } = await startFake();
    const r = await replay(fake, url(user), headers);
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body)).toMatchObject({ Error: { Code: code, Type: 'Sender' } });
    expect(fake.requests({ service: 'sts' })[0]).toMatchObject({ status: 403, signature, error: { code } });
  });

  test("the window is STS's clock, not the signer's: a fresh URL is refused when STS runs 16 minutes ahead", async () => {
    const { fake, user } = await startFake({ skewMs: 16 * 60_000 });
    const r = await replay(fake, presign(user));
    expect(JSON.parse(r.body).Error.Message).toMatch(/^Signature expired: \d{8}T\d{6}Z is now earlier than/);
  });

  test('a URL that does not sign x-k8s-aws-id is fine for STS (it does not know the header; the authenticator refuses it)', async () => {
    const { fake, user } = await startFake();
    expect((await replay(fake, presign(user, { clusterId: null }))).status).toBe(200);
  });

  test('a header-signed POST works too', async () => {
    const { fake, user } = await startFake();
    const body = 'Action=GetCallerIdentity&Version=2011-06-15';
    const amzDate = new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const u = new URL(fake.endpoints!.sts);
    const headers = { host: u.host, 'x-amz-date': amzDate, 'content-type': 'application/x-www-form-urlencoded' };
    const parsed = {
      date: amzDate.slice(0, 8),
      region: 'us-east-1',
      service: 'sts',
      signedHeaders: Object.keys(headers).sort(),
    };
    const signature = sigV4Signature({
      method: 'POST',
      url: '/',
      headers,
      body,
      parsed,
      secretAccessKey: user.secretAccessKey,
    });
    const res = await fetch(fake.endpoints!.sts, {
      method: 'POST',
      body,
      headers: {
        'x-amz-date': amzDate,
        'content-type': headers['content-type'],
        authorization: `AWS4-HMAC-SHA256 Credential=${user.accessKeyId}/${parsed.date}/us-east-1/sts/aws4_request, SignedHeaders=${parsed.signedHeaders.join(';')}, Signature=${signature}`,
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<Arn>arn:aws:iam::111122223333:user/credprov-dev</Arn>');
  });
});

test('stsRegionOfHost names the region of STS hostnames only', () => {
  expect(stsRegionOfHost('sts.amazonaws.com')).toBe('us-east-1');
  expect(stsRegionOfHost('sts.us-west-2.amazonaws.com')).toBe('us-west-2');
  expect(stsRegionOfHost('sts.us-west-2.amazonaws.com:443')).toBe('us-west-2');
  expect(stsRegionOfHost('sts-fips.us-east-1.amazonaws.com')).toBe('us-east-1');
  expect(stsRegionOfHost('sts.cn-north-1.amazonaws.com.cn')).toBe('cn-north-1');
  expect(stsRegionOfHost('127.0.0.1:8080')).toBeUndefined();
  expect(stsRegionOfHost('sts.us-west-2.example.com')).toBeUndefined();
});

test('serveStsTls answers over https under the STS hostname, with a certificate the caller made', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'credprov-sts-tls-'));
  try {
    const { fake, user } = await startFake();
    const ca = await createCA(dir);
    const cert = await issueServerCert(ca, dir, [HOST], 'sts');
    const { port } = await fake.serveStsTls({
      address: '127.0.0.1',
      port: 0,
      certPem: await readFile(cert.certPath, 'utf8'),
      keyPem: await readFile(cert.keyPath, 'utf8'),
    });
    const u = new URL(presign(user));
    // As a client that resolves the hostname to this address sends it: SNI and Host are the STS name.
    const get = (ca?: Buffer) =>
      new Promise<number | string>((resolve) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port,
            servername: HOST,
            path: `/${u.search}`,
            headers: { host: HOST, 'x-k8s-aws-id': 'c1' },
            ...(ca ? { ca } : {}),
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
        req.end();
      });
    // Not trusted by default: the lab's processes are told (SSL_CERT_FILE), nothing else is.
    expect(await get()).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(await get(await readFile(ca.certPath))).toBe(200);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// The real, unmodified plugin's tokens against the fake: only when its build is cached.
const plugin = await ensureVendorPlugin(IAM_AUTHENTICATOR_RECIPE, {
  version: IAM_AUTHENTICATOR_VERSION,
  cachedOnly: true,
}).catch(() => undefined);
const withPlugin = testIf(
  plugin
    ? { ok: true }
    : {
        ok: false,
        reason: `aws-iam-authenticator ${IAM_AUTHENTICATOR_VERSION} is not built (credprov run --suite vendor-aws-iam-authenticator builds it)`,
      },
);

withPlugin(
  'aws-iam-authenticator token: its presigned URL names the regional STS host and verifies against the fake with the cluster id it was given',
  async () => {
    const { fake, user } = await startFake();
    const r = await execa(plugin!.path, ['token', '-i', 'c1'], {
      extendEnv: false,
      reject: false,
      timeout: 30_000,
      env: {
        PATH: '/usr/bin:/bin',
        HOME: '/nonexistent',
        AWS_ACCESS_KEY_ID: user.accessKeyId,
        AWS_SECRET_ACCESS_KEY: user.secretAccessKey,
        AWS_REGION: 'us-west-2',
        AWS_CONFIG_FILE: '/dev/null',
        AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
        AWS_EC2_METADATA_SERVICE_ENDPOINT: fake.endpoints!.other,
      },
    });
    expect(r.exitCode).toBe(0);
    const token = (JSON.parse(String(r.stdout)) as { status: { token: string } }).status.token;
    const url = Buffer.from(token.replace(/^k8s-aws-v1\./, ''), 'base64url').toString();
    expect(new URL(url).host).toBe(HOST);
    expect((await replay(fake, url)).status).toBe(200);
    expect((await replay(fake, url, { 'x-k8s-aws-id': 'c2', accept: 'application/json' })).status).toBe(403);
    // It made no network call of its own: presigning is local.
    expect(fake.requests().map((x) => x.sts?.k8sAwsId)).toEqual(['c1', 'c2']);
  },
  60_000,
);
