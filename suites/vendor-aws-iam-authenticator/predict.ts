// credprov's predictions for the vendor-aws-iam-authenticator cases: the
// authenticator + STS model (src/model/aws-iam-authenticator.ts) for the token
// a user sends, and the plugin's code (cited) for what it answers. Pure: the
// presigner, the model's view of the lab and the times come in as arguments.
//
// A plugin user's token does not exist before kubectl runs the plugin, so the
// prediction is made for the token the plugin will print: credprov's presigner
// with that profile's keys and cluster id, now (it reproduces the plugin's
// tokens byte for byte: sigv4.test.ts).
import {
  PLUGIN_EXPIRY_AFTER_SIGNING_MS,
  predictTokenReview,
  type AuthenticatorSetup,
  type TokenReviewVerdict,
} from '../../src/model/aws-iam-authenticator.ts';
import { IAM_AUTHENTICATOR_SOURCE } from '../../src/plugin/vendors/aws-iam-authenticator.ts';
import type { AwsKeys, IamAuthenticatorLab } from '../../src/plugin/vendors/iam-authenticator-lab.ts';
import type { Prediction } from '../../src/run/prediction.ts';
import { CRAFTED, otherClusterId, type CraftedToken, type UserPlan } from './plan.ts';

export const MODEL = 'authenticator + STS model (src/model/aws-iam-authenticator.ts)';
export const PLUGIN_MODEL = `${IAM_AUTHENTICATOR_SOURCE} (GetWithSTS, FormatJSON)`;

/** What presigns tokens as the plugin does (the lab; a test's own presigner). */
export type Presigner = Pick<IamAuthenticatorLab, 'presignToken' | 'keysOf' | 'clusterId'>;

/** The crafted tokens, each signed with the mapped user's keys `ageMs` before `startMs`. */
export function craftedTokens(presigner: Presigner, mapped: AwsKeys, startMs: number): Record<CraftedToken, string> {
  const sign = (c: { ageMs: number; clusterId?: null }) =>
    presigner.presignToken({
      user: mapped,
      signedAtMs: startMs - c.ageMs,
      ...(c.clusterId === null ? { clusterId: null } : {}),
    });
  return { control: sign(CRAFTED.control), expired: sign(CRAFTED.expired), unsignedId: sign(CRAFTED.unsignedId) };
}

/** The token `user` sends at `nowMs`: its crafted token, or what the plugin will print for its profile and cluster id. */
export function expectedToken(
  presigner: Presigner,
  user: UserPlan,
  nowMs: number,
  crafted: Record<CraftedToken, string>,
): string {
  if ('crafted' in user) return crafted[user.crafted];
  const keys = presigner.keysOf(user.profile);
  if (!keys) throw new Error(`profile ${user.profile} holds no keys to predict a token from`);
  const clusterId = 'otherCluster' in user ? { clusterId: otherClusterId(presigner.clusterId) } : {};
  return presigner.presignToken({ user: keys, signedAtMs: nowMs, ...clusterId });
}

/** kube-apiserver's answer for `token`, the authenticator's clock at `nowMs` and STS's `stsSkewMs` ahead. */
export function predictVerdict(
  token: string,
  setup: AuthenticatorSetup,
  nowMs: number,
  stsSkewMs = 0,
): Prediction<TokenReviewVerdict> {
  const p = predictTokenReview(token, setup, nowMs, nowMs + stsSkewMs);
  return { value: p.verdict, model: MODEL, because: p.because };
}

const sameGroups = (a: string[], b: string[]) => [...a].sort().join() === [...b].sort().join();

/** A 200 agrees on the user; a 401 on who refused and a fragment of why. */
export function agreeVerdict(p: TokenReviewVerdict, o: TokenReviewVerdict): boolean {
  if (p.status === 200 || o.status === 200) {
    return p.status === 200 && o.status === 200 && p.username === o.username && sameGroups(p.groups, o.groups);
  }
  return p.refusedBy === o.refusedBy && o.reason.includes(p.reason);
}

export interface Identity {
  username: string;
  groups: string[];
}

/** The mapped user's identity as `kubectl auth whoami` shows it. */
export function predictWhoami(token: string, setup: AuthenticatorSetup, nowMs: number): Prediction<Identity> {
  const p = predictTokenReview(token, setup, nowMs);
  const value =
    p.verdict.status === 200
      ? { username: p.verdict.username, groups: p.verdict.groups }
      : { username: '(none: 401)', groups: [] };
  return { value, model: MODEL, because: p.because };
}

export const sameIdentity = (p: Identity, o: Identity): boolean =>
  p.username === o.username && sameGroups(p.groups, o.groups);

/** A v1 user: client-go sends KUBERNETES_EXEC_INFO as the kubeconfig's version, the plugin answers in it. */
export function predictExecV1(
  configured: string,
  token: string,
  setup: AuthenticatorSetup,
  nowMs: number,
): Prediction<{ answered: string; status: number }> {
  const p = predictTokenReview(token, setup, nowMs);
  return {
    value: { answered: configured, status: p.verdict.status },
    model: `${PLUGIN_MODEL} + ${MODEL}`,
    because: `client-go sends KUBERNETES_EXEC_INFO as ${configured} and FormatJSON answers in its apiVersion; ${p.because}`,
  };
}

/** What the plugin's own failure says (GetWithOptions). */
export const NO_CREDENTIALS_SAYS = 'could not get token';

export interface NoCredentialsOutcome {
  pluginFailed: boolean;
  stderrSays: string;
  apiServerReached: boolean;
  imdsAskedOnLoopback: boolean;
}

export function predictNoCredentials(imdsEndpoint: string): Prediction<NoCredentialsOutcome> {
  return {
    value: { pluginFailed: true, stderrSays: NO_CREDENTIALS_SAYS, apiServerReached: false, imdsAskedOnLoopback: true },
    model: PLUGIN_MODEL,
    because:
      "no key in the profile or env, so the SDK's chain ends at IMDS, which the token command forces on " +
      `(its endpoint is the lab's catch-all, ${imdsEndpoint}); GetWithOptions prints "${NO_CREDENTIALS_SAYS}: …" and exits 1; ` +
      'client-go sends no request without a credential',
  };
}

/** expirationTimestamp against X-Amz-Date, in seconds: 14 min after signing, inside STS's 15. */
export function predictExpiry(): Prediction<number> {
  const predicted = PLUGIN_EXPIRY_AFTER_SIGNING_MS / 1000;
  return {
    value: predicted,
    model: PLUGIN_MODEL,
    because: `tokenExpiration = now + 15m - 1m for a URL presigned at now (whole seconds on both sides, so ${predicted}s or one more)`,
  };
}

/** The two "now"s are read microseconds apart; truncation to seconds can part them by one. */
export const expiryAgrees = (p: number, o: number): boolean => o === p || o === p + 1;
