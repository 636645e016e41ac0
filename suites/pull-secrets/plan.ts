// The pull-secrets suite's plan, as data: one htpasswd registry with one
// account ("wrong" credentials are a refused password or an unknown user), one
// image repository per case, the dockerconfigjson secrets and service accounts
// the cases put in their namespaces, and one recording fake provider for the
// case that mixes pull secrets with a provider.
import { answer, type FleetMember, type Login } from '../../src/run/kit.ts';

export type { Login };

export type AccountName = 'right' | 'wrong' | 'secretWrong' | 'providerWrong';

/**
 * right: the registry's account. wrong: the same user with a password the
 * registry refuses (the wrong secret of most cases). secretWrong and
 * providerWrong: users the registry does not know, one per source, so its log
 * tells which source offered them.
 */
export type Accounts = Record<AccountName, Login>;

/** The provider of the mixed case: right credentials for mix-a, wrong ones for mix-b. */
export const PROVIDER = 'credprov-secrets-mix';

/** First pull: the image pull itself is quick; the pod needs its sandbox first. */
export const FIRST_OUTCOME_MS = 60_000;
/** A recovery needs at least one kubelet retry (image pull backoff starts at 10s, then 20s). */
export const RECOVERY_MS = 75_000;

/** The repositories, one per case (`secrets/<name>`); the pods are named after them. */
export const REPOS = ['missing', 'placeholder', 'immutable', 'explicit', 'sa-late', 'every', 'mix-a', 'mix-b'] as const;
export type Repo = (typeof REPOS)[number];

export const repositoryOf = (repo: Repo): string => `secrets/${repo}`;
export const imageOf = (host: string, repo: Repo): string => `${host}/${repositoryOf(repo)}:v1`;

/** The secrets a case may ask for in its namespace: for each, the account its `.dockerconfigjson` holds for the registry. */
export const SECRETS = {
  right: 'right',
  wrong: 'wrong',
  'mix-wrong': 'secretWrong',
  /** `{"auths":{}}`: referenced, tried, no credential. */
  placeholder: undefined,
} as const satisfies Record<string, AccountName | undefined>;
export type SecretName = keyof typeof SECRETS;

/** The secret the missing-secret case creates after the pod's first failed pull. */
export const LATE_SECRET = 'late-secret';

/** The service accounts a case may ask for, with their imagePullSecrets when made. */
export const SERVICE_ACCOUNTS = {
  'with-right-secret': ['right'],
  /** Gets `right` only after its pod exists. */
  late: [],
} as const satisfies Record<string, readonly SecretName[]>;
export type ServiceAccountName = keyof typeof SERVICE_ACCOUNTS;

/** The immutability case's pod secrets, and the update the API server must refuse. */
export const IMMUTABLE_SECRETS = { created: ['right'], patched: ['right', 'wrong'] } as const;

/** The auths of a secret of SECRETS: `{}` for the placeholder. */
export function authsOf(secret: SecretName, host: string, accounts: Accounts): Record<string, Login> {
  const account = SECRETS[secret];
  return account === undefined ? {} : { [host]: accounts[account] };
}

export const providerMatchImages = (host: string): string[] => [`${host}/secrets/mix-`];

export function providerMember(host: string, accounts: Accounts): FleetMember {
  return {
    name: PROVIDER,
    matchImages: providerMatchImages(host),
    scenario: {
      rules: [
        ...answer([`${host}/${repositoryOf('mix-a')}`], { [host]: accounts.right }).rules,
        ...answer([`${host}/${repositoryOf('mix-b')}`], { [host]: accounts.providerWrong }).rules,
      ],
    },
  };
}
