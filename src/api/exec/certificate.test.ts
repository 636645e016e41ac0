import { describe, expect, test } from '@jest/globals';
import { issueClientCertificate } from '../../core/client-cert.ts';
import { inspectClientCertificate } from './certificate.ts';

describe('inspectClientCertificate', () => {
  test('accepts a certificate with its own key, valid now', () => {
    const c = issueClientCertificate({ commonName: 'alice' });
    expect(inspectClientCertificate(c.certPem, c.keyPem)).toMatchObject({
      ok: true,
      subject: expect.stringContaining('CN=alice'),
    });
  });

  test('refuses a key that belongs to another certificate', () => {
    const a = issueClientCertificate();
    const b = issueClientCertificate();
    expect(inspectClientCertificate(a.certPem, b.keyPem)).toMatchObject({
      ok: false,
      message: expect.stringContaining('private key does not match public key'),
    });
  });

  test('refuses an expired certificate and one not yet valid, judged at the given time', () => {
    const c = issueClientCertificate({
      notBefore: new Date('2030-01-01T00:00:00Z'),
      notAfter: new Date('2030-01-02T00:00:00Z'),
    });
    expect(inspectClientCertificate(c.certPem, c.keyPem, new Date('2030-01-03T00:00:00Z')).message).toMatch(
      /^client certificate expired at 2030-01-02T00:00:00.000Z/,
    );
    expect(inspectClientCertificate(c.certPem, c.keyPem, new Date('2029-12-31T00:00:00Z')).message).toMatch(
      /^client certificate is not valid yet/,
    );
  });

  test('refuses data that is not PEM', () => {
    const c = issueClientCertificate();
    expect(inspectClientCertificate('not a cert', c.keyPem).message).toContain('no PEM CERTIFICATE block');
    expect(inspectClientCertificate(c.certPem, 'not a key').message).toContain('no PEM PRIVATE KEY block');
  });
});
