// AWS Signature Version 4, as AWS computes it: the header form (Authorization:
// AWS4-HMAC-SHA256 …) that SDK calls carry, and the query form of a presigned
// URL (X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date, X-Amz-Expires,
// X-Amz-SignedHeaders, X-Amz-Signature), which is what an aws-iam-authenticator
// token is. The fake AWS verifies both with the secrets it issued; credprov's
// model of aws-iam-authenticator checks tokens with it too, so it is a pure
// module of its own that both import; the presigner lets a lab make tokens the
// plugin itself will not (a past date, an unsigned header).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';
/** The payload hash of an empty body: what aws-sdk-go-v2 signs into a presigned STS GET (checked against a real token). */
export const EMPTY_PAYLOAD_SHA256 = sha256('');
/** What botocore (aws-cli `eks get-token`) signs into presigned URLs instead; STS accepts either. */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

export interface ParsedSigV4 {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

export function parseSigV4(header: string): ParsedSigV4 | undefined {
  const m =
    /^AWS4-HMAC-SHA256\s+Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]+)$/.exec(
      header.trim(),
    );
  if (!m) return undefined;
  return {
    accessKeyId: m[1]!,
    date: m[2]!,
    region: m[3]!,
    service: m[4]!,
    signedHeaders: m[5]!.split(';'),
    signature: m[6]!,
  };
}

type Headers = Record<string, string | string[] | undefined>;

const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The query pairs of a URL's query string, decoded (a `+` is a space, as AWS decodes it). */
export function queryPairs(query: string): Array<[string, string]> {
  return query
    .split('&')
    .filter(Boolean)
    .map((kv) => {
      const i = kv.indexOf('=');
      const k = decodeURIComponent(i < 0 ? kv : kv.slice(0, i));
      const v = i < 0 ? '' : decodeURIComponent(kv.slice(i + 1).replace(/\+/g, ' '));
      return [k, v];
    });
}

