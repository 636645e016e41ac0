// Fake AWS on loopback for the real AWS plugins: the ECR API's
// GetAuthorizationToken and STS's AssumeRoleWithWebIdentity and
// GetCallerIdentity, each on its own 127.0.0.1 port over http (aws-sdk-go-v2
// takes an explicit http:// endpoint from AWS_ENDPOINT_URL_<SERVICE> as is),
// plus a catch-all that refuses and records any other service the SDK might
// try. STS can also be served over https on a loopback address for a real STS
// hostname (serveStsTls): aws-iam-authenticator's server only calls
// https://sts[.<region>].amazonaws.com/. Every request is recorded.
//
// It is strict where a real AWS is:
// - ECR calls must carry a valid SigV4 signature (AWS4-HMAC-SHA256, service
//   "ecr", the region in the credential scope) made with a key it issued: an
//   IAM user's static key, or STS session credentials (then the
//   X-Amz-Security-Token must be that session's and unexpired).
// - AssumeRoleWithWebIdentity verifies the web identity token (RS256) against
//   the cluster's OIDC discovery document and JWKS (issuer, signature, expiry),
//   requires an audience from its list (like an IAM OIDC provider's client IDs),
//   and the role's trust policy must name the token's subject.
// - GetAuthorizationToken answers base64("AWS:<password>") for the caller's
//   account in the signed region, with an expiry the test controls per region.
// - GetCallerIdentity (header-signed POST, or a presigned GET as in an
//   aws-iam-authenticator token) needs a valid signature by a key it issued, a
//   credential scope for STS in the region of the hostname it was sent to, and an
//   X-Amz-Date no more than 15 minutes old (STS's window for presigned
//   GetCallerIdentity, whatever X-Amz-Expires says) and not in the future. It
//   answers the caller's account, ARN and user ID, as JSON when asked (Accept:
//   application/json, as the authenticator asks) and as XML otherwise. It knows
//   nothing of x-k8s-aws-id, as STS does not: a token for another cluster fails
//   only because the header the authenticator sends differs from the one signed.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
} from 'jose';
import type { FakeAwsEndpoints } from './ecr.ts';
import {
  msToAmzDate,
  parsePresignedQuery,
  parseSigV4,
  presignedSignatureValid,
  queryPairs,
  safeEqual,
  sha256,
  sigV4Signature,
} from '../../api/aws/sigv4.ts';
import { STS_PRESIGN_WINDOW_MS, stsRegionOfHost } from '../../api/aws/sts.ts';

export const ECR_TARGET = 'AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken';

export interface IamUser {
  name: string;
  account: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface Role {
  /** arn:aws:iam::<account>:role/<name> */
  arn: string;
  /** Trust policy: token subjects (system:serviceaccount:<ns>:<sa>) that may assume it. */
  subjects: string[];
}

export interface OidcTrust {
  /** The discovery document's issuer: the token's iss must equal it. */
  issuer: string;
  jwks: JSONWebKeySet;
}

export interface FakeAwsOptions {
  users?: IamUser[];
  /** Without it, every ECR call is refused. */
  ecr?: {
    /** The registry password a new token carries (called for every token issued). */
    password(ctx: { region: string; account: string; principal: string }): string | Promise<string>;
    /** How long a token issued in `region` lives, ms. */
    lifetimeMs(region: string): number;
  };
  sts?: {
    /** The cluster's issuer and keys; may be given later (trustOidc), once the cluster is up. */
    oidc?: OidcTrust;
    /** Accepted token audiences (an IAM OIDC provider's client ID list). */
    audiences: string[];
    roles: Role[];
    /** Session lifetime when the caller asks none (AWS default 3600). */
    sessionSeconds?: number;
  };
  /** JSONL copy of every request record. */
  logFile?: string;
  clock?: () => number;
}

export interface TokenClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp?: number;
  iat?: number;
  kid?: string;
  pod?: string;
  serviceAccount?: string;
}

