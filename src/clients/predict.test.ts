// From a plugin's answer to each client's predicted verdict (decoding.ts), without running anything.
import { describe, expect, test } from '@jest/globals';
import { issueClientCertificate } from '../../fixtures/fake-exec-plugin/cert.ts';
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