function canonicalQuery(pairs: Array<[string, string]>): string {
  return pairs
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function headerValue(headers: Headers, name: string): string {
  const v = headers[name];
  return (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s+/g, ' ');
}

interface Scope {
  date: string;
  region: string;
  service: string;
}

/** The signature over one canonical request: the part both forms share. */
function signature(o: {
  method: string;
  path: string;
  query: Array<[string, string]>;
  headers: Headers;
  signedHeaders: string[];
  payloadHash: string;
  amzDate: string;
  scope: Scope;
  secretAccessKey: string;
}): string {
  const canonicalHeaders = o.signedHeaders.map((h) => `${h}:${headerValue(o.headers, h)}\n`).join('');
  const canonicalRequest = [
    o.method,
    o.path || '/',
    canonicalQuery(o.query),
    canonicalHeaders,
    o.signedHeaders.join(';'),
    o.payloadHash,
  ].join('\n');
  const scope = `${o.scope.date}/${o.scope.region}/${o.scope.service}/aws4_request`;
  const stringToSign = [SIGV4_ALGORITHM, o.amzDate, scope, sha256(canonicalRequest)].join('\n');
  let key: Buffer = hmac(`AWS4${o.secretAccessKey}`, o.scope.date);
  for (const part of [o.scope.region, o.scope.service, 'aws4_request']) key = hmac(key, part);
  return createHmac('sha256', key).update(stringToSign).digest('hex');
}

/** The signature a SigV4 signer computes for this request (header form). */
export function sigV4Signature(o: {
  method: string;
  url: string;
  headers: Headers;
  body: Buffer | string;
  parsed: Pick<ParsedSigV4, 'date' | 'region' | 'service' | 'signedHeaders'>;
  secretAccessKey: string;
}): string {
  const [path = '/', query = ''] = o.url.split('?', 2) as [string?, string?];
  return signature({
    method: o.method,
    path,
    query: queryPairs(query),
    headers: o.headers,
    signedHeaders: o.parsed.signedHeaders,
    payloadHash: headerValue(o.headers, 'x-amz-content-sha256') || sha256(o.body),
    amzDate: headerValue(o.headers, 'x-amz-date'),
    scope: o.parsed,
    secretAccessKey: o.secretAccessKey,
  });
}

/** The SigV4 parameters of a presigned URL, or what is missing or malformed. */
export interface PresignedQuery {
  accessKeyId: string;
  scope: Scope;
  /** X-Amz-Date, 20261124T212709Z. */
  amzDate: string;
  /** X-Amz-Date as epoch ms. */
  signedAtMs: number;
  expiresSeconds: number;
  signedHeaders: string[];
  signature: string;
  securityToken?: string;
}

export function parsePresignedQuery(pairs: Array<[string, string]>): PresignedQuery | { missing: string } {
  const get = (name: string) => pairs.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  if (get('X-Amz-Algorithm') === undefined && get('X-Amz-Signature') === undefined)
    return { missing: 'X-Amz-Algorithm' };
  if (get('X-Amz-Algorithm') !== SIGV4_ALGORITHM) return { missing: `X-Amz-Algorithm=${SIGV4_ALGORITHM}` };
  const credential = /^([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(get('X-Amz-Credential') ?? '');
  if (!credential) return { missing: 'X-Amz-Credential (<key>/<yyyymmdd>/<region>/<service>/aws4_request)' };
  const amzDate = get('X-Amz-Date') ?? '';
  const signedAtMs = amzDateToMs(amzDate);
  if (signedAtMs === undefined) return { missing: 'X-Amz-Date (yyyymmddThhmmssZ)' };
  const expires = Number(get('X-Amz-Expires'));
  if (!Number.isInteger(expires) || expires < 1 || expires > 604800)
    return { missing: 'X-Amz-Expires (1 to 604800 seconds)' };
  const signedHeaders = (get('X-Amz-SignedHeaders') ?? '').split(';').filter(Boolean);
  if (!signedHeaders.includes('host')) return { missing: 'X-Amz-SignedHeaders including host' };
  const sig = get('X-Amz-Signature') ?? '';
  if (!/^[0-9a-f]{64}$/.test(sig)) return { missing: 'X-Amz-Signature' };
  const token = get('X-Amz-Security-Token');
  return {
    accessKeyId: credential[1]!,
    scope: { date: credential[2]!, region: credential[3]!, service: credential[4]! },
    amzDate,
    signedAtMs,
    expiresSeconds: expires,
    signedHeaders,
    signature: sig,
    ...(token !== undefined ? { securityToken: token } : {}),
  };
}

/** Does this presigned request carry a signature made with `secretAccessKey`? (Either payload convention.) */
export function presignedSignatureValid(o: {
  method: string;
  path: string;
  query: Array<[string, string]>;
  headers: Headers;
  presigned: PresignedQuery;
  secretAccessKey: string;
}): boolean {
  const unsigned = o.query.filter(([k]) => k.toLowerCase() !== 'x-amz-signature');
  return [EMPTY_PAYLOAD_SHA256, UNSIGNED_PAYLOAD].some((payloadHash) =>
    safeEqual(
      o.presigned.signature,
      signature({
        method: o.method,
        path: o.path,
        query: unsigned,
        headers: o.headers,
        signedHeaders: o.presigned.signedHeaders,
        payloadHash,
        amzDate: o.presigned.amzDate,
        scope: o.presigned.scope,
        secretAccessKey: o.secretAccessKey,
      }),
    ),
  );
}

/**
 * A presigned GET in the shape aws-sdk-go-v2 gives an STS call: the operation's
 * parameters, then the SigV4 ones, signed over `host` plus the extra headers.
 */
export function presignGet(o: {
  url: string;
  params: Array<[string, string]>;
  headers?: Record<string, string>;
  region: string;
  service: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  signedAtMs: number;
  expiresSeconds: number;
}): string {
  const u = new URL(o.url);
  const amzDate = msToAmzDate(o.signedAtMs);
  const scope = { date: amzDate.slice(0, 8), region: o.region, service: o.service };
  const headers: Record<string, string> = {
    host: u.host,
    ...Object.fromEntries(Object.entries(o.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
  };
  const signedHeaders = Object.keys(headers).sort();
  const query: Array<[string, string]> = [
    ...o.params,
    ['X-Amz-Algorithm', SIGV4_ALGORITHM],
    ['X-Amz-Credential', `${o.credentials.accessKeyId}/${scope.date}/${scope.region}/${scope.service}/aws4_request`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(o.expiresSeconds)],
    ...(o.credentials.sessionToken ? [['X-Amz-Security-Token', o.credentials.sessionToken] as [string, string]] : []),
    ['X-Amz-SignedHeaders', signedHeaders.join(';')],
  ];
  const sig = signature({
    method: 'GET',
    path: u.pathname,
    query,
    headers,
    signedHeaders,
    payloadHash: EMPTY_PAYLOAD_SHA256,
    amzDate,
    scope,
    secretAccessKey: o.credentials.secretAccessKey,
  });
  const q = [...query, ['X-Amz-Signature', sig] as [string, string]]
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .join('&');
  return `${u.origin}${u.pathname}?${q}`;
}

export function msToAmzDate(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export function amzDateToMs(s: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : undefined;
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
