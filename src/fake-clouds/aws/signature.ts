// AWS's signature rules (SigV4, src/api/aws/sigv4.ts) against the keys fake AWS
// issued: in the Authorization header, or in the query of a presigned URL (an
// aws-iam-authenticator token) inside STS's window around its X-Amz-Date.
import type { CloudRequest } from '../kit/index.ts';
import {
  msToAmzDate,
  parsePresignedQuery,
  parseSigV4,
  presignedSignatureValid,
  queryPairs,
  safeEqual,
  sigV4Signature,
} from '../../api/aws/sigv4.ts';
import { STS_PRESIGN_WINDOW_MS } from '../../api/aws/sts.ts';
import type { IamKeys, Session } from './iam.ts';

/** absent: no signature; unknown-key: a key never issued; expired / not-yet-valid: a presigned request outside STS's window. */
export type SignatureVerdict =
  'valid' | 'invalid' | 'absent' | 'unknown-key' | 'expired-session' | 'expired' | 'not-yet-valid';

/** Who signed a request, and how that went. */
export interface SignatureCheck {
  signature: SignatureVerdict;
  region?: string;
  accessKeyId?: string;
  session?: Session;
  /** A presigned request's SigV4 parameters (evidence). */
  presigned?: { amzDate: string; expiresSeconds: number; signedHeaders: string[] };
  /** A refusal with AWS's own status, code and wording, where the caller's generic one would not do. */
  error?: { status: number; code: string; message: string };
}

/** SigV4 in the Authorization header, for `service`, by a key fake AWS issued. */
export function headerSignature(req: CloudRequest, keys: IamKeys, service: string, now: number): SignatureCheck {
  const parsed = parseSigV4(req.header('authorization') ?? '');
  if (!parsed) return { signature: 'absent' };
  const { accessKeyId, region } = parsed;
  const session = keys.get(accessKeyId);
  if (!session) return { signature: 'unknown-key', accessKeyId, region };
  const signed = { accessKeyId, region, session };
  if (parsed.service !== service) return { signature: 'invalid', ...signed };
  const expected = sigV4Signature({
    method: req.method,
    url: req.target,
    headers: req.headers,
    body: req.body,
    parsed,
    secretAccessKey: session.secretAccessKey,
  });
  if (!safeEqual(expected, parsed.signature)) return { signature: 'invalid', ...signed };
  return sessionCheck(session, req.header('x-amz-security-token') ?? '', now, signed);
}

/** SigV4 in the query (a presigned URL) for STS, inside STS's window around X-Amz-Date. */
export function presignedSignature(req: CloudRequest, keys: IamKeys, now: number): SignatureCheck {
  const [path = '/', rawQuery = ''] = req.target.split('?', 2) as [string?, string?];
  const query = queryPairs(rawQuery);
  const p = parsePresignedQuery(query);
  if ('missing' in p) {
    return query.some(([k]) => /^x-amz-/i.test(k))
      ? {
          signature: 'invalid',
          error: {
            status: 400,
            code: 'AuthorizationQueryParametersError',
            message: `Query-string authentication requires ${p.missing}`,
          },
        }
      : { signature: 'absent' };
  }
  const presigned = { amzDate: p.amzDate, expiresSeconds: p.expiresSeconds, signedHeaders: p.signedHeaders };
  const scoped = { accessKeyId: p.accessKeyId, region: p.scope.region, presigned };
  const session = keys.get(p.accessKeyId);
  if (!session) return { signature: 'unknown-key', ...scoped };
  const signed = { ...scoped, session };
  if (p.scope.service !== 'sts' || p.scope.date !== p.amzDate.slice(0, 8)) return { signature: 'invalid', ...signed };
  const valid = presignedSignatureValid({
    method: req.method,
    path,
    query,
    headers: req.headers,
    presigned: p,
    secretAccessKey: session.secretAccessKey,
  });
  if (!valid) return { signature: 'invalid', ...signed };
  // STS's own wording for a presigned request outside its window.
  if (now > p.signedAtMs + STS_PRESIGN_WINDOW_MS)
    return {
      signature: 'expired',
      ...signed,
      error: {
        status: 403,
        code: 'SignatureDoesNotMatch',
        message: `Signature expired: ${p.amzDate} is now earlier than ${msToAmzDate(now - STS_PRESIGN_WINDOW_MS)} (${msToAmzDate(now)} - 15 min.)`,
      },
    };
  if (p.signedAtMs > now + STS_PRESIGN_WINDOW_MS)
    return {
      signature: 'not-yet-valid',
      ...signed,
      error: {
        status: 403,
        code: 'SignatureDoesNotMatch',
        message: `Signature not yet current: ${p.amzDate} is still later than ${msToAmzDate(now + STS_PRESIGN_WINDOW_MS)} (${msToAmzDate(now)} + 15 min.)`,
      },
    };
  return sessionCheck(session, p.securityToken, now, signed);
}

/** A session's key also needs its own token, unexpired. */
function sessionCheck(
  session: Session,
  securityToken: string | undefined,
  now: number,
  signed: Omit<SignatureCheck, 'signature'>,
): SignatureCheck {
  if (session.sessionToken !== undefined) {
    if (securityToken !== session.sessionToken) return { signature: 'invalid', ...signed };
    if (session.expiresAt !== undefined && now > session.expiresAt) return { signature: 'expired-session', ...signed };
  }
  return { signature: 'valid', ...signed };
}

/** The scope a request says it was signed in, whoever signed it (for records). */
export function claimedScope(req: CloudRequest): { region?: string; accessKeyId?: string } {
  const p = parseSigV4(req.header('authorization') ?? '');
  return p ? { region: p.region, accessKeyId: p.accessKeyId } : {};
}
