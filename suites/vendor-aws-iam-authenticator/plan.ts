// The vendor-aws-iam-authenticator suite's plan: the kubeconfig users kubectl
// runs as (a profile the plugin signs with, or a token credprov presigns), the
// token cases, and the times involved. Data only: no I/O.
import type { TokenCommand } from '../../src/model/eks-token-commands.ts';
import {
  AWS_CLI_TOKEN_CHECKS,
  CRAFTED_CONTROL,
  EXPIRED,
  GO_TOKEN_CHECKS,
  UNSIGNED_ID,
  type TokenCommandCheck,
} from './checks.ts';
import { type Check, type IamProfile } from '../../src/run/kit.ts';

/** A request every mapped user may make once RBAC gives its group the view role. */
export const PROBE_PATH = '/api/v1/namespaces/default/pods';
/** How far the STS clock jumps for IAM-STS-WINDOW-401 and how old the crafted expired token is: past the 15-minute window, short of anything else. */
export const STS_SKEW_MS = 16 * 60_000;
export const KUBECTL_TIMEOUT_MS = 60_000;
/** How long a new ClusterRoleBinding may take to reach the RBAC authorizer's informer. */
export const RBAC_TIMEOUT_MS = 30_000;

/** Tokens the plugin cannot make: credprov presigns them at the suite's start, each differing from the control in one thing. */
export const CRAFTED = {
  control: { ageMs: 0 },
  expired: { ageMs: STS_SKEW_MS },
  unsignedId: { ageMs: 0, clusterId: null },
} as const;
export type CraftedToken = keyof typeof CRAFTED;

/** What a kubeconfig user carries: an exec of a token command (default the Go plugin) under a profile, or a crafted token. */
export type UserPlan =
  { profile: IamProfile; apiVersion?: 'v1'; otherCluster?: true; via?: TokenCommand } | { crafted: CraftedToken };

export const USERS = {
  mapped: { profile: 'mapped' },
  'mapped-v1': { profile: 'mapped', apiVersion: 'v1' },
  unmapped: { profile: 'unmapped' },
  'unknown-key': { profile: 'unknown-key' },
  'wrong-secret': { profile: 'wrong-secret' },
  'no-credentials': { profile: 'no-credentials' },
  'other-cluster': { profile: 'mapped', otherCluster: true },
  'crafted-control': { crafted: 'control' },
  'crafted-expired': { crafted: 'expired' },
  'crafted-unsigned-id': { crafted: 'unsignedId' },
  'awscli-mapped': { profile: 'mapped', via: 'aws-eks-get-token' },
  'awscli-mapped-v1': { profile: 'mapped', apiVersion: 'v1', via: 'aws-eks-get-token' },
  'awscli-unmapped': { profile: 'unmapped', via: 'aws-eks-get-token' },
  'awscli-unknown-key': { profile: 'unknown-key', via: 'aws-eks-get-token' },
  'awscli-wrong-secret': { profile: 'wrong-secret', via: 'aws-eks-get-token' },
  'awscli-no-credentials': { profile: 'no-credentials', via: 'aws-eks-get-token' },
  'awscli-other-cluster': { profile: 'mapped', otherCluster: true, via: 'aws-eks-get-token' },
} as const satisfies Record<string, UserPlan>;
export type UserName = keyof typeof USERS;

/** The cluster id a user's plugin signs for when it is not the server's. */
export const otherClusterId = (clusterId: string): string => `${clusterId}-other`;

/** A token case: kubectl as `user` gets the probe path; the verdict is predicted for the token that user sends. */
export interface TokenCasePlan {
  check: Check;
  user: UserName;
  /** STS's clock ahead of the authenticator's by this much while the case runs. */
  stsSkewMs?: number;
}

/** The token cases of crafted tokens: no token command runs. */
export const CRAFTED_CASES = {
  craftedControl: { check: CRAFTED_CONTROL, user: 'crafted-control' },
  unsignedId: { check: UNSIGNED_ID, user: 'crafted-unsigned-id' },
  expired: { check: EXPIRED, user: 'crafted-expired' },
} as const satisfies Record<string, TokenCasePlan>;

/** Everything a token command's cases need: which users exec it, and its checks. */
export interface TokenCommandPlan {
  via: TokenCommand;
  checks: Record<TokenCommandCheck, Check>;
  users: { mapped: UserName; mappedV1: UserName; noCredentials: UserName };
  tokenCases: {
    mapped: TokenCasePlan;
    unknownKey: TokenCasePlan;
    wrongSecret: TokenCasePlan;
    unmapped: TokenCasePlan;
    otherCluster: TokenCasePlan;
    stsWindow: TokenCasePlan & { stsSkewMs: number };
  };
}

function commandPlan(via: TokenCommand, checks: Record<TokenCommandCheck, Check>, prefix: '' | 'awscli-') {
  const user = (name: string) => `${prefix}${name}` as UserName;
  return {
    via,
    checks,
    users: { mapped: user('mapped'), mappedV1: user('mapped-v1'), noCredentials: user('no-credentials') },
    tokenCases: {
      mapped: { check: checks.mapped, user: user('mapped') },
      unknownKey: { check: checks.unknownKey, user: user('unknown-key') },
      wrongSecret: { check: checks.wrongSecret, user: user('wrong-secret') },
      unmapped: { check: checks.unmapped, user: user('unmapped') },
      otherCluster: { check: checks.otherCluster, user: user('other-cluster') },
      stsWindow: { check: checks.stsWindow, user: user('mapped'), stsSkewMs: STS_SKEW_MS },
    },
  } satisfies TokenCommandPlan;
}

/** The Go plugin's cases, then the same with awscli's `aws eks get-token` making every token. */
export const TOKEN_COMMAND_PLANS: Record<TokenCommand, TokenCommandPlan> = {
  'aws-iam-authenticator': commandPlan('aws-iam-authenticator', GO_TOKEN_CHECKS, ''),
  'aws-eks-get-token': commandPlan('aws-eks-get-token', AWS_CLI_TOKEN_CHECKS, 'awscli-'),
};
