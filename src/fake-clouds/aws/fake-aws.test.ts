// The fake AWS endpoints: SigV4 as AWS computes it (AWS's own test vectors),
// ECR GetAuthorizationToken, STS AssumeRoleWithWebIdentity against an OIDC
// issuer's JWKS (audience, expiry, issuer, trust policy), and, when the
// ecr-credential-provider build is cached, the unmodified plugin against them.
import { describe, expect, test, afterEach } from '@jest/globals';
import { execa } from 'execa';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { ecrPluginEnv, ecrRegionOf, ECR_PLUGIN_VERSION, ECR_RECIPE } from '../../plugin/vendors/ecr.ts';
import { ensureVendorPlugin } from '../../plugin/vendors/build.ts';
import { ECR_TARGET, FakeAws, newIamUser, type IamUser } from './index.ts';
import { parseSigV4, sigV4Signature } from '../../api/aws/sigv4.ts';
import { testIf } from '../../testing/prerequisites.ts';

const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';

describe('SigV4 (AWS signature test suite vectors)', () => {
  const sign = (url: string) =>
    sigV4Signature({
      method: 'GET',
      url,
      headers: { host: 'example.amazonaws.com', 'x-amz-date': '20150830T123600Z' },
      body: '',
      parsed: { date: '20150830', region: 'us-east-1', service: 'service', signedHeaders: ['host', 'x-amz-date'] },
      secretAccessKey: AWS_SECRET,
    });

  test('get-vanilla', () => {
    expect(sign('/')).toBe('5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
  });

  test('get-vanilla-query-order-key-case: query parameters are sorted', () => {
    expect(sign('/?Param2=value2&Param1=value1')).toBe(
      'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
    );
  });

  test('parses the Authorization header', () => {
    expect(
      parseSigV4(
        'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/ecr/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc123',
      ),
    ).toEqual({
      accessKeyId: 'AKIDEXAMPLE',
      date: '20150830',
      region: 'us-east-1',
      service: 'ecr',
      signedHeaders: ['host', 'x-amz-date'],
      signature: 'abc123',
    });
    expect(parseSigV4('Bearer x')).toBeUndefined();
  });
});

test("ecrRegionOf follows the plugin's host pattern", () => {
  expect(ecrRegionOf('111122223333.dkr.ecr.us-east-1.amazonaws.com')).toBe('us-east-1');
  expect(ecrRegionOf('111122223333.dkr.ecr-fips.us-gov-west-1.amazonaws.com')).toBe('us-gov-west-1');
  expect(ecrRegionOf('111122223333.dkr.ecr.cn-north-1.amazonaws.com.cn')).toBe('cn-north-1');
  expect(ecrRegionOf('1111.dkr.ecr.us-east-1.amazonaws.com')).toBeUndefined();
  expect(ecrRegionOf('public.ecr.aws')).toBeUndefined();
});

/** A request signed the way aws-sdk-go-v2 signs it (header SigV4). */
async function signedPost(
  url: string,
  o: {
    key: Pick<IamUser, 'accessKeyId' | 'secretAccessKey'>;
    sessionToken?: string;
    region: string;
    service: string;
    target?: string;
    body: string;
    contentType: string;
  },
): Promise<Response> {
  const u = new URL(url);
  const amzDate = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const headers: Record<string, string> = {
    host: u.host,
    'x-amz-date': amzDate,
    'content-type': o.contentType,
    ...(o.target ? { 'x-amz-target': o.target } : {}),
    ...(o.sessionToken ? { 'x-amz-security-token': o.sessionToken } : {}),
  };
  const signedHeaders = Object.keys(headers).sort();
  const parsed = { date: amzDate.slice(0, 8), region: o.region, service: o.service, signedHeaders };
  const signature = sigV4Signature({
    method: 'POST',
    url: '/',
    headers,
    body: o.body,
    parsed,
    secretAccessKey: o.key.secretAccessKey,
  });
  const { host: _host, ...sent } = headers;
  return fetch(url, {
    method: 'POST',
    body: o.body,
    headers: {
      ...sent,
      authorization: `AWS4-HMAC-SHA256 Credential=${o.key.accessKeyId}/${parsed.date}/${o.region}/${o.service}/aws4_request, SignedHeaders=${signedHeaders.join(';')}, Signature=${signature}`,
    },
  });
}

const ecrCall = (
  fake: FakeAws,
  key: Pick<IamUser, 'accessKeyId' | 'secretAccessKey'>,
  region = 'us-east-1',
  sessionToken?: string,
) =>
  signedPost(fake.endpoints!.ecr, {
    key,
    region,
    service: 'ecr',
    target: ECR_TARGET,
    body: '{}',
    contentType: 'application/x-amz-json-1.1',
    ...(sessionToken ? { sessionToken } : {}),
  });

const fakes: FakeAws[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.stop()));
});

