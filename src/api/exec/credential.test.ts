import { describe, expect, test } from '@jest/globals';
import { issueClientCertificate } from '../../core/client-cert.ts';
import { decodeExecCredential, findEmbeddedJsonObject, isRfc3339 } from './credential.ts';

const V1 = 'client.authentication.k8s.io/v1';
const out = (o: unknown) => JSON.stringify(o);
const ok = {
  apiVersion: V1,
  kind: 'ExecCredential',
  status: { token: 'abc', expirationTimestamp: '2030-01-02T15:04:05Z' },
};

describe('decodeExecCredential', () => {
  test('accepts a token credential in the configured version', () => {
    const d = decodeExecCredential(out(ok), V1);
    expect(d).toMatchObject({
      ok: true,
      credential: { status: { token: 'abc', expirationTimestamp: '2030-01-02T15:04:05Z' } },
    });
  });

  test("refuses another version with client-go's message", () => {
    expect(decodeExecCredential(out({ ...ok, apiVersion: 'client.authentication.k8s.io/v1beta1' }), V1)).toMatchObject({
      ok: false,
      error:
        'exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned version client.authentication.k8s.io/v1beta1',
    });
  });

  // The expected messages below are kubectl's own (a 1.37 build and 1.32.4), trimmed of Go-only suffixes.
  test('refuses a banner before the JSON as client-go does: the whole output is one YAML string', () => {
    expect(decodeExecCredential(`Fetching token...\n${out(ok)}`, V1)).toMatchObject({
      ok: false,
      error:
        'decoding stdout: couldn\'t get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    });
  });

  test('refuses text after the JSON object', () => {
    expect(decodeExecCredential(`${out(ok)}\ndone.\n`, V1)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^decoding stdout: couldn't get version\/kind; json parse error: /),
    });
  });

  test("accepts a YAML ExecCredential, as client-go's universal decoder does", () => {
    expect(decodeExecCredential(`apiVersion: ${V1}\nkind: ExecCredential\nstatus:\n  token: abc\n`, V1)).toMatchObject({
      ok: true,
      credential: { status: { token: 'abc' } },
    });
  });

  test('accepts a missing kind (client-go assumes ExecCredential) but not a missing apiVersion', () => {
    expect(decodeExecCredential(out({ apiVersion: V1, status: { token: 'abc' } }), V1).ok).toBe(true);
    expect(decodeExecCredential(out({ kind: 'ExecCredential', status: { token: 'abc' } }), V1)).toMatchObject({
      error: `exec plugin is configured to use API version ${V1}, plugin returned version client.authentication.k8s.io/__internal`,
    });
    expect(decodeExecCredential('', V1)).toMatchObject({
      error: `exec plugin is configured to use API version ${V1}, plugin returned version client.authentication.k8s.io/__internal`,
    });
  });

  test("refuses an apiVersion outside the group and a numeric timestamp, in client-go's words", () => {
    expect(decodeExecCredential(out({ ...ok, apiVersion: 'v1' }), V1)).toMatchObject({
      error: 'decoding stdout: no kind "ExecCredential" is registered for version "v1" in scheme',
    });
    expect(
      decodeExecCredential(out({ ...ok, status: { token: 'a', expirationTimestamp: 1767225600 } }), V1),
    ).toMatchObject({
      error:
        'decoding stdout: json: cannot unmarshal number into Go struct field ExecCredentialStatus.status.expirationTimestamp of type string',
    });
  });

  test("refuses a missing status, missing credential, and a lone certificate, in client-go's words", () => {
    expect(decodeExecCredential(out({ apiVersion: V1, kind: 'ExecCredential' }), V1)).toMatchObject({
      error: "exec plugin didn't return a status field",
    });
    expect(decodeExecCredential(out({ apiVersion: V1, kind: 'ExecCredential', status: {} }), V1)).toMatchObject({
      error: "exec plugin didn't return a token or cert/key pair",
    });
    expect(
      decodeExecCredential(out({ apiVersion: V1, kind: 'ExecCredential', status: { clientCertificateData: 'x' } }), V1),
    ).toMatchObject({ error: 'exec plugin returned only certificate or key, not both' });
  });

  test('refuses a timestamp that is not RFC 3339 while decoding', () => {
    expect(
      decodeExecCredential(out({ ...ok, status: { token: 'a', expirationTimestamp: '2030-01-02 15:04:05' } }), V1),
    ).toMatchObject({
      ok: false,
      error: expect.stringContaining('decoding stdout: parsing time "2030-01-02 15:04:05"'),
    });
  });

  test("refuses a certificate with another certificate's key, as tls.X509KeyPair does", () => {
    const a = issueClientCertificate();
    const b = issueClientCertificate();
    expect(
      decodeExecCredential(
        out({
          apiVersion: V1,
          kind: 'ExecCredential',
          status: { clientCertificateData: a.certPem, clientKeyData: b.keyPem },
        }),
        V1,
      ),
    ).toMatchObject({
      ok: false,
      error: 'failed parsing client key/certificate: tls: private key does not match public key',
    });
  });

  test('accepts an expired certificate: client-go does not judge dates when decoding', () => {
    const c = issueClientCertificate({
      notBefore: new Date('2020-01-01T00:00:00Z'),
      notAfter: new Date('2020-01-02T00:00:00Z'),
    });
    expect(
      decodeExecCredential(
        out({
          apiVersion: V1,
          kind: 'ExecCredential',
          status: { clientCertificateData: c.certPem, clientKeyData: c.keyPem },
        }),
        V1,
      ).ok,
    ).toBe(true);
  });

  test('names the removed v1alpha1 as unregistered', () => {
    expect(decodeExecCredential(out({ ...ok, apiVersion: 'client.authentication.k8s.io/v1alpha1' }), V1)).toMatchObject(
      {
        error:
          'decoding stdout: no kind "ExecCredential" is registered for version "client.authentication.k8s.io/v1alpha1" in scheme',
      },
    );
  });
});

describe('isRfc3339', () => {
  test.each([
    '2030-01-02T15:04:05Z',
    '2030-01-02T15:04:05.123456789Z',
    '2030-01-02T15:04:05+02:00',
    '2028-02-29T00:00:00Z',
  ])('accepts %s', (s) => expect(isRfc3339(s)).toBe(true));
  test.each([
    '2030-01-02 15:04:05',
    '2030-01-02T15:04:05',
    '2030-01-02',
    '1767225600',
    '2030-02-30T00:00:00Z',
    '2030-01-02T25:00:00Z',
  ])('refuses %s', (s) => expect(isRfc3339(s)).toBe(false));
});

describe('findEmbeddedJsonObject', () => {
  test('finds the credential inside a banner and a trailing log line', () => {
    const found = findEmbeddedJsonObject(`Fetching token...\n${out(ok)}\ndone\n`);
    expect(found?.value).toEqual(ok);
    expect(found?.before).toBe('Fetching token...\n');
    expect(found?.after).toBe('\ndone\n');
  });
});
