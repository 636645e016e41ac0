// The authenticator + STS model: each rule the authenticator applies (in its
// order), then STS's, then the mapping. The live suite checks the same cases
// against the real server; these pin the model's own reading.
import { describe, expect, test } from '@jest/globals';
import { presignGet } from '../api/aws/sigv4.ts';
import {
  canonicalArn,
  describeToken,
  predictTokenReview,
  TOKEN_PREFIX,
  type AuthenticatorSetup,
} from './aws-iam-authenticator.ts';

const NOW = Date.parse('2026-11-24T12:00:00Z');
const dev = { accessKeyId: 'AKIADEV', secretAccessKey: 'dev-secret', arn: 'arn:aws:iam::111122223333:user/Dev' };
const stranger = {
  accessKeyId: 'AKIASTRANGER',
  secretAccessKey: 'stranger-secret',
  arn: 'arn:aws:iam::111122223333:user/stranger',
};
const setup: AuthenticatorSetup = {
  clusterId: 'c1',
  identities: [dev, stranger],
  mappings: [{ arn: 'arn:aws:iam::111122223333:user/dev', username: 'dev', groups: ['viewers'] }],
};

function token(
  o: {
    keys?: { accessKeyId: string; secretAccessKey: string };
    clusterId?: string | null;
    signedAtMs?: number;
    host?: string;
    region?: string;
    params?: Array<[string, string]>;
    scheme?: string;
  } = {},
): string {
  const url = presignGet({
    url: `${o.scheme ?? 'https'}://${o.host ?? 'sts.us-west-2.amazonaws.com'}/`,
    params: o.params ?? [
      ['Action', 'GetCallerIdentity'],
      ['Version', '2011-06-15'],
    ],
    headers: o.clusterId === null ? {} : { 'x-k8s-aws-id': o.clusterId ?? 'c1' },
    region: o.region ?? 'us-west-2',
    service: 'sts',
    credentials: o.keys ?? dev,
    signedAtMs: o.signedAtMs ?? NOW,
    expiresSeconds: 60,
  });
  return TOKEN_PREFIX + Buffer.from(url).toString('base64url');
}

describe('predictTokenReview', () => {
  test("a token of a mapped user: 200 as the mapping's user (ARNs compared lower-cased), plus system:authenticated", () => {
    expect(predictTokenReview(token(), setup, NOW).verdict).toEqual({
      status: 200,
      username: 'dev',
      groups: ['viewers', 'system:authenticated'],
    });
  });

  test.each([
    ['no prefix', 'authenticator', 'prefix', () => 'abc'],
    ['http, not https', 'authenticator', 'unexpected scheme', () => token({ scheme: 'http' })],
    [
      'a host outside the aws partition',
      'authenticator',
      'unexpected hostname',
      () => token({ host: 'sts.us-west-2.example.com' }),
    ],
    [
      'a host with a port',
      'authenticator',
      'unexpected hostname',
      () => token({ host: 'sts.us-west-2.amazonaws.com:8443' }),
    ],
    [
      'another action',
      'authenticator',
      'unexpected action',
      () =>
        token({
          params: [
            ['Action', 'AssumeRole'],
            ['Version', '2011-06-15'],
          ],
        }),
    ],
    [
      'a parameter it does not allow',
      'authenticator',
      'non-whitelisted',
      () =>
        token({
          params: [
            ['Action', 'GetCallerIdentity'],
            ['Version', '2011-06-15'],
            ['Extra', '1'],
          ],
        }),
    ],
    [
      'x-k8s-aws-id not signed',
      'authenticator',
      'client did not sign the x-k8s-aws-id header',
      () => token({ clusterId: null }),
    ],
    [
      'signed 16 minutes ago',
      'authenticator',
      'X-Amz-Date parameter is expired',
      () => token({ signedAtMs: NOW - 16 * 60_000 }),
    ],
    [
      'a key STS never issued',
      'sts',
      'InvalidClientTokenId',
      () => token({ keys: { accessKeyId: 'AKIANOPE', secretAccessKey: 'x' } }),
    ],
    [
      'a known key, the wrong secret',
      'sts',
      'SignatureDoesNotMatch',
      () => token({ keys: { accessKeyId: 'AKIADEV', secretAccessKey: 'wrong' } }),
    ],
    ['signed for another cluster id', 'sts', 'SignatureDoesNotMatch', () => token({ clusterId: 'c2' })],
    ["signed for another region than the host's", 'sts', 'SignatureDoesNotMatch', () => token({ region: 'eu-west-1' })],
    ['a valid identity nobody mapped', 'mapping', 'identity is not mapped', () => token({ keys: stranger })],
  ])('%s: 401, refused by %s', (_what, refusedBy, reason, make) => {
    const v = predictTokenReview(make(), setup, NOW).verdict;
    expect(v).toMatchObject({ status: 401, refusedBy });
    expect(v.status === 401 && v.reason).toContain(reason);
  });

  test("the authenticator's clock decides first; STS's own clock can still refuse a fresh token", () => {
    expect(predictTokenReview(token(), setup, NOW + 14 * 60_000).verdict.status).toBe(200);
    expect(predictTokenReview(token(), setup, NOW, NOW + 16 * 60_000).verdict).toMatchObject({
      status: 401,
      refusedBy: 'sts',
      reason: 'Signature expired',
    });
  });

  test("an assumed role maps through its role's ARN", () => {
    const role = {
      accessKeyId: 'ASIAROLE',
      secretAccessKey: 's',
      arn: 'arn:aws:sts::111122223333:assumed-role/Admin/alice',
    };
    const withRole: AuthenticatorSetup = {
      ...setup,
      identities: [role],
      mappings: [{ arn: 'arn:aws:iam::111122223333:role/Admin', username: 'admin', groups: [] }],
    };
    expect(predictTokenReview(token({ keys: role }), withRole, NOW).verdict).toMatchObject({
      status: 200,
      username: 'admin',
    });
    expect(canonicalArn(role.arn)).toBe('arn:aws:iam::111122223333:role/Admin');
  });
});

test('describeToken shows what a token says, never its signature', () => {
  const d = describeToken(token());
  expect(d).toEqual({
    url: 'https://sts.us-west-2.amazonaws.com/',
    host: 'sts.us-west-2.amazonaws.com',
    action: 'GetCallerIdentity',
    accessKeyId: 'AKIADEV',
    region: 'us-west-2',
    amzDate: '20261124T120000Z',
    expiresSeconds: 60,
    signedHeaders: ['host', 'x-k8s-aws-id'],
    sessionToken: false,
  });
  expect(JSON.stringify(d)).not.toMatch(/[0-9a-f]{64}/);
  expect(describeToken('Bearer x')).toEqual({ malformed: 'no k8s-aws-v1. prefix' });
});
