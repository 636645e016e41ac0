// credprov's model of what kube-apiserver answers for a bearer token when its
// token webhook is aws-iam-authenticator's server backed by STS: the
// authenticator's own checks (v0.7.18 pkg/token/token.go Verify, in its order),
// then STS's (SigV4 over the request the authenticator sends, with ITS cluster
// id in x-k8s-aws-id; the 15-minute window after X-Amz-Date), then the
// authenticator's static mapping (pkg/mapper/file: lower-cased ARN, assumed roles
// canonicalised to their role). Suites predict from this before kubectl runs.
//
// It never needs the token's signature to be shown: evidence uses describeToken().
import { amzDateToMs, parsePresignedQuery, presignedSignatureValid, queryPairs } from '../api/aws/sigv4.ts';
import { STS_PRESIGN_WINDOW_MS, stsRegionOfHost } from '../api/aws/sts.ts';

export const TOKEN_PREFIX = 'k8s-aws-v1.';
/** pkg/token: maxTokenLenBytes. */
const MAX_TOKEN_BYTES = 4096;
/** pkg/token: parameterWhitelist (lower-cased). */
const QUERY_WHITELIST = new Set([
  'action',
  'version',
  'x-amz-algorithm',
  'x-amz-credential',
  'x-amz-date',
  'x-amz-expires',
  'x-amz-security-token',
  'x-amz-signature',
  'x-amz-signedheaders',
]);
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** verifySTSHostnameFormat for partition aws: the global endpoint, or sts[-fips].<region>.amazonaws.com / .api.aws (dual stack); no port. */
const AWS_PARTITION_STS_HOST = /^(?:sts\.amazonaws\.com|sts(?:-fips)?\.[a-z0-9-]+\.(?:amazonaws\.com|api\.aws))$/;
/** The group kube-apiserver adds to every authenticated user (AuthenticatedGroupAdder). */
export const AUTHENTICATED_GROUP = 'system:authenticated';

/**
 * What a token says, without the signature or any session token: safe for reports.
 * Keep it under a key that does not end in "token": the redactor treats whatever
 * such a key holds as a secret, and would learn "host" or the region from it.
 */
export interface TokenDescription {
  url: string;
  host: string;
  action?: string;
  accessKeyId?: string;
  region?: string;
  amzDate?: string;
  expiresSeconds?: number;
  signedHeaders: string[];
  sessionToken: boolean;
}

