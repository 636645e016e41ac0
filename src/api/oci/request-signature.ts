// OCI's request signature (version 1 of draft-cavage HTTP signatures, as
// OCI's "Request Signatures" documentation specifies it): the Authorization
// header `Signature version="1",keyId="<tenancy>/<user>/<fingerprint>",
// algorithm="rsa-sha256",headers="date (request-target) host",signature="…"`,
// the signing string one `name: value` line per listed header in that order,
// `(request-target)` the lower-case method and the path with its query. A
// GET must cover date, (request-target) and host; OCI refuses a Date more
// than 5 minutes from its clock. Shared by the model of `oci ce cluster
// generate-token` (what the validating side checks) and the fake OCI that
// checks it, so neither imports the other.
import { createHash, createPublicKey, verify } from 'node:crypto';

export interface OciSignature {
  version: string;
  keyId: string;
  algorithm: string;
  headers: string[];
  signature: string;
}

/** OCI's signed-request clock window. */
export const OCI_SIGNATURE_SKEW_MS = 5 * 60_000;
/** What a GET (or DELETE, HEAD) must sign. */
export const OCI_GET_SIGNED_HEADERS = ['date', '(request-target)', 'host'] as const;

/** The Authorization header's parameters (`Signature k="v",…`), or undefined when it is not one. */
export function parseSignatureHeader(header: string): OciSignature | undefined {
  const m = /^Signature\s+(.*)$/.exec(header.trim());
  if (!m) return undefined;
  const params = new Map<string, string>();
  for (const p of m[1]!.matchAll(/([a-zA-Z]+)="([^"]*)"/g)) params.set(p[1]!, p[2]!);
  const get = (k: string) => params.get(k);
  if (!get('keyId') || !get('signature') || !get('headers')) return undefined;
  return {
    version: get('version') ?? '',
    keyId: get('keyId')!,
    algorithm: get('algorithm') ?? '',
    headers: get('headers')!.split(' '),
    signature: get('signature')!,
  };
}

/** The signing string for a request: one line per signed header, in the order the signature lists them. */
export function signingString(
  headers: readonly string[],
  v: { method?: string; path: string; host: string; date: string; other?: Record<string, string> },
): string {
  return headers
    .map((h) => {
      if (h === '(request-target)') return `(request-target): ${(v.method ?? 'get').toLowerCase()} ${v.path}`;
      if (h === 'host') return `host: ${v.host}`;
      if (h === 'date') return `date: ${v.date}`;
      return `${h}: ${v.other?.[h] ?? ''}`;
    })
    .join('\n');
}

/** Whether `signature` is rsa-sha256 over `input` by the key whose public half is `publicKeyPem`. */
export function signatureVerifies(input: string, signature: string, publicKeyPem: string): boolean {
  try {
    return verify('sha256', Buffer.from(input), createPublicKey(publicKeyPem), Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** An API key's fingerprint as OCI shows it: MD5 of the public key's DER (SubjectPublicKeyInfo), colon-separated hex. */
export function ociKeyFingerprint(publicKeyPem: string): string {
  const der = createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
  return (createHash('md5').update(der).digest('hex').match(/../g) ?? []).join(':');
}