/** One request as the fake saw it; no secret is kept (passwords as a sha256 prefix, tokens as their claims). */
export interface FakeAwsRequest {
  seq: number;
  time: string;
  service: 'ecr' | 'sts' | 'other';
  method: string;
  path: string;
  /** ECR target operation or STS Action. */
  operation?: string;
  /** From the SigV4 credential scope. */
  region?: string;
  accessKeyId?: string;
  /** Who signed: an IAM user's or an assumed role's ARN. */
  principal?: string;
  /** expired / not-yet-valid: a presigned request outside STS's window around its X-Amz-Date. */
  signature?: 'valid' | 'invalid' | 'absent' | 'unknown-key' | 'expired-session' | 'expired' | 'not-yet-valid';
  status: number;
  error?: { code: string; message: string };
  ecr?: { account: string; expiresAt: string; lifetimeS: number; passwordSha256: string; proxyEndpoint: string };
  sts?: {
    roleArn?: string;
    sessionName?: string;
    tokenClaims?: TokenClaims;
    issued?: { accessKeyId: string; expiresAt: string; assumedRoleArn: string };
    /** GetCallerIdentity: who the caller is. */
    caller?: { arn: string; account: string; userId: string };
    /** A presigned request: when it was signed, over which headers, for how long it says it is valid. */
    presigned?: { amzDate: string; expiresSeconds: number; signedHeaders: string[] };
    /** The Host the request was sent to (https endpoints: the STS hostname). */
    host?: string;
    /** The x-k8s-aws-id header as sent (aws-iam-authenticator's cluster id; STS itself ignores it). */
    k8sAwsId?: string;
  };
  userAgent?: string;
}

/** Who signed a request, and how that went. */
interface AuthResult {
  signature: NonNullable<FakeAwsRequest['signature']>;
  region?: string;
  accessKeyId?: string;
  session?: Session;
  /** A presigned request's SigV4 parameters (evidence). */
  presigned?: NonNullable<FakeAwsRequest['sts']>['presigned'];
  /** A refusal with AWS's own status, code and wording, where the generic one would not do. */
  error?: { status: number; code: string; message: string };
}

interface Session {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  principal: string;
  account: string;
  /** GetCallerIdentity's UserId: AIDA… for a user, AROA…:<session> for an assumed role. */
  userId: string;
  expiresAt?: number;
}

export class FakeAws {
  private readonly o: FakeAwsOptions;
  private readonly keys = new Map<string, Session>();
  private readonly log: FakeAwsRequest[] = [];
  private readonly servers: Server[] = [];
  private seq = 0;
  private jwks: ReturnType<typeof createLocalJWKSet> | undefined;
  endpoints: FakeAwsEndpoints | undefined;

  constructor(o: FakeAwsOptions) {
    this.o = o;
    for (const u of o.users ?? [])
      this.keys.set(u.accessKeyId, {
        ...u,
        principal: `arn:aws:iam::${u.account}:user/${u.name}`,
        userId: stableId('AIDA', u.accessKeyId),
      });
    if (o.sts?.oidc) this.trustOidc(o.sts.oidc);
  }

  /** Trust this issuer's keys for AssumeRoleWithWebIdentity (an IAM OIDC identity provider). */
  trustOidc(oidc: OidcTrust): void {
    if (!this.o.sts) throw new Error('this fake AWS has no STS configured');
    this.o.sts.oidc = oidc;
    this.jwks = createLocalJWKSet(oidc.jwks);
  }

  private now(): number {
    return (this.o.clock ?? Date.now)();
  }

  async start(): Promise<FakeAwsEndpoints> {
    if (this.endpoints) return this.endpoints;
    const [ecr, sts, other] = await Promise.all([this.listen('ecr'), this.listen('sts'), this.listen('other')]);
    this.endpoints = { ecr, sts, other };
    return this.endpoints;
  }

