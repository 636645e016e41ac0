// The two programs that make an EKS token for client-go, as credprov models
// them: aws-iam-authenticator's `token` (Go, aws-sdk-go-v2) and awscli's
// `aws eks get-token` (Python, botocore). Both presign the same STS
// GetCallerIdentity URL; they differ in how they fail and in which credential
// sources they try. Each fact is read from the program's source (cited).
import { STS_PRESIGN_WINDOW_MS } from '../api/aws/sts.ts';

export type TokenCommand = 'aws-iam-authenticator' | 'aws-eks-get-token';
export const TOKEN_COMMANDS: readonly TokenCommand[] = ['aws-iam-authenticator', 'aws-eks-get-token'];

export interface TokenCommandModel {
  /** As a kubeconfig user's exec runs it. */
  shown: string;
  /** Where the facts below are in its source. */
  source: string;
  /** expirationTimestamp minus the URL's X-Amz-Date. */
  expiryAfterSigningMs: number;
  /** The credential chain comes up empty (no keys in env or profile, IMDS disabled by env). */
  noCredentials: { exitCode: number; says: string; asksImds: boolean; because: string };
}

export const TOKEN_COMMAND_MODELS: Record<TokenCommand, TokenCommandModel> = {
  'aws-iam-authenticator': {
    shown: 'aws-iam-authenticator token -i <cluster id>',
    source: 'kubernetes-sigs/aws-iam-authenticator v0.7.18 pkg/token/token.go',
    // GetWithSTS: tokenExpiration = now + presignedURLExpiration(15m) - 1m.
    expiryAfterSigningMs: STS_PRESIGN_WINDOW_MS - 60_000,
    noCredentials: {
      exitCode: 1,
      says: 'could not get token',
      asksImds: true,
      because:
        'GetWithOptions builds its config WithEC2IMDSClientEnableState(ClientEnabled), overriding AWS_EC2_METADATA_DISABLED, ' +
        'so the chain ends at IMDS; then it prints "could not get token: …" and exits 1',
    },
  },
  'aws-eks-get-token': {
    shown: 'aws eks get-token --cluster-name <cluster id>',
    source: 'awscli 1.46.3 awscli/customizations/eks/get_token.py',
    // TOKEN_EXPIRATION_MINS = 14, from the clock read just after presigning.
    expiryAfterSigningMs: 14 * 60_000,
    noCredentials: {
      exitCode: 255,
      says: 'Unable to locate credentials',
      asksImds: false,
      because:
        "botocore's chain honours AWS_EC2_METADATA_DISABLED=true, so it ends without asking IMDS; " +
        'botocore.exceptions.NoCredentialsError is printed by the CLI driver, which exits 255',
    },
  },
};
