// credprov's predictions for the pull-secrets cases, without a cluster: the
// design text "Packaging APIs + Registry Auth" where credprov has no model, and
// the keyring model (src/model/pull-credentials.ts) for which credentials the
// kubelet offers, in what order, and whether the pull works. Each function
// returns the value the case compares with what the kubelet (or API server)
// did, in the shape the case observes it.
import { predictPull, type PullPrediction, type SecretSource } from '../../src/model/pull-credentials.ts';
import type { Prediction } from '../../src/run/kit.ts';
import {
  IMMUTABLE_SECRETS,
  LATE_SECRET,
  PROVIDER,
  SECRETS,
  imageOf,
  providerMatchImages,
  type AccountName,
  type SecretName,
} from './plan.ts';

export const DESIGN = 'design: Packaging APIs + Registry Auth (shared/seeds/004)';
export const MODEL =
  'pull-credentials model (src/model/pull-credentials.ts: kubelet secrets.go MakeDockerKeyring + kuberuntime_image.go PullImage)';

/** A pull as a case sees it: `error: <the kubelet's message>` when it failed for another reason than the registry's refusal. */
export type Pull = 'success' | 'failure' | `error: ${string}`;

/** What the predictions know of the world: the registry's host and the accounts' user names (only `right` works). */
export interface World {
  host: string;
  accounts: Record<AccountName, { username: string }>;
}

/** How the model and the cases name a credential's source. */
export const secretSource = (name: string): string => `secret ${name}`;
export const providerSource = (name: string): string => `provider ${name}`;

/** Auths for the registry with `account`'s user, or none (a placeholder). */
function auths(w: World, account: AccountName | undefined) {
  return account === undefined
    ? {}
    : { [w.host]: { username: w.accounts[account].username, works: account === 'right' } };
}

const secret = (w: World, name: SecretName): SecretSource => ({ name, auths: auths(w, SECRETS[name]) });

export interface MissingView {
  whileMissing: Pull;
  onceCreated: Pull;
}

/** MISSING_THEN_CREATED: the pod references LATE_SECRET (the right account) before it exists. */
export function predictMissingThenCreated(w: World): Prediction<MissingView> {
  const late = (exists: boolean): SecretSource => ({ name: LATE_SECRET, exists, auths: auths(w, 'right') });
  const before = predictPull({ image: imageOf(w.host, 'missing'), secrets: [late(false)] });
  const after = predictPull({ image: imageOf(w.host, 'missing'), secrets: [late(true)] });
  return {
    value: { whileMissing: before.pull, onceCreated: after.pull },
    model: `${DESIGN} + ${MODEL}`,
    because:
      `a missing pull secret does not block the pod (before: ${before.because}); ` +
      `the kubelet retries and reads the secret once it exists (after: ${after.because})`,
  };
}

export interface PlaceholderView {
  empty: Pull;
  filled: Pull;
}

/** PLACEHOLDER_FILLED: the placeholder secret `{"auths":{}}`, then filled with the right account. */
export function predictPlaceholderFilled(w: World): Prediction<PlaceholderView> {
  const image = imageOf(w.host, 'placeholder');
  const empty = predictPull({ image, secrets: [secret(w, 'placeholder')] });
  const filled = predictPull({ image, secrets: [{ name: 'placeholder', auths: auths(w, 'right') }] });
  return {
    value: { empty: empty.pull, filled: filled.pull },
    model: `${DESIGN} + ${MODEL}`,
    because:
      '"empty secrets will be tried but will result in failure; when secrets get populated with contents, fetchers would succeed" ' +
      `(empty: ${empty.because}; filled: ${filled.because})`,
  };
}

export interface ImmutableView {
  update: 'refused' | 'accepted';
  imagePullSecretsAfter: string[];
}

/** IMMUTABLE: no model of the API server's validation, the design's verified statement. */
export function predictImmutable(): Prediction<ImmutableView> {
  return {
    value: { update: 'refused', imagePullSecretsAfter: [...IMMUTABLE_SECRETS.created] },
    model: DESIGN,
    because:
      '"(verified) imagePullSecrets field on Pod is immutable": the API server refuses the update and the pod keeps its secrets',
  };
}

