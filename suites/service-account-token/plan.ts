// The service-account-token suite's plan, as data: one fake provider per
// question, each on its own <label>.sa.test host (all routed through
// containerd's hosts.toml), the audiences they ask tokens for, the service
// accounts of the run, which audiences RBAC grants the node, and what the
// exchange registry lets each service account pull. No I/O here.
import type { TokenAttributes } from '../../src/api/credentialprovider/types.ts';
import type { AudienceGrant } from '../../src/model/service-account-token.ts';
import type { AccessRule, ServiceAccountIdentity } from '../../src/run/kit.ts';

// The pods each case runs.
export * from './plan-pods.ts';

export const MODEL =
  'service-account-token model (src/model/service-account-token.ts: plugin.go v1.37.1) + version table';
export const IMAGE_DOMAIN = 'sa.test';
/** How long an API pod may take to run or to fail its pull. */
export const POD_TIMEOUT_MS = 75_000;
/** A static pod first waits for the kubelet to read its manifest and to post its mirror pod. */
export const STATIC_POD_TIMEOUT_MS = POD_TIMEOUT_MS + 30_000;
/** RBAC reaches the authorizer through an informer: how long a new grant may take to answer. */
export const GRANTS_TIMEOUT_MS = 30_000;
/** The cache cases' answers live far longer than the suite. */
export const CACHE_DURATION_MS = 5 * 60_000;

export const ROLE_ANNOTATION = 'credprov.test/role';
export const TEAM_ANNOTATION = 'credprov.test/team';
export const ABSENT_ANNOTATION = 'credprov.test/absent';

/** The exchange registry's repositories: `<team>/app:v1`. */
export const EXCHANGE_TEAMS = ['team-a', 'team-b', 'team-c'];

export interface ProviderPlan {
  /** The fake provider's name in the kubelet's CredentialProviderConfig. */
  name: string;
  /** Its images live on `<label>.sa.test`. */
  label: string;
  tokenAttributes: TokenAttributes;
  /** `lab`: the htpasswd lab registry; `exchange`: the registry whose token server takes SA tokens. */
  registry: 'lab' | 'exchange';
  /** `token`: the answer's password is the request's SA token (username EXCHANGE_USERNAME). */
  password: 'static' | 'token';
  cacheDurationMs: number;
  /** The fake keeps each token it gets (by sha256) so a case can read its claims. */
  captureTokens?: boolean;
}

export const hostOf = (p: ProviderPlan): string => `${p.label}.${IMAGE_DOMAIN}`;
/** The provider's own image on the lab registry. */
export const labImage = (p: ProviderPlan): string => `${hostOf(p)}/sa/${p.label}:v1`;
/** A team's image on the exchange registry, through the provider's host. */
export const exchangeImage = (p: ProviderPlan, team: string): string => `${hostOf(p)}/${team}/app:v1`;
/** What the kubelet asks the plugin for: the image without its tag. */
export const requestImage = (ref: string): string => ref.replace(/:[^/:]+$/, '');
/** The repository of an image reference, without host and tag. */
export const repositoryOf = (ref: string): string => requestImage(ref).split('/').slice(1).join('/');

/** The namespace of a run: its service accounts, pods and the Role of one grant. */
export const namespaceOfRun = (runId: string): string => `credprov-sa-${runId}`;

/** The audiences of a run; the run id keeps runs on one cluster apart. */
export interface Audiences {
  /** Granted to every SA: most providers ask for it. */
  main: string;
  /** Granted by a Role in the run's namespace. */
  annotations: string;
  /** Granted to nobody. */
  ungranted: string;
  /** Granted only to SA named-yes (resourceNames). */
  narrowed: string;
  /** The exchange registry's audience. */
  registry: string;
}

export function audiencesFor(runId: string): Audiences {
  return {
    main: `credprov-sa-main-${runId}`,
    annotations: `credprov-sa-annot-${runId}`,
    ungranted: `credprov-sa-none-${runId}`,
    narrowed: `credprov-sa-named-${runId}`,
    registry: `credprov-sa-registry-${runId}`,
  };
}

export type ProviderPlans = ReturnType<typeof providerPlans>;

