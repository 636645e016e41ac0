// The suite's plan against the authenticator + STS model, without a cluster:
// the verdict each token case predicts, each a rule a reader can find in the
// authenticator's Verify, STS's checks or the mapping.
import { describe, expect, test } from '@jest/globals';
import type { AuthenticatorSetup } from '../../src/model/aws-iam-authenticator.ts';
import { presignGet } from '../../src/api/aws/sigv4.ts';
import { observedVerdict, type Attempt } from './observe.ts';
import { CRAFTED_CASES, STS_SKEW_MS, TOKEN_COMMAND_PLANS, USERS, type TokenCasePlan } from './plan.ts';
import {
  agreeVerdict,
  craftedTokens,
  expectedToken,
  expiryAgrees,
  predictExecV1,
  predictExpiry,
  predictNoCredentials,
  predictTokenBytes,
  predictVerdict,
  predictWhoami,
  type Presigner,
} from './predict.ts';
import { type AwsKeys, type IamProfile, type RecordedExecRun } from '../../src/run/kit.ts';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const ARN = {
  mapped: 'arn:aws:iam::111122223333:user/credprov-dev',
  unmapped: 'arn:aws:iam::111122223333:user/credprov-stranger',
};
const keys: Record<Exclude<IamProfile, 'no-credentials'>, AwsKeys> = {
  mapped: { accessKeyId: 'AKIAMAPPED', secretAccessKey: 'mapped-secret' },
  unmapped: { accessKeyId: 'AKIAUNMAPPED', secretAccessKey: 'unmapped-secret' },
  'unknown-key': { accessKeyId: 'AKIANEVERISSUED', secretAccessKey: 'whatever' },
  'wrong-secret': { accessKeyId: 'AKIAMAPPED', secretAccessKey: 'not-the-secret' },
};
const setup: AuthenticatorSetup = {
  clusterId: 'credprov-test',
  identities: [
    { ...keys.mapped, arn: ARN.mapped },
    { ...keys.unmapped, arn: ARN.unmapped },
  ],
  mappings: [{ arn: ARN.mapped, username: 'credprov-dev', groups: ['credprov:iam-viewers'] }],
};
/** Presigns as the lab does (GetCallerIdentity on the us-west-2 STS host, X-Amz-Expires 60). */
const presigner: Presigner = {
  clusterId: setup.clusterId,
  keysOf: (profile) => (profile === 'no-credentials' ? undefined : keys[profile]),
  presignToken: ({ user, signedAtMs, clusterId = setup.clusterId }) =>
    `k8s-aws-v1.${Buffer.from(
      presignGet({
        url: 'https://sts.us-west-2.amazonaws.com/',
        params: [
          ['Action', 'GetCallerIdentity'],
          ['Version', '2011-06-15'],
        ],
        headers: clusterId === null ? {} : { 'x-k8s-aws-id': clusterId },
        region: 'us-west-2',
        service: 'sts',
        credentials: user,
        signedAtMs,
        expiresSeconds: 60,
      }),
    ).toString('base64url')}`,
};
const crafted = craftedTokens(presigner, keys.mapped, NOW - 5_000);

const GO = TOKEN_COMMAND_PLANS['aws-iam-authenticator'];
const AWSCLI = TOKEN_COMMAND_PLANS['aws-eks-get-token'];
const casesOf = (c: typeof GO): Record<string, TokenCasePlan> => ({ ...c.tokenCases, ...CRAFTED_CASES });

describe.each([
  ['aws-iam-authenticator', GO],
  ['aws eks get-token', AWSCLI],
])('token cases, tokens made by %s', (_, command) => {
  const verdictOf = (name: string) => {
    const plan = casesOf(command)[name]!;
    return predictVerdict(expectedToken(presigner, USERS[plan.user], NOW, crafted), setup, NOW, plan.stsSkewMs).value;
  };
  const mappedUser = {
    status: 200,
    username: 'credprov-dev',
    groups: ['credprov:iam-viewers', 'system:authenticated'],
  };

  test.each([
    ['mapped', mappedUser],
    ['craftedControl', mappedUser],
    ['unknownKey', { status: 401, refusedBy: 'sts', reason: 'InvalidClientTokenId' }],
    ['wrongSecret', { status: 401, refusedBy: 'sts', reason: 'SignatureDoesNotMatch' }],
    ['otherCluster', { status: 401, refusedBy: 'sts', reason: 'SignatureDoesNotMatch' }],
    ['unmapped', { status: 401, refusedBy: 'mapping', reason: 'identity is not mapped' }],
    [
      'unsignedId',
      {
        status: 401,
        refusedBy: 'authenticator',
        reason: 'client did not sign the x-k8s-aws-id header in the pre-signed URL',
      },
    ],
    ['expired', { status: 401, refusedBy: 'authenticator', reason: 'X-Amz-Date parameter is expired' }],
    ['stsWindow', { status: 401, refusedBy: 'sts', reason: 'Signature expired' }],
  ])('%s: %j', (name, verdict) => {
    expect(verdictOf(name)).toEqual(verdict);
  });

  test('the crafted tokens differ from the control only in what their case changes', () => {
    expect(STS_SKEW_MS).toBeGreaterThan(15 * 60_000);
    expect(predictVerdict(crafted.expired, setup, NOW - 5_000 - STS_SKEW_MS).value).toEqual(mappedUser);
    expect(predictVerdict(crafted.unsignedId, setup, NOW).value.status).toBe(401);
  });

  test('a 401 agrees on who refused and a fragment of why; a 200 on the user and groups in any order', () => {
    expect(
      agreeVerdict(
        { status: 401, refusedBy: 'sts', reason: 'Signature expired' },
        { status: 401, refusedBy: 'sts', reason: 'STS: Signature expired (403)' },
      ),
    ).toBe(true);
    expect(
      agreeVerdict(
        { status: 401, refusedBy: 'sts', reason: 'x' },
        { status: 401, refusedBy: 'authenticator', reason: 'x' },
      ),
    ).toBe(false);
    expect(
      agreeVerdict(
        { status: 200, username: 'a', groups: ['g', 'h'] },
        { status: 200, username: 'a', groups: ['h', 'g'] },
      ),
    ).toBe(true);
    expect(
      agreeVerdict({ status: 200, username: 'a', groups: [] }, { status: 401, refusedBy: 'sts', reason: '' }),
    ).toBe(false);
  });
});

