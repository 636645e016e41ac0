// SigV4 query signing (presigned URLs) as aws-sdk-go-v2 does it: the vector is
// a token the real aws-iam-authenticator v0.7.18 printed for AKIAEXAMPLE /
// "secret", cluster id hiam-test, at 2026-11-24T21:27:09Z.
import { describe, expect, test } from '@jest/globals';
import {
  amzDateToMs,
  msToAmzDate,
  parsePresignedQuery,
  presignGet,
  presignedSignatureValid,
  queryPairs,
  type PresignedQuery,
} from './sigv4.ts';

const REAL =
  'https://sts.us-west-2.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20261124%2Fus-west-2%2Fsts%2Faws4_request&X-Amz-Date=20261124T212709Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host%3Bx-k8s-aws-id&X-Amz-Signature=ff1504fc11373b0b1c7677320f2d76729ada7eb42b9a27cba8b684476f89eacb';
const KEYS = { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret' };

function verify(url: string, headers: Record<string, string>, secretAccessKey = KEYS.secretAccessKey): boolean {
  const u = new URL(url);
  const query = queryPairs(u.search.slice(1));
  const presigned = parsePresignedQuery(query) as PresignedQuery;
  return presignedSignatureValid({
    method: 'GET',
    path: u.pathname,
    query,
    headers: { host: u.host, ...headers },
    presigned,
    secretAccessKey,
  });
}

describe('presigned SigV4 (query form)', () => {
  test("credprov's presigner makes the same URL, byte for byte, as aws-sdk-go-v2 did for the plugin", () => {
    const url = presignGet({
      url: 'https://sts.us-west-2.amazonaws.com/',
      params: [
        ['Action', 'GetCallerIdentity'],
        ['Version', '2011-06-15'],
      ],
      headers: { 'x-k8s-aws-id': 'hiam-test' },
      region: 'us-west-2',
      service: 'sts',
      credentials: KEYS,
      signedAtMs: Date.parse('2026-11-24T21:27:09Z'),
      expiresSeconds: 60,
    });
    expect(url).toBe(REAL);
  });

  test("the plugin's signature verifies with the key and the cluster id it signed, and with nothing else", () => {
    expect(verify(REAL, { 'x-k8s-aws-id': 'hiam-test' })).toBe(true);
    expect(verify(REAL, { 'x-k8s-aws-id': 'another-cluster' })).toBe(false);
    expect(verify(REAL, {})).toBe(false);
    expect(verify(REAL, { 'x-k8s-aws-id': 'hiam-test' }, 'not-the-secret')).toBe(false);
    // Any other parameter changed breaks it too.
    expect(verify(REAL.replace('X-Amz-Expires=60', 'X-Amz-Expires=900'), { 'x-k8s-aws-id': 'hiam-test' })).toBe(false);
  });

  test('the query parameters are read as AWS reads them, and what is missing is named', () => {
    const p = parsePresignedQuery(queryPairs(new URL(REAL).search.slice(1)));
    expect(p).toMatchObject({
      accessKeyId: 'AKIAEXAMPLE',
      scope: { date: '20261124', region: 'us-west-2', service: 'sts' },
      amzDate: '20261124T212709Z',
      expiresSeconds: 60,
      signedHeaders: ['host', 'x-k8s-aws-id'],
    });
    expect((p as PresignedQuery).signedAtMs).toBe(Date.parse('2026-11-24T21:27:09Z'));
    expect(parsePresignedQuery(queryPairs('Action=GetCallerIdentity'))).toEqual({ missing: 'X-Amz-Algorithm' });
    expect(parsePresignedQuery(queryPairs(new URL(REAL).search.slice(1).replace(/&X-Amz-Date=[^&]*/, '')))).toEqual({
      missing: 'X-Amz-Date (yyyymmddThhmmssZ)',
    });
    expect(
      parsePresignedQuery(queryPairs(new URL(REAL).search.slice(1).replace('X-Amz-Expires=60', 'X-Amz-Expires=0'))),
    ).toEqual({ missing: 'X-Amz-Expires (1 to 604800 seconds)' });
  });

  test('X-Amz-Date converts both ways', () => {
    expect(msToAmzDate(Date.parse('2026-11-24T21:27:09.456Z'))).toBe('20261124T212709Z');
    expect(amzDateToMs('20261124T212709Z')).toBe(Date.parse('2026-11-24T21:27:09Z'));
    expect(amzDateToMs('2026-11-24')).toBeUndefined();
  });
});
