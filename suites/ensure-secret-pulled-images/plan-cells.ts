// The matrix: per policy, imagePullPolicy × the second pod's credential
// source × how the image got onto the node (× allowlisted, for the allowlist
// policy). Each cell has its own image (a tag of its own, a config of its own:
// a CRI image ID of its own), so cells never share a record and all cells of
// a policy run at once.
//
// Repositories (the path decides which provider matches and what the
// allowlist covers):
//   <root>/x            no provider                <root>/al/x (allowlisted)
//   <root>/np/<cell>    the node-mode provider (no tokenAttributes)  <root>/al/np/<cell>
//   <root>/sa/<cell>    the service-account-mode provider            <root>/al/sa/<cell>
// The kubelet asks a plugin for the repository without tag, so provider
// cells get a repository each: the invocation log then names the cell.
import type { PodCredentials, PodProvider, VerificationPolicy } from '../../src/model/ensure-secret-pulled.ts';
import { imageVariant, type BuiltImage } from '../../src/run/kit.ts';

export type Source =
  'none' | 'same-secret' | 'other-secret' | 'wrong-secret' | 'provider' | 'provider-sa-same' | 'provider-sa-other';
export const SOURCES: Source[] = [
  'none',
  'same-secret',
  'other-secret',
  'wrong-secret',
  'provider',
  'provider-sa-same',
  'provider-sa-other',
];
export type Provenance = 'kubelet' | 'preloaded';
export const PULL_POLICIES = ['IfNotPresent', 'Never'] as const;
export type PullPolicy = (typeof PULL_POLICIES)[number];

export interface Phase {
  policy: VerificationPolicy;
  /** Short code for pod and tag names. */
  code: string;
  /** false: the field is left unset and the kubelet's default applies. */
  set: boolean;
  allowlist: boolean;
}

/** In run order; the first is the suite's own spec, each next one a kubelet restart. */
export const PHASES: Phase[] = [
  { policy: 'NeverVerify', code: 'nv', set: true, allowlist: false },
  { policy: 'NeverVerifyPreloadedImages', code: 'nvp', set: false, allowlist: false },
  { policy: 'NeverVerifyAllowlistedImages', code: 'nva', set: true, allowlist: true },
  { policy: 'AlwaysVerify', code: 'av', set: true, allowlist: false },
];

export type Kind = 'x' | 'np' | 'sa';

export interface Cell {
  /** `IfNotPresent/same-secret/kubelet` (+ `/allowlisted` or `/not-allowlisted` under the allowlist policy). */
  id: string;
  phase: Phase;
  pullPolicy: PullPolicy;
  source: Source;
  provenance: Provenance;
  allowlisted?: boolean;
  kind: Kind;
  /** Repository path without host. */
  repo: string;
  tag: string;
  /** The image as the pod names it. */
  ref: string;
  image: BuiltImage;
  /** The second pod's name. */
  pod: string;
}

const SOURCE_CODE: Record<Source, string> = {
  none: 'none',
  'same-secret': 'same',
  'other-secret': 'other',
  'wrong-secret': 'wrong',
  provider: 'prov',
  'provider-sa-same': 'sasame',
  'provider-sa-other': 'saother',
};
const kindOf = (s: Source): Kind => (s === 'provider' ? 'np' : s.startsWith('provider-sa') ? 'sa' : 'x');

export interface Layout {
  host: string;
  /** Path prefix of this run's repositories: `espi-<id>`. */
  root: string;
}

const prefixOf = (l: Layout, kind: Kind, allowlisted: boolean) => `${l.root}/${allowlisted ? 'al/' : ''}${kind}`;
export const repoOf = (l: Layout, kind: Kind, allowlisted: boolean, cell: string) =>
  kind === 'x' ? prefixOf(l, kind, allowlisted) : `${prefixOf(l, kind, allowlisted)}/${cell}`;
/** The allowlist of the allowlist policy: one `/*` prefix. */
export const allowlistOf = (l: Layout) => [`${l.host}/${l.root}/al/*`];
/** matchImages of the node-mode and the service-account-mode provider. */
export const providerPatterns = (l: Layout, kind: 'np' | 'sa') => [
  `${l.host}/${prefixOf(l, kind, false)}`,
  `${l.host}/${prefixOf(l, kind, true)}`,
];

