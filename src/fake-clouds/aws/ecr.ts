// ECR's GetAuthorizationToken: a SigV4 signature (service "ecr", the region in
// the credential scope) by a key fake AWS issued, an IAM user's or an assumed
// role's session (then X-Amz-Security-Token must be that session's, unexpired).
// It answers base64("AWS:<password>") for the caller's account in the signed
// region, with the expiry the test sets for that region.
import { Refusal, type Endpoint } from '../kit/index.ts';
import { sha256 } from '../../api/aws/sigv4.ts';
import { awsJson, awsJsonRefusal } from './errors.ts';
import type { IamKeys } from './iam.ts';
import { withoutQuerySecrets, type FakeAwsRequest } from './records.ts';
import { headerSignature, type SignatureVerdict } from './signature.ts';

export const ECR_TARGET = 'AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken';

export interface EcrRules {
  /** The registry password a new token carries (called for every token issued). */
  password(ctx: { region: string; account: string; principal: string }): string | Promise<string>;
  /** How long a token issued in `region` lives, ms. */
  lifetimeMs(region: string): number;
}

/** ECR's refusal for a request it cannot authenticate. */
const AUTH_REFUSALS: Partial<Record<SignatureVerdict, [string, string]>> = {
  'expired-session': ['ExpiredTokenException', 'The security token included in the request is expired'],
  invalid: [
    'InvalidSignatureException',
    'The request signature we calculated does not match the signature you provided.',
  ],
  absent: ['MissingAuthenticationTokenException', 'Missing Authentication Token'],
};
const UNRECOGNIZED: [string, string] = [
  'UnrecognizedClientException',
  'The security token included in the request is invalid.',
];

export function ecrEndpoint(o: {
  keys: IamKeys;
  ecr: EcrRules | undefined;
  now: () => number;
}): Endpoint<FakeAwsRequest> {
  return {
    record: (req) => ({ service: 'ecr', path: withoutQuerySecrets(req.target) }),
    refuse: awsJsonRefusal,
    async answer(req, note) {
      const operation = req.header('x-amz-target') ?? '';
      const auth = headerSignature(req, o.keys, 'ecr', o.now());
      note({
        operation,
        ...(auth.region ? { region: auth.region } : {}),
        ...(auth.accessKeyId ? { accessKeyId: auth.accessKeyId } : {}),
        ...(auth.session ? { principal: auth.session.principal } : {}),
        signature: auth.signature,
      });
      if (auth.signature !== 'valid' || !auth.session || !auth.region) {
        const [code, message] = AUTH_REFUSALS[auth.signature] ?? UNRECOGNIZED;
        throw new Refusal(400, code, message);
      }
      if (operation !== ECR_TARGET)
        throw new Refusal(400, 'UnknownOperationException', `credprov fake ECR serves only ${ECR_TARGET}`);
      if (!o.ecr)
        throw new Refusal(400, 'RepositoryNotFoundException', 'credprov fake AWS: this lab serves no ECR registry');
      const { account, principal } = auth.session;
      const region = auth.region;
      const password = await o.ecr.password({ region, account, principal });
      const lifetimeMs = o.ecr.lifetimeMs(region);
      const expiresAt = o.now() + lifetimeMs;
      const proxyEndpoint = `https://${account}.dkr.ecr.${region}.amazonaws.com`;
      note({
        ecr: {
          account,
          expiresAt: new Date(expiresAt).toISOString(),
          lifetimeS: lifetimeMs / 1000,
          passwordSha256: sha256(password).slice(0, 12),
          proxyEndpoint,
        },
      });
      return awsJson(200, {
        authorizationData: [
          {
            authorizationToken: Buffer.from(`AWS:${password}`).toString('base64'),
            expiresAt: expiresAt / 1000,
            proxyEndpoint,
          },
        ],
      });
    },
  };
}