async function oidcIssuer() {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const issuer = 'https://127.0.0.1:6443';
  const mint = (
    claims: Record<string, unknown>,
    o: { iss?: string; expSecondsFromNow?: number; key?: typeof privateKey } = {},
  ) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ sub: 'system:serviceaccount:default:puller', aud: ['sts.amazonaws.com'], ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(o.iss ?? issuer)
      .setIssuedAt(now - 10)
      .setExpirationTime(now + (o.expSecondsFromNow ?? 3600))
      .sign(o.key ?? privateKey);
  };
  return { oidc: { issuer, jwks: { keys: [jwk] } }, mint };
}

const ROLE = 'arn:aws:iam::111122223333:role/credprov-ecr-pull';

async function startFake(o: { lifetimeMs?: number; withSts?: boolean } = {}) {
  const user = newIamUser('node', '111122223333');
  const issuer = await oidcIssuer();
  const fake = new FakeAws({
    users: [user],
    ecr: { password: () => 'registry-password', lifetimeMs: () => o.lifetimeMs ?? 12 * 3600_000 },
    ...(o.withSts === false
      ? {}
      : {
          sts: {
            oidc: issuer.oidc,
            audiences: ['sts.amazonaws.com'],
            roles: [{ arn: ROLE, subjects: ['system:serviceaccount:default:puller'] }],
          },
        }),
  });
  fakes.push(fake);
  await fake.start();
  return { fake, user, ...issuer };
}

async function assume(fake: FakeAws, token: string, roleArn = ROLE): Promise<{ status: number; text: string }> {
  const body = new URLSearchParams({
    Action: 'AssumeRoleWithWebIdentity',
    Version: '2011-06-15',
    RoleArn: roleArn,
    RoleSessionName: 'ecr-credential-provider',
    WebIdentityToken: token,
  }).toString();
  const res = await fetch(fake.endpoints!.sts, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  return { status: res.status, text: await res.text() };
}

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

describe('fake ECR: GetAuthorizationToken', () => {
  test("a call signed with an IAM user's key gets base64 AWS:<password> and the expiry the test set", async () => {
    const { fake, user } = await startFake({ lifetimeMs: 20_000 });
    const before = Date.now();
    const res = await ecrCall(fake, user, 'eu-west-1');
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      authorizationData: Array<{ authorizationToken: string; expiresAt: number; proxyEndpoint: string }>;
    };
    const data = body.authorizationData[0]!;
    expect(Buffer.from(data.authorizationToken, 'base64').toString()).toBe('AWS:registry-password');
    expect(data.expiresAt * 1000).toBeGreaterThanOrEqual(before + 20_000);
    expect(data.expiresAt * 1000).toBeLessThan(Date.now() + 20_000 + 1);
    expect(data.proxyEndpoint).toBe('https://111122223333.dkr.ecr.eu-west-1.amazonaws.com');
    const [rec] = fake.requests({ service: 'ecr' });
    expect(rec).toMatchObject({
      region: 'eu-west-1',
      signature: 'valid',
      principal: 'arn:aws:iam::111122223333:user/node',
      status: 200,
      ecr: { lifetimeS: 20 },
    });
    expect(JSON.stringify(rec)).not.toContain('registry-password');
  });

  test('a wrong secret, an unknown key and no signature are refused, and recorded', async () => {
    const { fake, user } = await startFake();
    const wrong = await ecrCall(fake, { accessKeyId: user.accessKeyId, secretAccessKey: 'not-the-secret' });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ __type: 'InvalidSignatureException' });
    const unknown = await ecrCall(fake, newIamUser('x', '111122223333'));
    expect(await unknown.json()).toMatchObject({ __type: 'UnrecognizedClientException' });
    const anon = await fetch(fake.endpoints!.ecr, {
      method: 'POST',
      body: '{}',
      headers: { 'x-amz-target': ECR_TARGET },
    });
    expect(await anon.json()).toMatchObject({ __type: 'MissingAuthenticationTokenException' });
    expect(fake.requests({ service: 'ecr' }).map((r) => r.signature)).toEqual(['invalid', 'unknown-key', 'absent']);
  });

  test('the catch-all endpoint refuses and records any other service', async () => {
    const { fake } = await startFake();
    const res = await fetch(fake.endpoints!.other, {
      method: 'POST',
      body: '{}',
      headers: { 'x-amz-target': 'SpencerFrontendService.GetAuthorizationToken' },
    });
    expect(res.status).toBe(403);
    expect(fake.requests({ service: 'other' })).toHaveLength(1);
  });
});

