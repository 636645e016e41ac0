// From a plugin's answer to each client's predicted verdict (decoding.ts), without running anything.
import { describe, expect, test } from '@jest/globals';
import { issueClientCertificate } from '../core/client-cert.ts';
import { answerTraits, predictClient } from './decoding.ts';

const V1 = 'client.authentication.k8s.io/v1';
const later = new Date(Date.now() + 3_600_000).toISOString();
const run = (
  stdout: string,
  more: Partial<{ exitCode: number; timedOut: boolean; strays: Array<{ holds: string[] }> }> = {},
) => ({ exitCode: 0, timedOut: false, stdout, ...more });
const answer = (o: Record<string, unknown>) => run(JSON.stringify(o));

describe('answerTraits', () => {
  test('a good answer has none that troubles a client', () => {
    expect(
      answerTraits(
        answer({ apiVersion: V1, kind: 'ExecCredential', status: { token: 't', expirationTimestamp: later } }),
        V1,
      ),
    ).toEqual([]);
  });

  test('each defect is named', () => {
    expect(answerTraits(answer({ apiVersion: V1, status: { token: 't' } }), V1)).toEqual(['kind-missing']);
    expect(answerTraits(answer({ kind: 'ExecCredential', status: { token: 't' } }), V1)).toEqual([
      'apiVersion-missing',
    ]);
    expect(
      answerTraits(
        answer({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: 't' } }),
        V1,
      ),
    ).toEqual(['apiVersion-other']);
    expect(answerTraits(answer({ apiVersion: V1, kind: 'ExecCredential' }), V1)).toEqual(['status-missing']);
    expect(answerTraits(answer({ apiVersion: V1, kind: 'ExecCredential', status: {} }), V1)).toEqual(['no-credential']);
    expect(answerTraits(run(`apiVersion: ${V1}\nkind: ExecCredential\nstatus:\n  token: t\n`), V1)).toEqual(['yaml']);
    expect(answerTraits(run(`banner\n${JSON.stringify({ apiVersion: V1 })}`), V1)).toEqual(['not-json']);
    expect(answerTraits(run('', { exitCode: 1 }), V1)).toEqual(['exit-nonzero']);
    expect(answerTraits(run('', { timedOut: true }), V1)).toEqual(['no-answer']);
    expect(answerTraits(run('{}', { strays: [{ holds: ['stdout'] }] }), V1)).toEqual(['no-answer']);
  });

  test('certificates: alone, with a token, without their key, with another key', () => {
    const a = issueClientCertificate();
    const b = issueClientCertificate();
    const base = { apiVersion: V1, kind: 'ExecCredential' };
    expect(
      answerTraits(answer({ ...base, status: { clientCertificateData: a.certPem, clientKeyData: a.keyPem } }), V1),
    ).toEqual(['cert-only']);
    expect(
      answerTraits(
        answer({ ...base, status: { token: 't', clientCertificateData: a.certPem, clientKeyData: a.keyPem } }),
        V1,
      ),
    ).toEqual(['token-and-cert']);
    expect(answerTraits(answer({ ...base, status: { clientCertificateData: a.certPem } }), V1)).toEqual([
      'cert-without-key',
    ]);
    expect(
      answerTraits(answer({ ...base, status: { clientCertificateData: a.certPem, clientKeyData: b.keyPem } }), V1),
    ).toEqual(['cert-key-mismatch', 'cert-only']);
  });
});

describe('predictClient', () => {
  test('an answer without kind: only the Python client objects, and the reason names the row', () => {
    expect(predictClient('client-go', ['kind-missing']).verdict).toBe('accepts');
    expect(predictClient('client-node', ['kind-missing']).verdict).toBe('accepts');
    const p = predictClient('python', ['kind-missing']);
    expect([p.verdict, p.row?.trait]).toEqual(['sends-no-credential', 'kind-missing']);
    expect(p.because).toContain("missing key 'kind'");
  });

  test("the first trait in the client's own check order decides", () => {
    // The Python client looks at apiVersion before kind; client-go never minds a missing kind.
    expect(predictClient('python', ['apiVersion-missing', 'kind-missing']).row?.trait).toBe('apiVersion-missing');
    expect(predictClient('kubectl', ['apiVersion-missing', 'kind-missing']).row?.trait).toBe('apiVersion-missing');
    expect(predictClient('client-node', ['apiVersion-missing', 'kind-missing']).verdict).toBe('accepts');
  });

  test('an accepted answer says what the client notes about it', () => {
    expect(predictClient('python', ['token-and-cert']).because).toContain('sends the token only');
  });
});

describe('answerTraits: the token and the bytes around the answer', () => {
  const base = { apiVersion: V1, kind: 'ExecCredential' };
  const cert = issueClientCertificate();
  const traitsOf = (status: Record<string, unknown>, prefix = '') =>
    answerTraits(run(prefix + JSON.stringify({ ...base, status })), V1);

  test('a byte-order mark is named, and the answer behind it still read', () => {
    expect(traitsOf({ token: 't' }, '\uFEFF')).toEqual(['bom']);
  });

  test('a token of another type: a number or true is a token to some clients; null, false and 0 to Python only', () => {
    expect(traitsOf({ token: 12345 })).toEqual(['token-not-string']);
    expect(traitsOf({ token: true })).toEqual(['token-not-string']);
    for (const token of [null, false, 0]) expect(traitsOf({ token })).toEqual(['token-falsy']);
    expect(traitsOf({ token: '', clientCertificateData: cert.certPem, clientKeyData: cert.keyPem })).toEqual([
      'cert-only',
      'token-empty-with-cert',
    ]);
  });

  test("a token's characters, by the row their clients' outcomes make", () => {
    expect(traitsOf({ token: 'tok\n' })).toEqual(['token-ends-in-line-break']);
    expect(traitsOf({ token: 'to\nk' })).toEqual(['token-line-break']);
    expect(traitsOf({ token: 'to\u0001k' })).toEqual(['token-control-char']);
    expect(traitsOf({ token: 'tok\u20ac' })).toEqual(['token-not-latin1']);
    expect(traitsOf({ token: 'tok\u00e9' })).toEqual(['token-non-ascii']);
    expect(traitsOf({ token: ' tok' })).toEqual(['token-leading-space']);
  });

  test('a token over 16 KiB is fine; over 1 MiB, kube-apiserver refuses the request', () => {
    expect(traitsOf({ token: 'x'.repeat(64 * 1024) })).toEqual(['token-over-16kib']);
    expect(traitsOf({ token: 'x'.repeat((1 << 20) + 1) })).toEqual(['token-over-1mib']);
    expect(predictClient('client-go', ['token-over-16kib']).verdict).toBe('accepts');
  });

  test('predictions follow each client: a trailing newline troubles Go and Python, not client-node', () => {
    const traits = traitsOf({ token: 'tok\n' });
    expect(predictClient('kubectl', traits).verdict).toBe('refuses');
    expect(predictClient('client-node', traits).verdict).toBe('accepts');
    expect(predictClient('python', traits).row?.trait).toBe('token-ends-in-line-break');
  });
});
