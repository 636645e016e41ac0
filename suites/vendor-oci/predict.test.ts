// The vendor-oci predictions, pinned: the tenancy's key gets the key's user
// through every client, another key a token the API server refuses, a missing
// key file no credential at all, and a v1 user a v1beta1 answer its client
// refuses (the finding's problem); the claimed expiry of the real answer
// (src/model/testdata) reads as the model's.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseOciToken } from '../../src/model/oci-generate-token.ts';
import { CLIENT_STATUS, EXPIRY_SLACK_MS, generateTokenArgs, OKE_EXEC_API_VERSION, V1, WHOAMI_STATUS } from './plan.ts';
import {
  execInfoProblem,
  expiryAsModel,
  predictFresh,
  predictLogin,
  showLogin,
  tokensFollowSeconds,
} from './predict.ts';

const T = { user: 'ocid1.user.oc1..aaaaalice' };

describe('a login', () => {
  test("with the tenancy's key: Container Engine names the user, kubectl's whoami gets 201 as that user", () => {
    const p = predictLogin('registered', T, WHOAMI_STATUS, { withUsername: true });
    expect(p.value).toEqual({
      pluginExit: 0,
      apiVersion: OKE_EXEC_API_VERSION,
      containerEngine: ['200'],
      status: 201,
      username: T.user,
    });
    expect(showLogin(p.value)).toBe(
      `oci exit 0, answered ${OKE_EXEC_API_VERSION}; Container Engine 200; kube-apiserver 201 as ${T.user}`,
    );
  });

  test("a probe's GET: 200, no username read", () => {
    expect(predictLogin('registered', T, CLIENT_STATUS, { withUsername: false }).value).toEqual({
      pluginExit: 0,
      apiVersion: OKE_EXEC_API_VERSION,
      containerEngine: ['200'],
      status: 200,
    });
  });

  test('with a key the tenancy does not hold: a token all the same (signing is local), refused with 401', () => {
    expect(predictLogin('unregistered', T, WHOAMI_STATUS, { withUsername: true }).value).toEqual({
      pluginExit: 0,
      apiVersion: OKE_EXEC_API_VERSION,
      containerEngine: ['401'],
      status: 401,
    });
  });

  test('with no key file: the plugin fails, nothing is sent, Container Engine is not asked', () => {
    const v = predictLogin('missing', T, WHOAMI_STATUS, { withUsername: true }).value;
    expect(v).toEqual({ pluginExit: 'non-zero', apiVersion: '', containerEngine: [], status: 'no request' });
    expect(showLogin(v)).toBe('oci failed, no answer; Container Engine not asked; no request sent');
  });

  test("a v1 user: the plugin still answers v1beta1, the client refuses it, and that is the finding's problem", () => {
    const v = predictLogin('registered', T, WHOAMI_STATUS, { withUsername: true, asked: V1 }).value;
    expect(v).toEqual({ pluginExit: 0, apiVersion: OKE_EXEC_API_VERSION, containerEngine: [], status: 'no request' });
    expect(execInfoProblem(v)).toEqual([
      expect.stringContaining(`oci answers ${OKE_EXEC_API_VERSION} to a client asking ${V1}`),
    ]);
    expect(execInfoProblem({ ...v, apiVersion: V1 })).toEqual([]);
    expect(execInfoProblem({ ...v, apiVersion: '' })).toEqual([]);
  });
});

describe('freshness and expiry', () => {
  test('every call runs the plugin once; tokens are the same string exactly when signed in the same second', () => {
    expect(predictFresh(2).value).toEqual({ runsPerCall: [1, 1], tokenPerSigningSecond: true, expiryAsModel: true });
    const d1 = 'Sun, 29 Nov 2026 06:40:51 GMT';
    const d2 = 'Sun, 29 Nov 2026 06:40:52 GMT';
    expect(
      tokensFollowSeconds([
        { token: 'a', date: d1 },
        { token: 'a', date: d1 },
        { token: 'b', date: d2 },
      ]),
    ).toBe(true);
    expect(
      tokensFollowSeconds([
        { token: 'a', date: d1 },
        { token: 'b', date: d1 },
      ]),
    ).toBe(false);
    expect(
      tokensFollowSeconds([
        { token: 'a', date: d1 },
        { token: 'a', date: d2 },
      ]),
    ).toBe(false);
  });

  const real = JSON.parse(
    readFileSync(join(import.meta.dirname, '../../src/model/testdata/oci-generate-token.json'), 'utf8'),
  ) as { stdout: string; clusterId: string; region: string };
  const answer = JSON.parse(real.stdout) as { status: { token: string; expirationTimestamp: string } };
  const parts = parseOciToken(answer.status.token);
  if ('malformed' in parts) throw new Error(parts.malformed);
  const signed = Date.parse(parts.date);

  test("the real answer's expiry is its run's start + 4 min (the run started before it signed)", () => {
    expect(expiryAsModel(signed - 800, answer.status.expirationTimestamp, EXPIRY_SLACK_MS)).toBe(true);
    expect(expiryAsModel(signed - 2 * EXPIRY_SLACK_MS, answer.status.expirationTimestamp, EXPIRY_SLACK_MS)).toBe(false);
    expect(expiryAsModel(signed + 30_000, answer.status.expirationTimestamp, EXPIRY_SLACK_MS)).toBe(false);
    expect(expiryAsModel(signed, undefined, EXPIRY_SLACK_MS)).toBe(false);
  });

  test('the exec OKE writes names the cluster and region the token is for', () => {
    expect(generateTokenArgs(real.clusterId, real.region)).toEqual([
      'ce',
      'cluster',
      'generate-token',
      '--cluster-id',
      real.clusterId,
      '--region',
      real.region,
    ]);
    expect(parts.clusterId).toBe(real.clusterId);
    expect(parts.region).toBe(real.region);
  });
});