export interface ExplicitView {
  podImagePullSecrets: string[];
  pull: Pull;
}

/** EXPLICIT_NOT_MERGED: the pod names `wrong`; its service account has `right`. */
export function predictExplicitNotMerged(w: World): Prediction<ExplicitView> {
  // ServiceAccount admission copies the SA's pull secrets only into a pod that has none.
  const podSecrets: SecretName[] = ['wrong'];
  const p = predictPull({ image: imageOf(w.host, 'explicit'), secrets: podSecrets.map((name) => secret(w, name)) });
  return {
    value: { podImagePullSecrets: podSecrets, pull: p.pull },
    model: `${DESIGN} + ${MODEL}`,
    because: `"if Pod specifies imagePullSecrets then service account pull secrets will not be added to the Pod"; ${p.because}`,
  };
}

export interface LateServiceAccountView {
  podImagePullSecrets: string[];
  pullAfterRetry: Pull;
}

/** SA_LATE_NOT_ADOPTED: the pod's service account gets `right` after the pod exists. */
export function predictServiceAccountSecretNotAdopted(w: World): Prediction<LateServiceAccountView> {
  const p = predictPull({ image: imageOf(w.host, 'sa-late'), secrets: [] });
  return {
    value: { podImagePullSecrets: [], pullAfterRetry: p.pull },
    model: `${DESIGN} + ${MODEL}`,
    because:
      '"Pods will not adopt the added image pull secret after Pod is created (field is immutable)"; ' +
      `the kubelet reads pod.spec.imagePullSecrets only: ${p.because}`,
  };
}

/** EVERY_SECRET_TRIED: imagePullSecrets [wrong, right], both for the same registry. */
export function predictEverySecretTried(w: World): Prediction<Pull> {
  const p = predictPull({ image: imageOf(w.host, 'every'), secrets: [secret(w, 'wrong'), secret(w, 'right')] });
  return {
    value: p.pull,
    model: `${DESIGN} + ${MODEL}`,
    because:
      '"Kubernetes will try all image pull secrets associated with a Pod even if they contain credentials against the same registry"; ' +
      p.because,
  };
}

export interface Tried {
  pull: Pull;
  /** The sources of the credentials offered, in order (consecutive repeats folded). */
  tried: string[];
}

export interface MixView {
  wrongSecretRightProvider: Tried;
  rightSecretWrongProvider: Tried;
}

/** The secrets of the mixed pods: mix-a has the wrong secret (its provider answers right), mix-b the right one. */
export const MIX_SECRETS = { 'mix-a': 'mix-wrong', 'mix-b': 'right' } as const satisfies Record<string, SecretName>;

/** SECRET_AND_PROVIDER: pull secrets and PROVIDER for the same image, one of the two wrong. */
export function predictSecretAndProvider(w: World): Prediction<MixView> {
  const provider = (account: AccountName) => [
    { name: PROVIDER, matchImages: providerMatchImages(w.host), auths: auths(w, account) },
  ];
  const a = predictPull({
    image: imageOf(w.host, 'mix-a'),
    secrets: [secret(w, MIX_SECRETS['mix-a'])],
    providers: provider('right'),
  });
  const b = predictPull({
    image: imageOf(w.host, 'mix-b'),
    secrets: [secret(w, MIX_SECRETS['mix-b'])],
    providers: provider('providerWrong'),
  });
  const tried = (p: PullPrediction): Tried => ({ pull: p.pull, tried: p.attempts.map((x) => x.source) });
  return {
    value: { wrongSecretRightProvider: tried(a), rightSecretWrongProvider: tried(b) },
    model: `${MODEL} + KEP-2133`,
    because:
      "the pod's secrets come before the providers and every credential is tried until one works " +
      `(mix-a: ${a.because}; mix-b: ${b.because})`,
  };
}
