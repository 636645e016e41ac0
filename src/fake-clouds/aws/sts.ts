// STS: AssumeRoleWithWebIdentity and GetCallerIdentity, strict where STS is.
// - AssumeRoleWithWebIdentity verifies the web identity token (RS256) against the
//   cluster's OIDC discovery document and JWKS (issuer, signature, expiry), needs an
//   audience from its list (an IAM OIDC provider's client IDs), and the role's trust
//   policy must name the token's subject. It issues session credentials ECR accepts.
// - GetCallerIdentity (header-signed POST, or a presigned GET as in an
//   aws-iam-authenticator token) needs a valid signature by a key fake AWS issued, a
//   credential scope for STS in the region of the hostname it was sent to, and an
//   X-Amz-Date no more than 15 minutes old (STS's window for presigned
//   GetCallerIdentity, whatever X-Amz-Expires says) and not in the future. It answers
//   the caller's account, ARN and user ID, as JSON when asked (Accept:
//   application/json, as the authenticator asks) and as XML otherwise. It knows
//   nothing of x-k8s-aws-id, as STS does not: a token for another cluster fails only
//   because the header the authenticator sends differs from the one signed.
import {
  audiences,
  claimsOf,
  Refusal,
  xmlEscape,
  type CloudRequest,
  type Endpoint,
  type Note,
  type TrustedIssuer,
} from '../kit/index.ts';
import { stsRegionOfHost } from '../../api/aws/sts.ts';
import { requestId, stsJson, stsRefusal, stsXml, wantsJson } from './errors.ts';
import type { IamKeys, Role } from './iam.ts';
import { withoutQuerySecrets, type FakeAwsRequest } from './records.ts';
import { claimedScope, headerSignature, presignedSignature } from './signature.ts';

export interface StsRules {
  /** Accepted token audiences (an IAM OIDC provider's client ID list). */
  audiences: string[];
  roles: Role[];
  /** Session lifetime when the caller asks none (AWS default 3600). */
  sessionSeconds?: number;
}

interface StsContext {
  keys: IamKeys;
  /** Without rules, AssumeRoleWithWebIdentity finds no OIDC provider. */
  sts: StsRules | undefined;
  issuer: TrustedIssuer;
  now: () => number;
}

const action = (req: CloudRequest) => req.url.searchParams.get('Action') ?? req.form().get('Action') ?? '';
const isCallerIdentity = (req: CloudRequest) => action(req) === 'GetCallerIdentity';

export function stsEndpoint(c: StsContext): Endpoint<FakeAwsRequest> {
  return {
    record: (req) => ({ service: 'sts', path: withoutQuerySecrets(req.target) }),
    refuse: stsRefusal((req) => isCallerIdentity(req) && wantsJson(req)),
    answer: (req, note) =>
      isCallerIdentity(req) ? getCallerIdentity(c, req, note) : assumeRoleWithWebIdentity(c, req, note),
  };
}

