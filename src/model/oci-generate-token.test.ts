// The OKE token model against a real `oci ce cluster generate-token` answer
// (testdata/oci-generate-token.json): the model must read and verify what the
// real plugin signed, and refuse each way a token can be wrong.
import { describe, expect, test } from '@jest/globals';
import { generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  clusterRequestUrl,
  OCI_EXEC_API_VERSION,
  parseOciToken,
  signingString,
  validateOciToken,
} from './oci-generate-token.ts';

const real = JSON.parse(readFileSync(join(import.meta.dirname, 'testdata', 'oci-generate-token.json'), 'utf8')) as {
  region: string;
  clusterId: string;
  keyId: string;
  publicKeyPem: string;
  stdout: string;
};
const answer = JSON.parse(real.stdout) as {
  apiVersion: string;
  status: { token: string; expirationTimestamp: string };
};
const token = answer.status.token;
const parts = parseOciToken(token);
if ('malformed' in parts) throw new Error(parts.malformed);
const signedAt = Date.parse(parts.date);
const keys = new Map([[real.keyId, real.publicKeyPem]]);
const base = { clusterId: real.clusterId, region: real.region, now: signedAt + 60_000, keys };

describe('the real answer', () => {
  test('is v1beta1 JSON padded with whitespace, expiring 4 minutes after it was signed', () => {
    expect(answer.apiVersion).toBe(OCI_EXEC_API_VERSION);
    expect(real.stdout).toMatch(/^\n\{/);
    expect(real.stdout).toMatch(/\}\n {4}\n$/);
    expect(answer.status.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const claimed = Date.parse(answer.status.expirationTimestamp) - signedAt;
    expect(claimed).toBeGreaterThanOrEqual(4 * 60_000);
    expect(claimed).toBeLessThan(4 * 60_000 + 1000);
  });

  test('names the cluster request URL and signs date, (request-target) and host with the API key', () => {
    expect(parts.url).toBe(clusterRequestUrl(real.region, real.clusterId));
    expect(parts.authorization).toMatchObject({
      version: '1',
      algorithm: 'rsa-sha256',
      keyId: real.keyId,
      headers: ['date', '(request-target)', 'host'],
    });
    expect(validateOciToken(token, base)).toEqual({
      ok: true,
      keyId: real.keyId,
      user: 'ocid1.user.oc1..aaaaaaaatestuser',
    });
  });

  test.each([
    ['another cluster', { clusterId: 'ocid1.cluster.oc1.iad.other' }, /not this cluster/],
    ['another region', { region: 'eu-frankfurt-1' }, /is not containerengine\.eu-frankfurt-1/],
    ['an unknown key', { keys: new Map() }, /unknown keyId/],
    ['6 minutes later', { now: signedAt + 6 * 60_000 }, /more than 5 minutes/],
    ['6 minutes earlier', { now: signedAt - 6 * 60_000 }, /more than 5 minutes/],
  ])('is refused for %s', (_, change, reason) => {
    const v = validateOciToken(token, { ...base, ...change });
    expect(v.ok).toBe(false);
    expect(!v.ok && v.reason).toMatch(reason);
  });

  test('is refused with another key of the same keyId, or a changed date', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });
    expect(validateOciToken(token, { ...base, keys: new Map([[real.keyId, String(other)]]) })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/does not verify/),
    });
    const url = new URL(Buffer.from(token, 'base64url').toString());
    url.searchParams.set('date', new Date(signedAt + 1000).toUTCString());
    const moved = Buffer.from(url.toString()).toString('base64url');
    expect(validateOciToken(moved, base)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/does not verify/),
    });
  });
});

test('a token signed the same way by credprov verifies (the signing string is the one OCI signs)', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyId = 'ocid1.tenancy.oc1..t/ocid1.user.oc1..u/aa:bb';
  const date = new Date(signedAt).toUTCString();
  const host = 'containerengine.us-ashburn-1.oraclecloud.com';
  const path = `/cluster_request/${real.clusterId}`;
  const headers = ['date', '(request-target)', 'host'];
  const signature = sign('sha256', Buffer.from(signingString(headers, { path, host, date })), privateKey).toString(
    'base64',
  );
  const url = new URL(`https://${host}${path}`);
  url.searchParams.set(
    'authorization',
    `Signature algorithm="rsa-sha256",headers="${headers.join(' ')}",keyId="${keyId}",signature="${signature}",version="1"`,
  );
  url.searchParams.set('date', date);
  const t = Buffer.from(url.toString()).toString('base64url');
  const pem = String(publicKey.export({ type: 'spki', format: 'pem' }));
  expect(validateOciToken(t, { ...base, keys: new Map([[keyId, pem]]) })).toMatchObject({ ok: true });
  expect(parseOciToken('not a token')).toEqual({ malformed: expect.any(String) });
});