export function providerPlans(audiences: Audiences) {
  const tokenAttributes = (
    audience: string,
    cacheType: 'Token' | 'ServiceAccount',
    requireServiceAccount: boolean,
    more: Partial<TokenAttributes> = {},
  ): TokenAttributes => ({ serviceAccountTokenAudience: audience, cacheType, requireServiceAccount, ...more });
  const plan = (
    name: string,
    label: string,
    attributes: TokenAttributes,
    o: Partial<ProviderPlan> = {},
  ): ProviderPlan => ({
    name,
    label,
    tokenAttributes: attributes,
    registry: 'lab',
    password: 'static',
    cacheDurationMs: 0,
    ...o,
  });
  return {
    claims: plan('sa-claims', 'claims', tokenAttributes(audiences.main, 'ServiceAccount', true), {
      captureTokens: true,
    }),
    annotations: plan(
      'sa-annot',
      'annot',
      tokenAttributes(audiences.annotations, 'ServiceAccount', true, {
        requiredServiceAccountAnnotationKeys: [ROLE_ANNOTATION],
        optionalServiceAccountAnnotationKeys: [TEAM_ANNOTATION, ABSENT_ANNOTATION],
      }),
    ),
    optionalServiceAccount: plan('sa-optional', 'optional', tokenAttributes(audiences.main, 'ServiceAccount', false)),
    requiredServiceAccount: plan('sa-required', 'required', tokenAttributes(audiences.main, 'ServiceAccount', true)),
    cacheByServiceAccount: plan('sa-cache-sa', 'cachesa', tokenAttributes(audiences.main, 'ServiceAccount', true), {
      cacheDurationMs: CACHE_DURATION_MS,
    }),
    cacheByToken: plan('sa-cache-token', 'cachetok', tokenAttributes(audiences.main, 'Token', true), {
      cacheDurationMs: CACHE_DURATION_MS,
    }),
    ungrantedAudience: plan('sa-aud-none', 'audnone', tokenAttributes(audiences.ungranted, 'ServiceAccount', true)),
    narrowedAudience: plan('sa-aud-named', 'audnamed', tokenAttributes(audiences.narrowed, 'ServiceAccount', true)),
    /** Answers the SA token as the password with cacheType ServiceAccount: the kubelet must refuse that. */
    tokenEcho: plan('sa-echo', 'echosa', tokenAttributes(audiences.registry, 'ServiceAccount', true), {
      registry: 'exchange',
      password: 'token',
    }),
    exchange: plan('sa-exchange', 'xchg', tokenAttributes(audiences.registry, 'Token', true), {
      registry: 'exchange',
      password: 'token',
      captureTokens: true,
    }),
  };
}

/** The service accounts of the run, with their annotations. */
export const SERVICE_ACCOUNTS: Record<string, Record<string, string>> = {
  claims: {},
  annotated: {
    [ROLE_ANNOTATION]: 'puller',
    [TEAM_ANNOTATION]: 'blue',
    'unlisted.credprov.test/note': 'not for the plugin',
  },
  unannotated: { [TEAM_ANNOTATION]: 'blue' },
  plain: {},
  'cache-1': {},
  'cache-2': {},
  'tok-1': {},
  'aud-none': {},
  'named-yes': {},
  'named-no': {},
  'team-a': {},
  'team-c': {},
  'two-nodes': {},
};

/** What RBAC grants the node: one audience left ungranted, one narrowed by resourceNames, one granted by a namespaced Role. */
export function audienceGrants(audiences: Audiences, namespace: string): AudienceGrant[] {
  return [
    { audience: audiences.main },
    { audience: audiences.annotations, namespace },
    { audience: audiences.narrowed, serviceAccounts: ['named-yes'] },
    { audience: audiences.registry },
  ];
}

/** The name of a grant's role and binding. */
export const grantName = (g: AudienceGrant): string => `credprov-sa-${g.audience.replace(/^credprov-sa-/, '')}`;

/** (audience, service account) pairs the node must be allowed before the cases start: one per grant. */
export const grantProbes = (audiences: Audiences): Array<[audience: string, serviceAccount: string]> => [
  [audiences.main, 'claims'],
  [audiences.annotations, 'annotated'],
  [audiences.narrowed, 'named-yes'],
  [audiences.registry, 'team-a'],
];

/** The exchange's access rules: a service account team-X of the run's namespace may pull team-X/*. */
export const exchangeAccess =
  (namespace: string) =>
  (sa: Pick<ServiceAccountIdentity, 'namespace' | 'name'>): AccessRule[] =>
    sa.namespace === namespace && sa.name.startsWith('team-')
      ? [{ repository: `${sa.name}/*`, actions: ['pull'] }]
      : [];