describe('client cases', () => {
  test.each([GO, AWSCLI])(
    "$via whoami: the mapping's user with system:authenticated; v1: answered in v1 with 200",
    (c) => {
      const token = expectedToken(presigner, USERS[c.users.mapped], NOW, crafted);
      expect(predictWhoami(token, setup, NOW).value).toEqual({
        username: 'credprov-dev',
        groups: ['credprov:iam-viewers', 'system:authenticated'],
      });
      const v1 = 'client.authentication.k8s.io/v1';
      const v1Token = expectedToken(presigner, USERS[c.users.mappedV1], NOW, crafted);
      expect(predictExecV1(c.via, v1, v1Token, setup, NOW).value).toEqual({ answered: v1, status: 200 });
    },
  );

  test('expiry: 14 minutes after signing, or one second more, for both commands', () => {
    expect(predictExpiry('aws-iam-authenticator').value).toBe(840);
    expect(predictExpiry('aws-eks-get-token').value).toBe(840);
    expect([839, 840, 841, 842].map((s) => expiryAgrees(840, s))).toEqual([false, true, true, false]);
  });

  test('no credentials: the Go plugin forces IMDS on and exits 1; awscli honours AWS_EC2_METADATA_DISABLED and exits 255', () => {
    expect(predictNoCredentials('aws-iam-authenticator', 'http://127.0.0.1:1').value).toEqual({
      pluginExitCode: 1,
      stderrSays: 'could not get token',
      apiServerReached: false,
      imdsAskedOnLoopback: true,
    });
    expect(predictNoCredentials('aws-eks-get-token', 'http://127.0.0.1:1').value).toEqual({
      pluginExitCode: 255,
      stderrSays: 'Unable to locate credentials',
      apiServerReached: false,
      imdsAskedOnLoopback: false,
    });
  });

  test('token bytes: the presigned URL at the given second, in canonical query order, fingerprinted', () => {
    const p = predictTokenBytes(presigner, USERS.mapped, NOW).value;
    expect(p).toMatchObject({
      url: 'https://sts.us-west-2.amazonaws.com/',
      amzDate: '20261125T120000Z',
      expiresSeconds: 60,
      signedHeaders: ['host', 'x-k8s-aws-id'],
      queryOrder: [
        'Action',
        'Version',
        'X-Amz-Algorithm',
        'X-Amz-Credential',
        'X-Amz-Date',
        'X-Amz-Expires',
        'X-Amz-SignedHeaders',
        'X-Amz-Signature',
      ],
    });
    expect(p.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    // One second later is another token; the same second is the same one.
    expect(predictTokenBytes(presigner, USERS.mapped, NOW + 1000).value.fingerprint).not.toBe(p.fingerprint);
    expect(predictTokenBytes(presigner, USERS['awscli-mapped'], NOW).value).toEqual(p);
  });
});

describe('observations', () => {
  const attempt = (o: Partial<Attempt>): Attempt => ({
    exitCode: 1,
    stdout: '',
    runs: [] as RecordedExecRun[],
    sts: [],
    serverLines: [],
    ...o,
  });

  test("a 401 is the authenticator's when STS was not asked, STS's when it refused, the mapping's when it answered 200", () => {
    const line =
      'time="…" level=warning msg="access denied" client="127.0.0.1" error="sts getCallerIdentity failed: \\"Signature expired\\""';
    expect(observedVerdict(attempt({ status: 401, serverLines: [line] }))).toEqual({
      status: 401,
      refusedBy: 'authenticator',
      reason: 'sts getCallerIdentity failed: "Signature expired"',
    });
    const sts = (status: number) => [{ operation: 'GetCallerIdentity', status }] as Attempt['sts'];
    expect(observedVerdict(attempt({ status: 401, sts: sts(403) }))).toMatchObject({ refusedBy: 'sts' });
    expect(observedVerdict(attempt({ status: 401, sts: sts(200) }))).toMatchObject({ refusedBy: 'mapping' });
    expect(() => observedVerdict(attempt({ status: 403 }))).toThrow(/neither 200 nor 401/);
  });
});