/** The cell whose image the prune check removes: the first policy is done with it, and its record names one secret. */
export function pruneCellOf(cells: Cell[]): Cell {
  const cell = cells.find(
    (c) =>
      c.phase === PHASES[0] &&
      c.provenance === 'kubelet' &&
      c.source === 'same-secret' &&
      c.pullPolicy === 'IfNotPresent',
  );
  if (!cell) throw new Error('the matrix has no IfNotPresent/same-secret/kubelet cell under the first policy');
  return cell;
}

export function buildCells(l: Layout, base: BuiltImage): Cell[] {
  const cells: Cell[] = [];
  for (const phase of PHASES) {
    for (const allowlisted of phase.allowlist ? [true, false] : [false]) {
      for (const pullPolicy of PULL_POLICIES) {
        for (const source of SOURCES) {
          for (const provenance of ['kubelet', 'preloaded'] as Provenance[]) {
            const kind = kindOf(source);
            const name = [
              phase.code,
              pullPolicy === 'Never' ? 'never' : 'ifnp',
              SOURCE_CODE[source],
              provenance === 'kubelet' ? 'kub' : 'pre',
              ...(phase.allowlist ? [allowlisted ? 'al' : 'na'] : []),
            ].join('-');
            const repo = repoOf(l, kind, allowlisted, name);
            cells.push({
              id: [
                pullPolicy,
                source,
                provenance,
                ...(phase.allowlist ? [allowlisted ? 'allowlisted' : 'not-allowlisted'] : []),
              ].join('/'),
              phase,
              pullPolicy,
              source,
              provenance,
              ...(phase.allowlist ? { allowlisted } : {}),
              kind,
              repo,
              tag: name,
              ref: `${l.host}/${repo}:${name}`,
              // The run's root in the marker: a cell's image ID never repeats across runs on one node.
              image: imageVariant(base, `credprov ${l.root} ${name}`, repo, name),
              pod: name,
            });
          }
        }
      }
    }
  }
  return cells;
}

// ---- credentials: the facts the model needs about each pod --------------------------

export interface Identities {
  namespace: string;
  host: string;
  right: { username: string; password: string };
  wrong: { username: string; password: string };
  secretUids: Record<'right' | 'right-copy' | 'wrong', string>;
  saUids: Record<'default' | 'sa-a' | 'sa-b', string>;
  providers: PodProvider[];
}

export interface PodSpecBits {
  imagePullSecrets?: string[];
  serviceAccountName?: string;
}

/** The second pod of a cell: its Kubernetes fields and what the model knows of its credentials. */
export function secondPod(cell: Cell, id: Identities): { spec: PodSpecBits; creds: PodCredentials } {
  const secretsFor: Partial<Record<Source, 'right' | 'right-copy' | 'wrong'>> = {
    'same-secret': 'right',
    'other-secret': 'right-copy',
    'wrong-secret': 'wrong',
  };
  const sa = cell.source === 'provider-sa-same' ? 'sa-a' : cell.source === 'provider-sa-other' ? 'sa-b' : 'default';
  const secret = secretsFor[cell.source];
  return podOf(id, secret ? [secret] : [], sa);
}

/** The first pod of a kubelet-provenance cell: the right secret, or for service-account cells SA sa-a through the SA-mode provider. */
export function firstPod(cell: Cell, id: Identities): { spec: PodSpecBits; creds: PodCredentials } {
  return cell.kind === 'sa' ? podOf(id, [], 'sa-a') : podOf(id, ['right'], 'default');
}

function podOf(
  id: Identities,
  secrets: Array<'right' | 'right-copy' | 'wrong'>,
  sa: 'default' | 'sa-a' | 'sa-b',
): { spec: PodSpecBits; creds: PodCredentials } {
  const auth = (s: 'right' | 'right-copy' | 'wrong') =>
    s === 'wrong' ? { ...id.wrong, works: false } : { ...id.right, works: true };
  return {
    spec: {
      ...(secrets.length ? { imagePullSecrets: secrets } : {}),
      ...(sa !== 'default' ? { serviceAccountName: sa } : {}),
    },
    creds: {
      namespace: id.namespace,
      serviceAccount: { name: sa, uid: id.saUids[sa] },
      secrets: secrets.map((s) => ({ name: s, uid: id.secretUids[s], auths: { [id.host]: auth(s) } })),
      providers: id.providers,
    },
  };
}