describe('fake STS: AssumeRoleWithWebIdentity', () => {
  test('a token from the trusted issuer, for an accepted audience and a trusted subject, gets session credentials that sign ECR calls', async () => {
    const { fake, mint } = await startFake();
    const r = await assume(
      fake,
      await mint({ 'kubernetes.io': { pod: { name: 'p' }, serviceaccount: { name: 'puller' } } }),
    );
    expect(r.status).toBe(200);
    const key = { accessKeyId: tag(r.text, 'AccessKeyId')!, secretAccessKey: tag(r.text, 'SecretAccessKey')! };
    expect(key.accessKeyId).toMatch(/^ASIA/);
    const ecr = await ecrCall(fake, key, 'us-east-1', tag(r.text, 'SessionToken'));
    expect(ecr.status).toBe(200);
    expect(fake.requests({ service: 'ecr' })[0]).toMatchObject({
      principal: 'arn:aws:sts::111122223333:assumed-role/credprov-ecr-pull/ecr-credential-provider',
      signature: 'valid',
    });
    expect(fake.requests({ service: 'sts' })[0]!.sts).toMatchObject({
      roleArn: ROLE,
      tokenClaims: {
        sub: 'system:serviceaccount:default:puller',
        aud: ['sts.amazonaws.com'],
        pod: 'p',
        serviceAccount: 'puller',
      },
    });
    // Session credentials without their session token do not count.
    expect((await ecrCall(fake, key, 'us-east-1')).status).toBe(400);
  });

  test.each([
    [
      'a token for another audience',
      { aud: ['credprov-wrong'] },
      {},
      'InvalidIdentityToken',
      /Incorrect token audience/,
    ],
    ['an expired token', {}, { expSecondsFromNow: -60 }, 'ExpiredTokenException', /expired/],
    [
      'a token from another issuer',
      {},
      { iss: 'https://elsewhere.example' },
      'InvalidIdentityToken',
      /No OpenIDConnect provider/,
    ],
    [
      'a subject the role does not trust',
      { sub: 'system:serviceaccount:default:other' },
      {},
      'AccessDenied',
      /Not authorized/,
    ],
  ])('%s is refused', async (_what, claims, opts, code, message) => {
    const { fake, mint } = await startFake();
    const r = await assume(fake, await mint(claims, opts));
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(tag(r.text, 'Code')).toBe(code);
    expect(tag(r.text, 'Message')).toMatch(message);
    expect(fake.requests({ service: 'sts' })[0]).toMatchObject({ status: r.status, error: { code } });
  });

  test('a token signed by a key the issuer does not publish is refused', async () => {
    const { fake, mint } = await startFake();
    const { privateKey } = await generateKeyPair('RS256');
    const r = await assume(fake, await mint({}, { key: privateKey }));
    expect(tag(r.text, 'Code')).toBe('InvalidIdentityToken');
  });

  test('an unknown role is refused; without a trusted issuer every token is', async () => {
    const { fake, mint } = await startFake();
    expect(tag((await assume(fake, await mint({}), 'arn:aws:iam::111122223333:role/nope')).text, 'Code')).toBe(
      'AccessDenied',
    );
    const bare = new FakeAws({
      ecr: { password: () => 'x', lifetimeMs: () => 1000 },
      sts: { audiences: ['sts.amazonaws.com'], roles: [] },
    });
    fakes.push(bare);
    await bare.start();
    expect(tag((await assume(bare, await mint({}))).text, 'Code')).toBe('InvalidIdentityToken');
  });
});

