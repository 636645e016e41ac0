// Certificates for the harness's test servers (registries, webhooks, fake
// clouds), made with the openssl CLI (node:crypto makes keys but not
// certificates): a harness CA, server certificates for hostnames and loopback
// IPs, and an RSA signing pair (a registry token server's).
import { isIP } from 'node:net';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { CommandError, PrerequisiteError } from './errors.ts';

export interface KeyPair {
  certPath: string;
  keyPath: string;
}

async function openssl(args: string[], cwd?: string): Promise<void> {
  const r = await execa('openssl', args, { reject: false, all: true, ...(cwd ? { cwd } : {}) });
  if ((r as { code?: string }).code === 'ENOENT')
    throw new PrerequisiteError('openssl is needed to make test certificates', { hint: 'apt-get install openssl' });
  if (r.failed)
    throw new CommandError(`openssl ${args[0]} failed`, {
      argv: ['openssl', ...args],
      output: String(r.all ?? ''),
      ...(r.exitCode === undefined ? {} : { exitCode: r.exitCode }),
    });
}

/** A self-signed CA (EC P-256: fast to make, accepted by Go and Node TLS). */
export async function createCA(dir: string, cn = 'credprov test CA'): Promise<KeyPair> {
  await mkdir(dir, { recursive: true });
  const pair = { certPath: join(dir, 'ca.crt'), keyPath: join(dir, 'ca.key') };
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '30',
    '-subj',
    `/CN=${cn}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout',
    pair.keyPath,
    '-out',
    pair.certPath,
  ]);
  return pair;
}

/** A server certificate signed by `ca` for DNS names and IPs (SANs; Go ignores the CN). */
export async function issueServerCert(
  ca: KeyPair,
  dir: string,
  names: string[],
  basename = 'server',
): Promise<KeyPair> {
  await mkdir(dir, { recursive: true });
  const pair = { certPath: join(dir, `${basename}.crt`), keyPath: join(dir, `${basename}.key`) };
  const csr = join(dir, `${basename}.csr`);
  const ext = join(dir, `${basename}.ext`);
  const sans = [...new Set(names)].map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  await writeFile(
    ext,
    `subjectAltName=${sans}\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\nbasicConstraints=CA:FALSE\n`,
  );
  await openssl([
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-subj',
    `/CN=${names[0] ?? 'localhost'}`,
    '-keyout',
    pair.keyPath,
    '-out',
    csr,
  ]);
  await openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    ca.certPath,
    '-CAkey',
    ca.keyPath,
    '-CAcreateserial',
    '-days',
    '30',
    '-extfile',
    ext,
    '-out',
    pair.certPath,
  ]);
  await rm(csr, { force: true });
  await rm(ext, { force: true });
  return pair;
}

/** RSA key + self-signed certificate for signing registry tokens (RS256; the cert goes into x5c and the rootcertbundle). */
export async function createSigningPair(dir: string): Promise<KeyPair> {
  await mkdir(dir, { recursive: true });
  const pair = { certPath: join(dir, 'token-signer.crt'), keyPath: join(dir, 'token-signer.key') };
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '30',
    '-subj',
    '/CN=credprov token signer',
    '-keyout',
    pair.keyPath,
    '-out',
    pair.certPath,
  ]);
  return pair;
}

/** The base64 DER of the first certificate in a PEM file: one x5c element. */
export async function certDerBase64(certPath: string): Promise<string> {
  const pem = await readFile(certPath, 'utf8');
  const m = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem);
  if (!m) throw new Error(`${certPath} holds no PEM certificate`);
  return m[1]!.replace(/\s+/g, '');
}