export function describeToken(token: string): TokenDescription | { malformed: string } {
  if (!token.startsWith(TOKEN_PREFIX)) return { malformed: `no ${TOKEN_PREFIX} prefix` };
  let url: URL;
  try {
    url = new URL(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return { malformed: 'the part after the prefix is not a base64url-encoded URL' };
  }
  const q = (name: string) => [...url.searchParams].find(([k]) => k.toLowerCase() === name)?.[1];
  const credential = q('x-amz-credential')?.split('/');
  const expires = q('x-amz-expires');
  return {
    url: `${url.protocol}//${url.host}${url.pathname}`,
    host: url.host,
    ...(q('action') ? { action: q('action')! } : {}),
    ...(credential?.[0] ? { accessKeyId: credential[0] } : {}),
    ...(credential?.[2] ? { region: credential[2] } : {}),
    ...(q('x-amz-date') ? { amzDate: q('x-amz-date')! } : {}),
    ...(expires !== undefined ? { expiresSeconds: Number(expires) } : {}),
    signedHeaders: (q('x-amz-signedheaders') ?? '').split(';').filter(Boolean),
    sessionToken: q('x-amz-security-token') !== undefined,
  };
}

/** An identity STS knows (a key it issued). */
export interface StsIdentity {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** GetCallerIdentity's Arn: arn:aws:iam::<acct>:user/<name> or arn:aws:sts::<acct>:assumed-role/<role>/<session>. */
  arn: string;
}

export interface IdentityMapping {
  /** mapUsers[].userARN or mapRoles[].rolearn. */
  arn: string;
  username: string;
  groups: string[];
}

export interface AuthenticatorSetup {
  /** The server's --cluster-id. */
  clusterId: string;
  identities: StsIdentity[];
  mappings: IdentityMapping[];
}

export type TokenReviewVerdict =
  | { status: 200; username: string; groups: string[] }
  | { status: 401; refusedBy: 'authenticator' | 'sts' | 'mapping'; reason: string };

export interface TokenReviewPrediction {
  verdict: TokenReviewVerdict;
  /** One line: which rule decided. */
  because: string;
}

const refuse = (
  refusedBy: 'authenticator' | 'sts' | 'mapping',
  reason: string,
  because: string,
): TokenReviewPrediction => ({ verdict: { status: 401, refusedBy, reason }, because });

/**
 * The verdict for `token` at `now` (the authenticator's clock) and `stsNow` (STS's).
 * `reason` is a fragment of the message the refusing party writes: the authenticator's
 * error (its log), or STS's error code.
 */
export function predictTokenReview(
  token: string,
  setup: AuthenticatorSetup,
  now: number,
  stsNow = now,
): TokenReviewPrediction {
  const a = (reason: string, because: string) =>
    refuse('authenticator', reason, `the authenticator refuses it before calling STS: ${because}`);
  if (Buffer.byteLength(token) > MAX_TOKEN_BYTES) return a('token is too large', `over ${MAX_TOKEN_BYTES} bytes`);
  if (!token.startsWith(TOKEN_PREFIX))
    return a(`token is missing expected "${TOKEN_PREFIX}" prefix`, `no ${TOKEN_PREFIX} prefix`);
  let url: URL;
  try {
    url = new URL(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return a('input token was not properly formatted', 'not a base64url URL');
  }
  if (url.protocol !== 'https:') return a('unexpected scheme', `scheme ${url.protocol} is not https`);
  const hostRegion = stsRegionOfHost(url.host);
  if (!hostRegion || !AWS_PARTITION_STS_HOST.test(url.host))
    return a('unexpected hostname', `${url.host} is not an STS hostname of the aws partition`);
  if (url.pathname !== '/') return a('unexpected path in pre-signed URL', `path ${url.pathname}`);
  const pairs = queryPairs(url.search.slice(1));
  const lower = new Map<string, string>();
  for (const [k, v] of pairs) {
    if (lower.has(k.toLowerCase())) return a('duplicate query parameter found', `${k} appears twice`);
    if (!QUERY_WHITELIST.has(k.toLowerCase()))
      return a('non-whitelisted query parameter', `${k} is not a parameter it allows`);
    lower.set(k.toLowerCase(), v);
  }
  if (lower.get('action') !== 'GetCallerIdentity')
    return a('unexpected action parameter in pre-signed URL', `Action=${lower.get('action') ?? '(none)'}`);
  const signedHeaders = (lower.get('x-amz-signedheaders') ?? '').split(';');
  if (!signedHeaders.some((h) => h.toLowerCase() === CLUSTER_ID_HEADER))
    return a(
      `client did not sign the ${CLUSTER_ID_HEADER} header in the pre-signed URL`,
      `${CLUSTER_ID_HEADER} is not among the signed headers`,
    );
  const expires = Number(lower.get('x-amz-expires'));
  if (!Number.isInteger(expires) || expires < 0 || expires > 900)
    return a(
      'invalid X-Amz-Expires parameter in pre-signed URL',
      `X-Amz-Expires=${lower.get('x-amz-expires') ?? '(none)'} is outside 0..900`,
    );
  const signedAt = amzDateToMs(lower.get('x-amz-date') ?? '');
  if (signedAt === undefined) return a('X-Amz-Date', 'X-Amz-Date is missing or malformed');
  if (now > signedAt + STS_PRESIGN_WINDOW_MS)
    return a(
      'X-Amz-Date parameter is expired',
      `signed at ${lower.get('x-amz-date')}, more than 15 min before its clock`,
    );

  // STS, for the GET the authenticator sends: host, x-k8s-aws-id = the server's cluster id, accept: application/json.
  const s = (code: string, because: string) =>
    refuse('sts', code, `STS refuses the authenticator's GetCallerIdentity: ${because}`);
  const p = parsePresignedQuery(pairs);
  if ('missing' in p) return s('AuthorizationQueryParametersError', `the presigned URL lacks ${p.missing}`);
  const id = setup.identities.find((i) => i.accessKeyId === p.accessKeyId);
  if (!id) return s('InvalidClientTokenId', `STS never issued access key ${p.accessKeyId}`);
  if (p.scope.region !== hostRegion)
    return s('SignatureDoesNotMatch', `signed for region ${p.scope.region}, sent to ${url.host}`);
  const headers = { host: url.host, [CLUSTER_ID_HEADER]: setup.clusterId, accept: 'application/json' };
  const signedOk =
    p.scope.service === 'sts' &&
    presignedSignatureValid({
      method: 'GET',
      path: '/',
      query: pairs,
      headers,
      presigned: p,
      secretAccessKey: id.secretAccessKey,
    }) &&
    (id.sessionToken === undefined || p.securityToken === id.sessionToken);
  if (!signedOk)
    return s(
      'SignatureDoesNotMatch',
      `the signature is not ${id.arn}'s over ${CLUSTER_ID_HEADER}: ${setup.clusterId} (wrong secret, or signed for another cluster id)`,
    );
  if (stsNow > signedAt + STS_PRESIGN_WINDOW_MS)
    return s('Signature expired', "more than 15 min after X-Amz-Date by STS's clock");
  if (signedAt > stsNow + STS_PRESIGN_WINDOW_MS)
    return s('Signature not yet current', "X-Amz-Date is more than 15 min ahead of STS's clock");

  const canonical = canonicalArn(id.arn).toLowerCase();
  const mapping = setup.mappings.find((m) => canonicalArn(m.arn).toLowerCase() === canonical);
  if (!mapping)
    return refuse('mapping', 'identity is not mapped', `STS says ${id.arn}, which no mapUsers/mapRoles entry names`);
  return {
    verdict: { status: 200, username: mapping.username, groups: [...mapping.groups, AUTHENTICATED_GROUP] },
    because: `STS says ${id.arn}; the mapping names it ${mapping.username}; kube-apiserver adds ${AUTHENTICATED_GROUP}`,
  };
}

/** pkg/arn Canonicalize: an assumed-role session ARN becomes its role's IAM ARN; other ARNs stay. */
export function canonicalArn(arn: string): string {
  const m = /^arn:([^:]+):sts::(\d{12}):assumed-role\/([^/]+)\/.+$/.exec(arn);
  return m ? `arn:${m[1]}:iam::${m[2]}:role/${m[3]}` : arn;
}

export function showVerdict(v: TokenReviewVerdict): string {
  return v.status === 200
    ? `200 as ${v.username} [${v.groups.join(', ')}]`
    : `401, refused by ${v.refusedBy === 'mapping' ? "the authenticator's mapping" : v.refusedBy === 'sts' ? 'STS' : 'the authenticator'} (${v.reason})`;
}
