// The service-account-token suite's pods, as data: each case's pods, the
// service account each runs as, and what each pulls. No I/O here.

/** A pod a case runs: bound to the node, with a service account and no token volume. */
export interface PlannedPod {
  name: string;
  serviceAccount: string;
  /** Pulls of the image: 2 pulls it in an init container, then in the main container (one token). */
  pulls?: number;
  /** The exchange team whose image it pulls. */
  team?: string;
}

export const CLAIMS_POD: PlannedPod = { name: 'claims', serviceAccount: 'claims' };

export const ANNOTATION_PODS = {
  annotated: { name: 'annot-yes', serviceAccount: 'annotated' },
  missingRequired: { name: 'annot-missing', serviceAccount: 'unannotated' },
} satisfies Record<string, PlannedPod>;

/** An API pod with SA `plain` and a static pod (no SA), named after the check's `prefix`. */
export const requireServiceAccountPods = (prefix: string) => ({
  api: { name: `${prefix}-api`, serviceAccount: 'plain' } satisfies PlannedPod,
  staticPod: `${prefix}-static`,
});

/** In order: the first pod pulls twice (init + main container), then the others. */
export const CACHE_PODS = {
  serviceAccount: [
    { name: 'csa-1', serviceAccount: 'cache-1', pulls: 2 },
    { name: 'csa-2', serviceAccount: 'cache-1' },
    { name: 'csa-3', serviceAccount: 'cache-2' },
  ],
  token: [
    { name: 'ctok-1', serviceAccount: 'tok-1', pulls: 2 },
    { name: 'ctok-2', serviceAccount: 'tok-1' },
  ],
} satisfies Record<string, PlannedPod[]>;

export const AUDIENCE_PODS = {
  ungranted: { name: 'aud-none', serviceAccount: 'aud-none' },
  named: { name: 'named-yes', serviceAccount: 'named-yes' },
  notNamed: { name: 'named-no', serviceAccount: 'named-no' },
} satisfies Record<string, PlannedPod>;

/** Both pull team-a's image on the exchange registry, through a provider that answers the SA token as the password. */
export const TOKEN_AS_PASSWORD_PODS = {
  serviceAccountCache: { name: 'echo-sa', serviceAccount: 'team-a', team: 'team-a' },
  tokenCache: { name: 'echo-token', serviceAccount: 'team-a', team: 'team-a' },
} satisfies Record<string, PlannedPod>;

export const EXCHANGE_PODS = {
  own: { name: 'xa-own', serviceAccount: 'team-a', team: 'team-a' },
  other: { name: 'xa-other', serviceAccount: 'team-a', team: 'team-b' },
  teamC: { name: 'xc-own', serviceAccount: 'team-c', team: 'team-c' },
} satisfies Record<string, PlannedPod & { team: string }>;

/**
 * SA-TOKEN-OTHER-NODE: `own` runs on node A (the environment's nodeName) and pulls through a KEP-4412
 * provider; `sibling`, of the same SA, is only bound to node B (it need not run: a binding links the SA
 * to the node in the node authorizer's graph).
 */
export const OTHER_NODE_PODS = {
  own: { name: 'two-nodes-a', serviceAccount: 'two-nodes' },
  sibling: { name: 'two-nodes-b', serviceAccount: 'two-nodes' },
} satisfies Record<string, PlannedPod>;

/** The API server reads pods and SAs through informers: how long a deletion may take to reach TokenReview. */
export const REVOCATION_SETTLE_MS = 20_000;