async function assumeRoleWithWebIdentity(c: StsContext, req: CloudRequest, note: Note<FakeAwsRequest>) {
  const form = req.form();
  const operation = form.get('Action') ?? '';
  const roleArn = form.get('RoleArn') ?? undefined;
  const sessionName = form.get('RoleSessionName') ?? undefined;
  const token = form.get('WebIdentityToken') ?? '';
  const claims = token ? claimsOf(token) : undefined;
  const sts = {
    ...(roleArn ? { roleArn } : {}),
    ...(sessionName ? { sessionName } : {}),
    ...(claims ? { tokenClaims: claims } : {}),
  };
  note({ operation, ...claimedScope(req), sts });
  if (operation !== 'AssumeRoleWithWebIdentity')
    throw new Refusal(
      400,
      'InvalidAction',
      `credprov fake STS serves only AssumeRoleWithWebIdentity and GetCallerIdentity, not ${operation || '(none)'}`,
    );
  const cfg = c.sts;
  const issuer = c.issuer.issuer;
  if (!cfg || issuer === undefined)
    throw new Refusal(400, 'InvalidIdentityToken', 'No OpenIDConnect provider found in your account for this issuer');
  if (!token) throw new Refusal(400, 'ValidationError', 'WebIdentityToken is required');
  if (!roleArn || !sessionName) throw new Refusal(400, 'ValidationError', 'RoleArn and RoleSessionName are required');
  const verdict = await c.issuer.verify(token, { now: c.now() });
  if (!verdict.ok) {
    if (verdict.failure === 'expired') throw new Refusal(400, 'ExpiredTokenException', 'Token is expired');
    if (verdict.failure === 'issuer')
      throw new Refusal(
        400,
        'InvalidIdentityToken',
        `No OpenIDConnect provider found in your account for ${String(claims?.iss)}`,
      );
    throw new Refusal(
      400,
      'InvalidIdentityToken',
      `Couldn't verify the token against the issuer's keys: ${verdict.error?.message ?? verdict.failure}`,
    );
  }
  const { payload } = verdict;
  const aud = audiences(payload);
  if (!aud.some((a) => cfg.audiences.includes(a)))
    throw new Refusal(
      400,
      'InvalidIdentityToken',
      `Incorrect token audience (token aud ${JSON.stringify(aud)}, accepted ${JSON.stringify(cfg.audiences)})`,
    );
  const role = cfg.roles.find((r) => r.arn === roleArn);
  if (!role || !role.subjects.includes(String(payload.sub)))
    throw new Refusal(
      403,
      'AccessDenied',
      `Not authorized to perform sts:AssumeRoleWithWebIdentity (role ${roleArn}${role ? ` does not trust ${String(payload.sub)}` : ' does not exist'})`,
    );
  const m = /^arn:aws:iam::(\d{12}):role\/(.+)$/.exec(roleArn);
  if (!m) throw new Refusal(400, 'ValidationError', `${roleArn} is not a role ARN`);
  const seconds = Number(form.get('DurationSeconds') ?? cfg.sessionSeconds ?? 3600);
  const expiresAt = c.now() + seconds * 1000;
  const session = c.keys.assume({ account: m[1]!, name: m[2]!, arn: roleArn }, sessionName, expiresAt);
  note({
    sts: {
      ...sts,
      issued: {
        accessKeyId: session.accessKeyId,
        expiresAt: new Date(expiresAt).toISOString(),
        assumedRoleArn: session.principal,
      },
    },
  });
  return stsXml(
    200,
    `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>${xmlEscape(String(payload.sub))}</SubjectFromWebIdentityToken>
    <Audience>${xmlEscape(aud[0] ?? '')}</Audience>
    <AssumedRoleUser><Arn>${xmlEscape(session.principal)}</Arn><AssumedRoleId>${xmlEscape(session.userId)}</AssumedRoleId></AssumedRoleUser>
    <Credentials>
      <SessionToken>${session.sessionToken}</SessionToken>
      <SecretAccessKey>${session.secretAccessKey}</SecretAccessKey>
      <Expiration>${new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z')}</Expiration>
      <AccessKeyId>${session.accessKeyId}</AccessKeyId>
    </Credentials>
    <Provider>${xmlEscape(issuer)}</Provider>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata><RequestId>${requestId()}</RequestId></ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>
`,
  );
}

function getCallerIdentity(c: StsContext, req: CloudRequest, note: Note<FakeAwsRequest>) {
  const host = req.header('host') ?? '';
  const k8sAwsId = req.header('x-k8s-aws-id');
  const auth =
    req.method === 'GET' ? presignedSignature(req, c.keys, c.now()) : headerSignature(req, c.keys, 'sts', c.now());
  const hostRegion = stsRegionOfHost(host);
  // STS at sts.<region>.amazonaws.com takes only signatures scoped to <region>.
  const wrongRegion = !!auth.region && !!hostRegion && auth.region !== hostRegion && auth.signature !== 'unknown-key';
  const sts: NonNullable<FakeAwsRequest['sts']> = {
    ...(host ? { host } : {}),
    ...(k8sAwsId !== undefined ? { k8sAwsId } : {}),
    ...(auth.presigned ? { presigned: auth.presigned } : {}),
  };
  note({
    operation: 'GetCallerIdentity',
    ...(auth.region ? { region: auth.region } : {}),
    ...(auth.accessKeyId ? { accessKeyId: auth.accessKeyId } : {}),
    ...(auth.session ? { principal: auth.session.principal } : {}),
    signature: wrongRegion ? 'invalid' : auth.signature,
    sts,
  });
  if (auth.error) throw new Refusal(auth.error.status, auth.error.code, auth.error.message);
  if (auth.signature === 'absent')
    throw new Refusal(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
  if (auth.signature === 'unknown-key')
    throw new Refusal(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
  if (wrongRegion)
    throw new Refusal(
      403,
      'SignatureDoesNotMatch',
      `Credential should be scoped to a valid region, not '${auth.region}'. `,
    );
  if (auth.signature === 'invalid' || !auth.session)
    throw new Refusal(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
  if (auth.signature === 'expired-session')
    throw new Refusal(403, 'ExpiredToken', 'The security token included in the request is expired');
  const s = auth.session;
  const caller = { arn: s.principal, account: s.account, userId: s.userId };
  note({ sts: { ...sts, caller } });
  if (wantsJson(req))
    return stsJson(200, {
      GetCallerIdentityResponse: {
        GetCallerIdentityResult: { Account: caller.account, Arn: caller.arn, UserId: caller.userId },
        ResponseMetadata: { RequestId: requestId() },
      },
    });
  return stsXml(
    200,
    `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <GetCallerIdentityResult>
    <Arn>${xmlEscape(caller.arn)}</Arn>
    <UserId>${xmlEscape(caller.userId)}</UserId>
    <Account>${caller.account}</Account>
  </GetCallerIdentityResult>
  <ResponseMetadata><RequestId>${requestId()}</RequestId></ResponseMetadata>
</GetCallerIdentityResponse>
`,
  );
}