// The real, unmodified plugin against the fakes: only when its build is cached (the vendor-ecr suite builds it).
const plugin = await ensureVendorPlugin(ECR_RECIPE, { version: ECR_PLUGIN_VERSION, cachedOnly: true }).catch(
  () => undefined,
);
const withPlugin = testIf(
  plugin
    ? { ok: true }
    : {
        ok: false,
        reason: `ecr-credential-provider ${ECR_PLUGIN_VERSION} is not built (credprov run --suite vendor-ecr builds it)`,
      },
);

describe('ecr-credential-provider against the fakes', () => {
  const run = (fake: FakeAws, env: Array<{ name: string; value: string }>, request: Record<string, unknown>) =>
    execa(plugin!.path, [], {
      input: JSON.stringify({
        apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
        kind: 'CredentialProviderRequest',
        ...request,
      }),
      env: Object.fromEntries(env.map((e) => [e.name, e.value])),
      extendEnv: false,
      reject: false,
      timeout: 30_000,
    });

  withPlugin(
    "static keys: signs GetAuthorizationToken in the image's region and answers Registry with half the token lifetime",
    async () => {
      const { fake, user } = await startFake({ lifetimeMs: 40_000 });
      const r = await run(fake, ecrPluginEnv(fake.endpoints!, { staticKeys: user }), {
        image: '111122223333.dkr.ecr.ap-south-1.amazonaws.com/team/app',
      });
      expect(r.exitCode).toBe(0);
      const answer = JSON.parse(String(r.stdout));
      expect(answer).toMatchObject({
        cacheKeyType: 'Registry',
        auth: { '111122223333.dkr.ecr.ap-south-1.amazonaws.com': { username: 'AWS', password: 'registry-password' } },
      });
      expect(['19s', '20s']).toContain(answer.cacheDuration);
      expect(fake.requests()).toEqual([
        expect.objectContaining({
          service: 'ecr',
          region: 'ap-south-1',
          signature: 'valid',
          principal: 'arn:aws:iam::111122223333:user/node',
        }),
      ]);
    },
    60_000,
  );

  withPlugin(
    'service-account token + role annotation: AssumeRoleWithWebIdentity, then ECR signed by the assumed role',
    async () => {
      const { fake, mint } = await startFake();
      const r = await run(fake, ecrPluginEnv(fake.endpoints!), {
        image: '111122223333.dkr.ecr.eu-west-1.amazonaws.com/team/app',
        serviceAccountToken: await mint({}),
        serviceAccountAnnotations: { 'eks.amazonaws.com/ecr-role-arn': ROLE },
      });
      expect(r.exitCode).toBe(0);
      expect(fake.requests().map((x) => `${x.service} ${x.status} ${x.principal ?? x.sts?.roleArn ?? ''}`)).toEqual([
        `sts 200 ${ROLE}`,
        'ecr 200 arn:aws:sts::111122223333:assumed-role/credprov-ecr-pull/ecr-credential-provider',
      ]);
    },
    60_000,
  );

  withPlugin(
    'a token for the wrong audience: STS refuses and the plugin exits 1 saying so',
    async () => {
      const { fake, mint } = await startFake();
      const r = await run(fake, ecrPluginEnv(fake.endpoints!), {
        image: '111122223333.dkr.ecr.eu-west-1.amazonaws.com/team/app',
        serviceAccountToken: await mint({ aud: ['credprov-wrong'] }),
        serviceAccountAnnotations: { 'eks.amazonaws.com/ecr-role-arn': ROLE },
      });
      expect(r.exitCode).toBe(1);
      expect(String(r.stderr)).toMatch(/InvalidIdentityToken/);
      expect(fake.requests({ service: 'ecr' })).toEqual([]);
    },
    60_000,
  );
});
