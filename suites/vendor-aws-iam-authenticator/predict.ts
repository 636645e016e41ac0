// credprov's predictions for the vendor-aws-iam-authenticator cases: the
// authenticator + STS model (src/model/aws-iam-authenticator.ts) for the token
// a user sends, and the plugin's code (cited) for what it answers. Pure: the
// presigner, the model's view of the lab and the times come in as arguments.
//
// A plugin user's token does not exist before kubectl runs the plugin, so the
// prediction is made for the token the plugin will print: credprov's presigner
// with that profile's keys and cluster id, now (it reproduces the plugin's
// tokens byte for byte: sigv4.test.ts).
import { createHash } from 'node:crypto';
import {
  describeToken,
  predictTokenReview,
  TOKEN_PREFIX,
  type AuthenticatorSetup,
  type TokenDescription,
  type TokenReviewVerdict,
} from '../../src/model/aws-iam-authenticator.ts';
import { TOKEN_COMMAND_MODELS, type TokenCommand } from '../../src/model/eks-token-commands.ts';
import { CRAFTED, otherClusterId, type CraftedToken, type UserPlan } from './plan.ts';
import { type AwsKeys, type IamAuthenticatorLab, type Prediction } from '../../src/run/kit.ts';

export const MODEL = 'authenticator + STS model (src/model/aws-iam-authenticator.ts)';
/** The token command's model (src/model/eks-token-commands.ts) and where its facts are in its source. */
export const commandModel = (via: TokenCommand): string => `token command model: ${TOKEN_COMMAND_MODELS[via].source}`;

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

/** A user whose token a command makes (not a crafted one). */
export type ExecUserPlan = Exclude<UserPlan, { crafted: CraftedToken }>;

/** What the command will print for `user`'s profile and cluster id when it signs at `signedAtMs`. */
export function commandToken(presigner: Presigner, user: ExecUserPlan, signedAtMs: number): string {
  const keys = presigner.keysOf(user.profile);
  if (!keys) throw new Error(`profile ${user.profile} holds no keys to predict a token from`);
  const clusterId = 'otherCluster' in user ? { clusterId: otherClusterId(presigner.clusterId) } : {};
  return presigner.presignToken({ user: keys, signedAtMs, ...clusterId });
}

/** The token `user` sends at `nowMs`: its crafted token, or what the command will print. */
export function expectedToken(
  presigner: Presigner,
  user: UserPlan,
  nowMs: number,
  crafted: Record<CraftedToken, string>,
): string {
  return 'crafted' in user ? crafted[user.crafted] : commandToken(presigner, user, nowMs);
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
  via: TokenCommand,
  configured: string,
  token: string,
  setup: AuthenticatorSetup,
  nowMs: number,
): Prediction<{ answered: string; status: number }> {
  const p = predictTokenReview(token, setup, nowMs);
  return {
    value: { answered: configured, status: p.verdict.status },
    model: `${commandModel(via)} + ${MODEL}`,
    because: `client-go sends KUBERNETES_EXEC_INFO as ${configured} and ${TOKEN_COMMAND_MODELS[via].shown} answers in its apiVersion; ${p.because}`,
  };
}

export interface NoCredentialsOutcome {
  /** null: it did not run. */
  pluginExitCode: number | null;
  stderrSays: string;
  apiServerReached: boolean;
  imdsAskedOnLoopback: boolean;
}

/** A profile without keys: the command's own failure, as kubectl meets it. */
export function predictNoCredentials(via: TokenCommand, imdsEndpoint: string): Prediction<NoCredentialsOutcome> {
  const m = TOKEN_COMMAND_MODELS[via].noCredentials;
  return {
    value: { pluginExitCode: m.exitCode, stderrSays: m.says, apiServerReached: false, imdsAskedOnLoopback: m.asksImds },
    model: commandModel(via),
    because:
      `no key in the profile or env: ${m.because}` +
      (m.asksImds ? ` (IMDS is the lab's catch-all, ${imdsEndpoint})` : '') +
      '; client-go sends no request without a credential',
  };
}

/** expirationTimestamp against X-Amz-Date, in seconds: 14 min after signing, inside STS's 15. */
export function predictExpiry(via: TokenCommand): Prediction<number> {
  const predicted = TOKEN_COMMAND_MODELS[via].expiryAfterSigningMs / 1000;
  return {
    value: predicted,
    model: commandModel(via),
    because: `expirationTimestamp = ${predicted}s after a URL presigned at the same moment (whole seconds on both sides, so ${predicted}s or one more)`,
  };
}

/** The two "now"s are read microseconds apart; truncation to seconds can part them by one. */
export const expiryAgrees = (p: number, o: number): boolean => o === p || o === p + 1;

/** A token as the report may show it: what it says, its query's order, and a fingerprint of its bytes. */
export type TokenShape = (TokenDescription | { malformed: string }) & { queryOrder: string[]; fingerprint: string };

export function tokenShape(token: string): TokenShape {
  let queryOrder: string[] = [];
  try {
    const url = new URL(Buffer.from(token.slice(TOKEN_PREFIX.length), 'base64url').toString('utf8'));
    queryOrder = [...url.searchParams.keys()];
  } catch {
    // describeToken says why.
  }
  // 64 bits of SHA-256: tells two tokens apart, reveals nothing of either.
  const fingerprint = createHash('sha256').update(token).digest('hex').slice(0, 16);
  return { ...describeToken(token), queryOrder, fingerprint };
}

/**
 * The token the command printed, predicted: credprov's presigner with the profile's keys, the
 * cluster id and the X-Amz-Date the command used (the only input credprov cannot know before).
 */
export function predictTokenBytes(
  presigner: Presigner,
  user: ExecUserPlan,
  signedAtMs: number,
): Prediction<TokenShape> {
  return {
    value: tokenShape(commandToken(presigner, user, signedAtMs)),
    model: 'credprov SigV4 presigner (src/api/aws/sigv4.ts; AWS test vectors in sigv4.test.ts)',
    because:
      'GetCallerIdentity GET on the regional STS host, Action and Version, X-Amz-Expires 60, host and x-k8s-aws-id signed, ' +
      'parameters in the canonical (sorted) order',
  };
}
