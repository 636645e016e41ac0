// What fake AWS records of each request: no secret is kept (passwords as a
// sha256 prefix, tokens as their claims, a presigned URL's signature not at all).
import type { TokenClaims } from '../kit/index.ts';
import type { SignatureVerdict } from './signature.ts';

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
  signature?: SignatureVerdict;
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

/**
 * A presigned URL's signature (and session token) is a credential while its window lasts (an EKS token
 * is that URL): the request log keeps that they were there, never their value.
 */
export function withoutQuerySecrets(url: string): string {
  return url.replace(/([?&]X-Amz-(?:Signature|Security-Token)=)[^&]*/gi, '$1(not kept)');
}
