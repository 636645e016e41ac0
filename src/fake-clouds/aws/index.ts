// Fake AWS on loopback for the real AWS plugins: ECR's GetAuthorizationToken
// (ecr.ts) and STS's AssumeRoleWithWebIdentity and GetCallerIdentity (sts.ts),
// each on its own 127.0.0.1 port over http (aws-sdk-go-v2 takes an explicit
// http:// endpoint from AWS_ENDPOINT_URL_<SERVICE> as is), plus a catch-all that
// refuses and records any other service the SDK might try. STS can also be served
// over https under a real STS hostname (serveStsTls): aws-iam-authenticator's
// server only calls https://sts[.<region>].amazonaws.com/. Every request is
// recorded (records.ts), without a secret.
import { FakeCloud, Refusal, TrustedIssuer, type Endpoint, type OidcTrust } from '../kit/index.ts';
import { ecrEndpoint, type EcrRules } from './ecr.ts';
import { awsJsonRefusal } from './errors.ts';
import { IamKeys, type IamUser } from './iam.ts';
import { withoutQuerySecrets, type FakeAwsRequest } from './records.ts';
import { claimedScope } from './signature.ts';
import { stsEndpoint, type StsRules } from './sts.ts';

export { ECR_TARGET } from './ecr.ts';
export { newIamUser, type IamUser, type Role } from './iam.ts';
export { withoutQuerySecrets, type FakeAwsRequest } from './records.ts';
export type { OidcTrust, TokenClaims } from '../kit/index.ts';

export interface FakeAwsOptions {
  users?: IamUser[];
  /** Without it, every ECR call is refused. */
  ecr?: EcrRules;
  sts?: StsRules & {
    /** The cluster's issuer and keys; may be given later (trustOidc), once the cluster is up. */
    oidc?: OidcTrust;
  };
  /** JSONL copy of every request record. */
  logFile?: string;
  clock?: () => number;
}

/** Where the plugin's SDK is sent: http://127.0.0.1:PORT of each fake service. */
export interface FakeAwsEndpoints {
  ecr: string;
  sts: string;
  /** Everything else (ECR public, SSO, IMDS…): a recording endpoint that refuses every call. */
  other: string;
}

/** Any other service: refused and recorded, so a plugin that strays is seen doing it. */
const catchAll: Endpoint<FakeAwsRequest> = {
  record: (req) => {
    const target = req.header('x-amz-target');
    return {
      service: 'other',
      path: withoutQuerySecrets(req.target),
      ...(target ? { operation: target } : {}),
      ...claimedScope(req),
    };
  },
  refuse: awsJsonRefusal,
  answer: () => {
    throw new Refusal(
      403,
      'AccessDeniedException',
      'credprov fake AWS: this endpoint serves no AWS service; the plugin must only call ECR and STS',
    );
  },
};

export class FakeAws {
  private readonly o: FakeAwsOptions;
  private readonly cloud: FakeCloud<FakeAwsRequest>;
  private readonly issuer = new TrustedIssuer();
  private readonly ecr: Endpoint<FakeAwsRequest>;
  private readonly sts: Endpoint<FakeAwsRequest>;
  endpoints: FakeAwsEndpoints | undefined;

  constructor(o: FakeAwsOptions) {
    this.o = o;
    this.cloud = new FakeCloud<FakeAwsRequest>({
      name: 'AWS',
      ...(o.logFile ? { logFile: o.logFile } : {}),
      ...(o.clock ? { clock: o.clock } : {}),
      errorOf: (r) => ({ code: r.code, message: r.message }),
    });
    const keys = new IamKeys(o.users);
    const now = this.cloud.now;
    this.ecr = ecrEndpoint({ keys, ecr: o.ecr, now });
    this.sts = stsEndpoint({ keys, sts: o.sts, issuer: this.issuer, now });
    if (o.sts?.oidc) this.trustOidc(o.sts.oidc);
  }

  /** Trust this issuer's keys for AssumeRoleWithWebIdentity (an IAM OIDC identity provider). */
  trustOidc(oidc: OidcTrust): void {
    if (!this.o.sts) throw new Error('this fake AWS has no STS configured');
    this.o.sts.oidc = oidc;
    this.issuer.set(oidc);
  }

  async start(): Promise<FakeAwsEndpoints> {
    if (this.endpoints) return this.endpoints;
    const [ecr, sts, other] = await Promise.all([this.ecr, this.sts, catchAll].map((e) => this.cloud.listen(e)));
    this.endpoints = { ecr: ecr!.url, sts: sts!.url, other: other!.url };
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
    const { address, port } = await this.cloud.listen(this.sts, {
      address: o.address,
      port: o.port ?? 443,
      tls: { certPem: o.certPem, keyPem: o.keyPem },
    });
    return { address, port };
  }

  async stop(): Promise<void> {
    await this.cloud.stop();
    this.endpoints = undefined;
  }

  /** Every request so far, oldest first. */
  requests(filter: Partial<Pick<FakeAwsRequest, 'service' | 'operation'>> = {}): FakeAwsRequest[] {
    return this.cloud
      .requests()
      .filter(
        (r) =>
          (filter.service === undefined || r.service === filter.service) &&
          (filter.operation === undefined || r.operation === filter.operation),
      );
  }
}
