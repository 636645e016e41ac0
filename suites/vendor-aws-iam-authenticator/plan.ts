// The vendor-aws-iam-authenticator suite's plan: the kubeconfig users kubectl
// runs as (a profile the plugin signs with, or a token credprov presigns), the
// token cases, and the times involved. Data only: no I/O.
import type { IamProfile } from '../../src/plugin/vendors/iam-authenticator-lab.ts';
import type { Check } from '../../src/report/model.ts';
import {
  CRAFTED_CONTROL,
  EXPIRED,
  MAPPED,
  OTHER_CLUSTER,
  STS_CLOCK,
  UNKNOWN_KEY,
  UNMAPPED,
  UNSIGNED_ID,
  WRONG_SECRET,
} from './checks.ts';

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

/** What a kubeconfig user carries: an exec of the plugin under a profile, or a crafted token. */
export type UserPlan = { profile: IamProfile; apiVersion?: 'v1'; otherCluster?: true } | { crafted: CraftedToken };

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

export const TOKEN_CASES = {
  mapped: { check: MAPPED, user: 'mapped' },
  unknownKey: { check: UNKNOWN_KEY, user: 'unknown-key' },
  wrongSecret: { check: WRONG_SECRET, user: 'wrong-secret' },
  unmapped: { check: UNMAPPED, user: 'unmapped' },
  otherCluster: { check: OTHER_CLUSTER, user: 'other-cluster' },
  craftedControl: { check: CRAFTED_CONTROL, user: 'crafted-control' },
  unsignedId: { check: UNSIGNED_ID, user: 'crafted-unsigned-id' },
  expired: { check: EXPIRED, user: 'crafted-expired' },
  stsWindow: { check: STS_CLOCK, user: 'mapped', stsSkewMs: STS_SKEW_MS },
} as const satisfies Record<string, TokenCasePlan>;
