// Judges a plugin's client certificate and key the way a TLS client would
// need them: both PEM, the key belongs to the certificate (tls.X509KeyPair's
// check) and the certificate is valid now (KEP-541: "The certificate must be
// valid at the time of execution").
import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

export interface CertificateVerdict {
  ok: boolean;
  /** One line: what is wrong, or what was seen. */
  message: string;
  subject?: string;
  notBefore?: string;
  notAfter?: string;
}

export function inspectClientCertificate(certPem: string, keyPem: string, now: Date = new Date()): CertificateVerdict {
  const certBlocks = pemBlocks(certPem).filter((b) => b.type === 'CERTIFICATE');
  if (certBlocks.length === 0) {
    return {
      ok: false,
      message: 'failed parsing client key/certificate: clientCertificateData holds no PEM CERTIFICATE block',
    };
  }
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certBlocks[0]!.text);
  } catch (e) {
    return {
      ok: false,
      message: `failed parsing client key/certificate: the first CERTIFICATE block does not parse (${(e as Error).message})`,
    };
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(keyPem)) {
    return {
      ok: false,
      message: 'failed parsing client key/certificate: clientKeyData holds no PEM PRIVATE KEY block',
    };
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch (e) {
    return {
      ok: false,
      message: `failed parsing client key/certificate: clientKeyData does not parse as a private key (${(e as Error).message})`,
    };
  }
  const facts = {
    subject: leaf.subject.replace(/\n/g, ', '),
    notBefore: new Date(leaf.validFrom).toISOString(),
    notAfter: new Date(leaf.validTo).toISOString(),
  };
  const certSpki = leaf.publicKey.export({ type: 'spki', format: 'der' });
  const keySpki = createPublicKey(key).export({ type: 'spki', format: 'der' });
  if (!certSpki.equals(keySpki)) {
    return {
      ok: false,
      ...facts,
      message:
        'failed parsing client key/certificate: tls: private key does not match public key (clientKeyData belongs to another certificate)',
    };
  }
  if (now < new Date(leaf.validFrom)) {
    return {
      ok: false,
      ...facts,
      message: `client certificate is not valid yet: notBefore ${facts.notBefore} is after the time of execution ${now.toISOString()}`,
    };
  }
  if (now > new Date(leaf.validTo)) {
    return {
      ok: false,
      ...facts,
      message: `client certificate expired at ${facts.notAfter}, before the time of execution ${now.toISOString()}`,
    };
  }
  return {
    ok: true,
    ...facts,
    message: `certificate ${facts.subject} and its key match; valid ${facts.notBefore} to ${facts.notAfter}`,
  };
}

/**
 * What tls.X509KeyPair would say, with client-go's prefix: undefined when the
 * pair parses and matches. Validity dates are not its concern (nor client-go's).
 */
export function checkKeyPair(certPem: string, keyPem: string): string | undefined {
  const v = inspectClientCertificate(certPem, keyPem, new Date(0));
  if (v.ok || v.message.startsWith('client certificate is not valid yet')) return undefined;
  return v.message.replace(/ \(clientKeyData belongs to another certificate\)$/, '');
}

function pemBlocks(text: string): Array<{ type: string; text: string }> {
  const out: Array<{ type: string; text: string }> = [];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push({ type: m[1]!, text: m[0] });
  return out;
}