  /**
   * STS over https on `address:port` (443 for a real STS hostname the caller maps to
   * `address`), with a certificate the caller made for that hostname. The region a
   * request must be signed for is taken from the Host it was sent to.
   */
  async serveStsTls(o: {
    address: string;
    port?: number;
    certPem: string;
    keyPem: string;
  }): Promise<{ address: string; port: number }> {
    const server = createTlsServer({ cert: o.certPem, key: o.keyPem }, (req, res) => this.dispatch('sts', req, res));
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      server.once('error', (err) => {
        this.servers.splice(this.servers.indexOf(server), 1);
        reject(err);
      });
      server.listen(o.port ?? 443, o.address, () =>
        resolve({ address: o.address, port: (server.address() as AddressInfo).port }),
      );
    });
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.servers.splice(0).map(
        (s) =>
          new Promise<void>((r) => {
            s.close(() => r());
            s.closeAllConnections();
          }),
      ),
    );
    this.endpoints = undefined;
  }

  /** Every request so far, oldest first. */
  requests(filter: Partial<Pick<FakeAwsRequest, 'service' | 'operation'>> = {}): FakeAwsRequest[] {
    return this.log.filter(
      (r) =>
        (filter.service === undefined || r.service === filter.service) &&
        (filter.operation === undefined || r.operation === filter.operation),
    );
  }

  private dispatch(service: FakeAwsRequest['service'], req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.handle(service, req, Buffer.concat(chunks), res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`credprov fake AWS: ${err instanceof Error ? err.message : String(err)}`);
      });
    });
  }

  private listen(service: FakeAwsRequest['service']): Promise<string> {
    const server = createServer((req, res) => this.dispatch(service, req, res));
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    });
  }

  private record(r: Omit<FakeAwsRequest, 'seq' | 'time'>): FakeAwsRequest {
    const rec: FakeAwsRequest = { seq: ++this.seq, time: new Date(this.now()).toISOString(), ...r };
    this.log.push(rec);
    if (this.o.logFile) appendFileSync(this.o.logFile, `${JSON.stringify(rec)}\n`);
    return rec;
  }

  private async handle(
    service: FakeAwsRequest['service'],
    req: IncomingMessage,
    body: Buffer,
    res: ServerResponse,
  ): Promise<void> {
    const base = {
      service,
      method: req.method ?? 'GET',
      path: withoutQuerySecrets(req.url ?? '/'),
      ...(req.headers['user-agent'] ? { userAgent: String(req.headers['user-agent']).slice(0, 160) } : {}),
    };
    if (service === 'ecr') return this.handleEcr(req, body, res, base);
    if (service === 'sts') return this.handleSts(req, body, res, base);
    const target = req.headers['x-amz-target'];
    const error = {
      code: 'AccessDeniedException',
      message: 'credprov fake AWS: this endpoint serves no AWS service; the plugin must only call ECR and STS',
    };
    this.record({ ...base, ...(target ? { operation: String(target) } : {}), ...sigScope(req), status: 403, error });
    json(res, 403, { __type: error.code, message: error.message });
  }

  private async handleEcr(
    req: IncomingMessage,
    body: Buffer,
    res: ServerResponse,
    base: Pick<FakeAwsRequest, 'service' | 'method' | 'path' | 'userAgent'>,
  ): Promise<void> {
    const operation = String(req.headers['x-amz-target'] ?? '');
    const auth = this.authenticate(req, body, 'ecr');
    const common = {
      ...base,
      operation,
      ...(auth.region ? { region: auth.region } : {}),
      ...(auth.accessKeyId ? { accessKeyId: auth.accessKeyId } : {}),
      ...(auth.session ? { principal: auth.session.principal } : {}),
      signature: auth.signature,
    };
    const refuse = (status: number, code: string, message: string) => {
      this.record({ ...common, status, error: { code, message } });
      json(res, status, { __type: code, message });
    };
    if (auth.signature !== 'valid' || !auth.session || !auth.region) {
      const [code, message] =
        auth.signature === 'expired-session'
          ? ['ExpiredTokenException', 'The security token included in the request is expired']
          : auth.signature === 'invalid'
            ? [
                'InvalidSignatureException',
                'The request signature we calculated does not match the signature you provided.',
              ]
            : auth.signature === 'absent'
              ? ['MissingAuthenticationTokenException', 'Missing Authentication Token']
              : ['UnrecognizedClientException', 'The security token included in the request is invalid.'];
      return refuse(400, code!, message!);
    }
    if (operation !== ECR_TARGET)
      return refuse(400, 'UnknownOperationException', `credprov fake ECR serves only ${ECR_TARGET}`);
    if (!this.o.ecr)
      return refuse(400, 'RepositoryNotFoundException', 'credprov fake AWS: this lab serves no ECR registry');
    const session = auth.session;
    const region = auth.region;
    const password = await this.o.ecr.password({ region, account: session.account, principal: session.principal });
    const lifetimeMs = this.o.ecr.lifetimeMs(region);
    const expiresAt = this.now() + lifetimeMs;
    const proxyEndpoint = `https://${session.account}.dkr.ecr.${region}.amazonaws.com`;
    this.record({
      ...common,
      status: 200,
      ecr: {
        account: session.account,
        expiresAt: new Date(expiresAt).toISOString(),
        lifetimeS: lifetimeMs / 1000,
        passwordSha256: sha256(password).slice(0, 12),
        proxyEndpoint,
      },
    });
    json(res, 200, {
      authorizationData: [
        {
          authorizationToken: Buffer.from(`AWS:${password}`).toString('base64'),
          expiresAt: expiresAt / 1000,
          proxyEndpoint,
        },
      ],
    });
  }

  private async handleSts(
    req: IncomingMessage,
    body: Buffer,
    res: ServerResponse,
    base: Pick<FakeAwsRequest, 'service' | 'method' | 'path' | 'userAgent'>,
  ): Promise<void> {
    const form = new URLSearchParams(body.toString('utf8'));
    const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
    if ((query.get('Action') ?? form.get('Action')) === 'GetCallerIdentity')
      return this.handleGetCallerIdentity(req, body, res, base);
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
    const common = { ...base, operation, ...sigScope(req), sts };
    const refuse = (status: number, code: string, message: string) => {
      this.record({ ...common, status, error: { code, message } });
      stsError(res, status, code, message);
    };
    if (operation !== 'AssumeRoleWithWebIdentity')
      return refuse(
        400,
        'InvalidAction',
        `credprov fake STS serves only AssumeRoleWithWebIdentity and GetCallerIdentity, not ${operation || '(none)'}`,
      );
    const cfg = this.o.sts;
    if (!cfg?.oidc || !this.jwks)
      return refuse(400, 'InvalidIdentityToken', 'No OpenIDConnect provider found in your account for this issuer');
    const oidc = cfg.oidc;
    if (!token) return refuse(400, 'ValidationError', 'WebIdentityToken is required');
    if (!roleArn || !sessionName) return refuse(400, 'ValidationError', 'RoleArn and RoleSessionName are required');
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks, {
        issuer: oidc.issuer,
        algorithms: ['RS256'],
        currentDate: new Date(this.now()),
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) return refuse(400, 'ExpiredTokenException', 'Token is expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'iss')
        return refuse(
          400,
          'InvalidIdentityToken',
          `No OpenIDConnect provider found in your account for ${String(claims?.iss)}`,
        );
      return refuse(
        400,
        'InvalidIdentityToken',
        `Couldn't verify the token against the issuer's keys: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const aud = Array.isArray(payload.aud) ? payload.aud : payload.aud === undefined ? [] : [payload.aud];
    if (!aud.some((a) => cfg.audiences.includes(a)))
      return refuse(
        400,
        'InvalidIdentityToken',
        `Incorrect token audience (token aud ${JSON.stringify(aud)}, accepted ${JSON.stringify(cfg.audiences)})`,
      );
    const role = cfg.roles.find((r) => r.arn === roleArn);
    if (!role || !role.subjects.includes(String(payload.sub))) {
      return refuse(
        403,
        'AccessDenied',
        `Not authorized to perform sts:AssumeRoleWithWebIdentity (role ${roleArn}${role ? ` does not trust ${String(payload.sub)}` : ' does not exist'})`,
      );
    }
    const m = /^arn:aws:iam::(\d{12}):role\/(.+)$/.exec(roleArn);
    if (!m) return refuse(400, 'ValidationError', `${roleArn} is not a role ARN`);
    const seconds = Number(form.get('DurationSeconds') ?? cfg.sessionSeconds ?? 3600);
    const expiresAt = this.now() + seconds * 1000;
    const roleId = stableId('AROA', roleArn);
    const session: Session = {
      accessKeyId: `ASIA${randomId(16)}`,
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(48).toString('base64'),
      account: m[1]!,
      principal: `arn:aws:sts::${m[1]}:assumed-role/${m[2]!.split('/').pop()}/${sessionName}`,
      userId: `${roleId}:${sessionName}`,
      expiresAt,
    };
    this.keys.set(session.accessKeyId, session);
    this.record({
      ...common,
      status: 200,
      sts: {
        ...sts,
        issued: {
          accessKeyId: session.accessKeyId,
          expiresAt: new Date(expiresAt).toISOString(),
          assumedRoleArn: session.principal,
        },
      },
    });
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(`<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>${xml(String(payload.sub))}</SubjectFromWebIdentityToken>
    <Audience>${xml(aud[0] ?? '')}</Audience>
    <AssumedRoleUser><Arn>${xml(session.principal)}</Arn><AssumedRoleId>${xml(session.userId)}</AssumedRoleId></AssumedRoleUser>
    <Credentials>
      <SessionToken>${session.sessionToken}</SessionToken>
      <SecretAccessKey>${session.secretAccessKey}</SecretAccessKey>
      <Expiration>${new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, 'Z')}</Expiration>
      <AccessKeyId>${session.accessKeyId}</AccessKeyId>
    </Credentials>
    <Provider>${xml(oidc.issuer)}</Provider>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata><RequestId>${randomUUIDish()}</RequestId></ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>
`);
  }

  private async handleGetCallerIdentity(
    req: IncomingMessage,
    body: Buffer,
    res: ServerResponse,
    base: Pick<FakeAwsRequest, 'service' | 'method' | 'path' | 'userAgent'>,
  ): Promise<void> {
    const host = String(req.headers.host ?? '');
    const k8sAwsId = req.headers['x-k8s-aws-id'];
    const wantsJson = /application\/json/.test(String(req.headers.accept ?? ''));
    const presigned = req.method === 'GET';
    const auth = presigned ? this.authenticatePresigned(req) : this.authenticate(req, body, 'sts');
    const hostRegion = stsRegionOfHost(host);
    // STS at sts.<region>.amazonaws.com takes only signatures scoped to <region>.
    const wrongRegion = !!auth.region && !!hostRegion && auth.region !== hostRegion && auth.signature !== 'unknown-key';
    const sts: NonNullable<FakeAwsRequest['sts']> = {
      ...(host ? { host } : {}),
      ...(k8sAwsId !== undefined ? { k8sAwsId: String(k8sAwsId) } : {}),
      ...(auth.presigned ? { presigned: auth.presigned } : {}),
    };
    const common = {
      ...base,
      operation: 'GetCallerIdentity',
      ...(auth.region ? { region: auth.region } : {}),
      ...(auth.accessKeyId ? { accessKeyId: auth.accessKeyId } : {}),
      ...(auth.session ? { principal: auth.session.principal } : {}),
      signature: wrongRegion ? ('invalid' as const) : auth.signature,
      sts,
    };
    const refuse = (status: number, code: string, message: string) => {
      this.record({ ...common, status, error: { code, message } });
      if (wantsJson)
        return sendJson(res, status, {
          Error: { Code: code, Message: message, Type: 'Sender' },
          RequestId: randomUUIDish(),
        });
      stsError(res, status, code, message);
    };
    if (auth.error) return refuse(auth.error.status, auth.error.code, auth.error.message);
    if (auth.signature === 'absent')
      return refuse(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
    if (auth.signature === 'unknown-key')
      return refuse(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
    if (wrongRegion)
      return refuse(
        403,
        'SignatureDoesNotMatch',
        `Credential should be scoped to a valid region, not '${auth.region}'. `,
      );
    if (auth.signature === 'invalid' || !auth.session)
      return refuse(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
      );
    if (auth.signature === 'expired-session')
      return refuse(403, 'ExpiredToken', 'The security token included in the request is expired');
    const s = auth.session;
    const caller = { arn: s.principal, account: s.account, userId: s.userId };
    this.record({ ...common, status: 200, sts: { ...sts, caller } });
    const requestId = randomUUIDish();
    if (wantsJson)
      return sendJson(res, 200, {
        GetCallerIdentityResponse: {
          GetCallerIdentityResult: { Account: caller.account, Arn: caller.arn, UserId: caller.userId },
          ResponseMetadata: { RequestId: requestId },
        },
      });
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(`<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <GetCallerIdentityResult>
    <Arn>${xml(caller.arn)}</Arn>
    <UserId>${xml(caller.userId)}</UserId>
    <Account>${caller.account}</Account>
  </GetCallerIdentityResult>
  <ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata>
</GetCallerIdentityResponse>
`);
  }

  /** SigV4 in the query (a presigned URL) against the keys this fake issued, inside STS's window around X-Amz-Date. */
  private authenticatePresigned(req: IncomingMessage): AuthResult {
    const [path = '/', rawQuery = ''] = (req.url ?? '/').split('?', 2) as [string?, string?];
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
    const session = this.keys.get(p.accessKeyId);
    if (!session) return { signature: 'unknown-key', ...scoped };
    const now = this.now();
    if (p.scope.service !== 'sts' || p.scope.date !== p.amzDate.slice(0, 8))
      return { signature: 'invalid', ...scoped, session };
    if (
      !presignedSignatureValid({
        method: req.method ?? 'GET',
        path,
        query,
        headers: req.headers,
        presigned: p,
        secretAccessKey: session.secretAccessKey,
      })
    )
      return { signature: 'invalid', ...scoped, session };
    // STS's own wording for a presigned request outside its window.
    if (now > p.signedAtMs + STS_PRESIGN_WINDOW_MS) {
      return {
        signature: 'expired',
        ...scoped,
        session,
        error: {
          status: 403,
          code: 'SignatureDoesNotMatch',
          message: `Signature expired: ${p.amzDate} is now earlier than ${msToAmzDate(now - STS_PRESIGN_WINDOW_MS)} (${msToAmzDate(now)} - 15 min.)`,
        },
      };
    }
    if (p.signedAtMs > now + STS_PRESIGN_WINDOW_MS) {
      return {
        signature: 'not-yet-valid',
        ...scoped,
        session,
        error: {
          status: 403,
          code: 'SignatureDoesNotMatch',
          message: `Signature not yet current: ${p.amzDate} is still later than ${msToAmzDate(now + STS_PRESIGN_WINDOW_MS)} (${msToAmzDate(now)} + 15 min.)`,
        },
      };
    }
    if (session.sessionToken !== undefined) {
      if (p.securityToken !== session.sessionToken) return { signature: 'invalid', ...scoped, session };
      if (session.expiresAt !== undefined && now > session.expiresAt)
        return { signature: 'expired-session', ...scoped, session };
    }
    return { signature: 'valid', ...scoped, session };
  }

  /** SigV4 (header form) against the keys this fake issued. */
  private authenticate(req: IncomingMessage, body: Buffer, service: string): AuthResult {
    const header = String(req.headers.authorization ?? '');
    const parsed = parseSigV4(header);
    if (!parsed) return { signature: 'absent' };
    const { accessKeyId, region } = parsed;
    const session = this.keys.get(accessKeyId);
    if (!session) return { signature: 'unknown-key', accessKeyId, region };
    if (parsed.service !== service) return { signature: 'invalid', accessKeyId, region, session };
    const expected = sigV4Signature({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body,
      parsed,
      secretAccessKey: session.secretAccessKey,
    });
    if (!safeEqual(expected, parsed.signature)) return { signature: 'invalid', accessKeyId, region, session };
    if (session.sessionToken !== undefined) {
      if (String(req.headers['x-amz-security-token'] ?? '') !== session.sessionToken)
        return { signature: 'invalid', accessKeyId, region, session };
      if (session.expiresAt !== undefined && this.now() > session.expiresAt)
        return { signature: 'expired-session', accessKeyId, region, session };
    }
    return { signature: 'valid', accessKeyId, region, session };
  }
}

/** An IAM user with fresh keys (AKIA…). */
export function newIamUser(name: string, account: string): IamUser {
  return { name, account, accessKeyId: `AKIA${randomId(16)}`, secretAccessKey: randomBytes(30).toString('base64') };
}

function sigScope(req: IncomingMessage): Pick<FakeAwsRequest, 'region' | 'accessKeyId'> {
  const p = parseSigV4(String(req.headers.authorization ?? ''));
  return p ? { region: p.region, accessKeyId: p.accessKeyId } : {};
}

/** Claims worth keeping as evidence (never the token itself). */
export function claimsOf(token: string): TokenClaims | undefined {
  try {
    const c = decodeJwt(token) as Record<string, unknown>;
    const k8s = (c['kubernetes.io'] ?? {}) as { pod?: { name?: string }; serviceaccount?: { name?: string } };
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      kid = undefined;
    }
    return {
      ...(typeof c.iss === 'string' ? { iss: c.iss } : {}),
      ...(typeof c.sub === 'string' ? { sub: c.sub } : {}),
      ...(c.aud !== undefined ? { aud: c.aud as string | string[] } : {}),
      ...(typeof c.exp === 'number' ? { exp: c.exp } : {}),
      ...(typeof c.iat === 'number' ? { iat: c.iat } : {}),
      ...(kid ? { kid } : {}),
      ...(k8s.pod?.name ? { pod: k8s.pod.name } : {}),
      ...(k8s.serviceaccount?.name ? { serviceAccount: k8s.serviceaccount.name } : {}),
    };
  } catch {
    return undefined;
  }
}

/** An IAM-style unique ID (AIDA…, AROA…) derived from a key or ARN, so it is the same on every call. */
function stableId(prefix: string, of: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  return (
    prefix + Array.from(Buffer.from(sha256(of), 'hex').subarray(0, 17), (b) => alphabet[b % alphabet.length]).join('')
  );
}

function randomId(n: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  return Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
}

function randomUUIDish(): string {
  return randomBytes(16)
    .toString('hex')
    .replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUIDish() });
  res.end(JSON.stringify(body));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  const type =
    status >= 400 && body && typeof body === 'object' && '__type' in body
      ? { 'x-amzn-errortype': String((body as { __type: string }).__type) }
      : {};
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUIDish(), ...type });
  res.end(text);
}

function stsError(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'text/xml' });
  res.end(`<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error><Type>Sender</Type><Code>${xml(code)}</Code><Message>${xml(message)}</Message></Error>
  <RequestId>${randomUUIDish()}</RequestId>
</ErrorResponse>
`);
}

/**
 * A presigned URL's signature (and session token) is a credential while its window lasts (an EKS token
 * is that URL): the request log keeps that they were there, never their value.
 */
export function withoutQuerySecrets(url: string): string {
  return url.replace(/([?&]X-Amz-(?:Signature|Security-Token)=)[^&]*/gi, '$1(not kept)');
}
