// credprov's model of KEP-2535 (KubeletEnsureSecretPulledImages) in the
// kubelet, as of v1.37.1: may a pod use an image that is already on the node,
// must it pull with its own credentials, and what the kubelet records about
// it. The ensure-secret-pulled-images suite predicts every cell from here
// before the real kubelet runs the pod. What differs between kubelet minors
// comes from the version table (EnsureCase.kubelet, default the newest):
// kep2535ImageNames (k/k #137629: record keys and the allowlist),
// serviceAccountPullRecords (#132771), pullRecordApiVersion; which ref a record
// is keyed by is ./pull-record-keys.ts (pulledRecordLookup).
//
// Sources (k8s.io/kubernetes@v1.37.1):
// - pkg/kubelet/images/image_manager.go EnsureImageExists: precheck by pull
//   policy; an image present locally goes through MustAttemptImagePull; when a
//   pull is required, Never → ErrImageNeverPull ("is not present with pull
//   policy of Never", hiding that it is present); otherwise pull with the pod's
//   credentials; pullImage writes an ImagePullIntent before the pull and, on
//   success, an ImagePulledRecord with the credential that worked (no source:
//   nodePodsAccessible; a secret: its coordinates and credential hash; a
//   service-account-mode plugin: the SA's coordinates); the intent is removed
//   either way. The pod's credentials are looked up at most once per
//   EnsureImageExists (sync.OnceValues), lazily.
// - pullmanager/image_pull_manager.go MustAttemptImagePull: "pulled by the
//   kubelet" = a pulled record for the imageRef or a pull intent for the image;
//   the policy may allow the image outright (credentialPolicyAllowed); else no
//   record → mustAuthenticate; no mapping for the image name (tag/digest cut)
//   → mustAuthenticate; nodePodsAccessible → credentialRecordFound; only then
//   are the pod's credentials looked up (plugins run): a secret matching by
//   credential hash or by coordinates, or the pod's SA by namespace/name/UID →
//   credentialRecordFound (a match through other coordinates or another hash is
//   written into the record); otherwise mustAuthenticate.
// - pullmanager/image_pull_policies.go: the four policies and the allowlist.
// - pullmanager/fs_pullrecords.go: files `sha256-<hex sha256(key)>` under
//   <root>/image_manager/{pulling,pulled}, JSON, dirs 0700, files 0600, written
//   as <file>.tmp then renamed; encoded as kubelet.config.k8s.io/v1beta1 from
//   1.35 (v1alpha1 in 1.33–1.34); older versions rewritten at startup.
// - pullmanager/metrics.go: mustpull_checks_total{result} once per
//   MustAttemptImagePull; the ondisk gauges are set only when a file is written
//   or deleted (not at startup).
// - kuberuntime_manager.go + images/image_gc_manager.go: PruneUnknownRecords
//   runs only as a post-image-GC hook (GarbageCollect above the high
//   threshold, or the eviction manager's DeleteUnusedImages).
import { createHash } from 'node:crypto';
import { parseImageReference, normalizeImage } from '../matching/image.ts';
import { authKeyToKeyringKey, matchImage } from '../matching/url.ts';
import { keyringLookup, type Credential } from './pull-credentials.ts';
import { behaviourFor, newestBehaviour, type KubeBehaviour } from '../versions/table.ts';

/** The version-table fields this model reads: what differs between kubelet minors. */
export type Kep2535Kubelet = Pick<
  KubeBehaviour,
  'kep2535ImageNames' | 'serviceAccountPullRecords' | 'pulledRecordLookup' | 'pullRecordApiVersion'
>;
/** The kubelet credprov models by default: the newest released minor (v1.37.1). */
export const NEWEST_KUBELET: Kep2535Kubelet = newestBehaviour();
export const kubeletOfMinor = (minor: number): Kep2535Kubelet => behaviourFor(`1.${minor}`);

export const POLICIES = [
  'NeverVerify',
  'NeverVerifyPreloadedImages',
  'NeverVerifyAllowlistedImages',
  'AlwaysVerify',
] as const;
export type VerificationPolicy = (typeof POLICIES)[number];
/** The kubelet's default when the gate is on and the field is unset (apis/config/v1beta1/defaults.go). */
export const DEFAULT_POLICY: VerificationPolicy = 'NeverVerifyPreloadedImages';

export type MustPullResult = 'credentialPolicyAllowed' | 'credentialRecordFound' | 'mustAuthenticate' | 'error';
export const MUST_PULL_RESULTS: MustPullResult[] = [
  'credentialPolicyAllowed',
  'credentialRecordFound',
  'mustAuthenticate',
  'error',
];
/** What the container's status says: it ran, its pull failed (ErrImagePull, then ImagePullBackOff), or Never refused it. */
export type ContainerOutcome = 'Running' | 'ErrImagePull' | 'ErrImageNeverPull';
/** The kubelet's decisive event for the container's image. */
export type EventKind = 'present-accessible' | 'present' | 'pulled' | 'pull-failed' | 'never-pull';

export interface SecretCoordinates {
  uid: string;
  namespace: string;
  name: string;
}
export interface RecordedSecret extends SecretCoordinates {
  credentialHash: string;
}
export interface ServiceAccountCoordinates {
  uid: string;
  namespace: string;
  name: string;
}
export interface ImagePullCredentials {
  nodePodsAccessible?: boolean;
  kubernetesSecrets?: RecordedSecret[];
  kubernetesServiceAccounts?: ServiceAccountCoordinates[];
}
export interface PulledRecord {
  imageRef: string;
  credentialMapping: Record<string, ImagePullCredentials>;
}

/** The node's knowledge of one image. */
export interface NodeImage {
  /** The CRI has it (pulled by the kubelet or anyone else). */
  present: boolean;
  /** The CRI image ID, which pulled records are keyed by. */
  imageRef: string;
  record?: PulledRecord;
  /** An ImagePullIntent for this image string is on disk (a pull in flight, or cut short). */
  intent?: boolean;
}

export interface AuthEntry {
  username: string;
  password: string;
  works: boolean;
}

export interface PodSecret {
  name: string;
  uid: string;
  /** `.dockerconfigjson` auths. */
  auths: Record<string, AuthEntry>;
}

export interface PodProvider {
  name: string;
  matchImages: string[];
  /** What it answers for the image ({}: no credentials). */
  auths: Record<string, AuthEntry>;
  /** tokenAttributes set: KEP-4412 service-account token mode. */
  serviceAccountMode?: boolean;
  /** tokenAttributes.requireServiceAccount (default true in this model). */
  requireServiceAccount?: boolean;
}

export interface PodCredentials {
  namespace: string;
  /** The pod's service account (admission always sets one). */
  serviceAccount?: { name: string; uid: string };
  secrets: PodSecret[];
  providers?: PodProvider[];
  /** The registry serves the image anonymously. Default false. */
  publicImage?: boolean;
}

export interface EnsureCase {
  /** The kubelet's version-table row (default NEWEST_KUBELET). */
  kubelet?: Kep2535Kubelet;
  /** undefined: the field is unset, so the default applies. */
  policy?: VerificationPolicy;
  allowlist?: string[];
  /** KubeletEnsureSecretPulledImages; default true (beta, on by default since 1.35). */
  gateEnabled?: boolean;
  /** The container's image, as written in the pod. */
  image: string;
  pullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  node: NodeImage;
  pod: PodCredentials;
}

export interface EnsurePrediction {
  outcome: ContainerOutcome;
  event: {
    kind: EventKind;
    type: 'Normal' | 'Warning';
    reason: string;
    /** Exact text, or its prefix for pulls (durations follow). */ message: string;
    prefix: boolean;
  };
  /** The mustpull_checks_total result this EnsureImageExists counts; undefined when MustAttemptImagePull is not called. */
  check?: MustPullResult;
  /** A registry pull was attempted (a Pulling event). */
  pull: boolean;
  /** The pod's credentials were looked up: every provider in `providersInvoked` was exec'd. */
  lookedUp: boolean;
  providersInvoked: string[];
  /** The node afterwards: record merged, intent gone. */
  node: NodeImage;
  /** The pulled-record file was written (created or changed). */
  recordWritten: boolean;
  /** …and did not exist before. */
  recordCreated: boolean;
  /** An ImagePullIntent was written (and removed again) for the pull. */
  intentWritten: boolean;
  because: string;
}

// ---- credential hashes, file names, API versions ------------------------------

/** keyring.go hashAuthConfig: sha256 of json.Marshal(AuthConfig{Username, Password, Email}) (omitempty fields). */
export function credentialHash(c: { username: string; password: string; email?: string }): string {
  const json = `{${[c.username ? `"username":${goJsonString(c.username)}` : '', c.password ? `"password":${goJsonString(c.password)}` : '', c.email ? `"email":${goJsonString(c.email)}` : ''].filter(Boolean).join(',')}}`;
  return createHash('sha256').update(json).digest('hex');
}

/** encoding/json escapes <, > and & (HTML-safe) besides what JSON requires. */
function goJsonString(s: string): string {
  return JSON.stringify(s)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** fs_pullrecords.go cacheFilename: the file an intent (key: image) or a record (key: imageRef) lives in. */
export function recordFileName(key: string): string {
  return `sha256-${createHash('sha256').update(key).digest('hex')}`;
}

/** The apiVersion records and intents are written in (the version table's pullRecordApiVersion). */
export function recordApiVersion(kubeletMinor: number): string {
  return kubeletOfMinor(kubeletMinor).pullRecordApiVersion;
}

export const RECORD_FILE_MODE = 0o600;
export const RECORD_DIR_MODE = 0o700;

// ---- image names and the allowlist ------------------------------------------------

/**
 * The image name KEP-2535 keys a record's credentialMapping by: as written with tag and digest
 * cut (1.36+), or the normalised name before k/k #137629 (parsers.ParseImageName: alpine:3 →
 * docker.io/library/alpine).
 */
export function recordImageName(image: string, names: KubeBehaviour['kep2535ImageNames']): string {
  if (names === 'as-written') return trimImageTagDigest(image);
  const p = parseImageReference(image);
  if ('error' in p) throw new Error(`invalid image ${JSON.stringify(image)}: ${p.error}`);
  return normalizeImage(image).repository;
}

/** image_pull_policies.go trimImageTagDigest: the image as written, tag and digest cut (no normalisation). */
export function trimImageTagDigest(image: string): string {
  const p = parseImageReference(image);
  if ('error' in p) throw new Error(`invalid image ${JSON.stringify(image)}: ${p.error}`);
  let out = image;
  if (p.digest) {
    if (!out.endsWith(`@${p.digest}`)) throw new Error(`digest was not specified last: ${image}`);
    out = out.slice(0, -(p.digest.length + 1));
  }
  if (p.tag) {
    if (!out.endsWith(`:${p.tag}`)) throw new Error(`tag ${p.tag} was not specified last: ${image}`);
    out = out.slice(0, -(p.tag.length + 1));
  }
  return out;
}

/**
 * getAllowlistImagePattern: the normalised pattern and whether it is a `/*` prefix; throws the
 * kubelet's validation error. Before k/k #137629 an exact entry must be a normalised name
 * (ParseNormalizedNamed(entry).Name() == entry), so `alpine` is refused with the tag/digest message.
 */
export function allowlistPattern(
  pattern: string,
  names: KubeBehaviour['kep2535ImageNames'] = NEWEST_KUBELET.kep2535ImageNames,
): { pattern: string; wildcard: boolean } {
  if (pattern !== pattern.trim()) throw new Error(`leading/trailing spaces are not allowed: ${pattern}`);
  const wildcard = pattern.endsWith('/*');
  const trimmed = wildcard ? pattern.slice(0, -1) : pattern;
  if (trimmed.length === 0) throw new Error(`the supplied pattern is too short: ${pattern}`);
  if (trimmed.includes('*'))
    throw new Error(`not a valid wildcard pattern, only patterns ending with '/*' are allowed: ${pattern}`);
  if (wildcard) {
    if (trimmed.length === 1) throw new Error('at least registry hostname is required');
    return { pattern: trimmed, wildcard };
  }
  let image: string;
  try {
    image = names === 'as-written' ? trimImageTagDigest(trimmed) : recordImageName(trimmed, names);
  } catch (err) {
    throw new Error(`failed to parse as an image name: ${(err as Error).message}`, { cause: err });
  }
  if (image !== trimmed) throw new Error(`neither tag nor digest is accepted in an image reference: ${pattern}`);
  return { pattern: trimmed, wildcard };
}

/** Whether the kubelet's config validation accepts an allowlist entry (the kubelet refuses to start otherwise). */
export function allowlistEntryValid(pattern: string, names: KubeBehaviour['kep2535ImageNames']): boolean {
  try {
    allowlistPattern(pattern, names);
    return true;
  } catch {
    return false;
  }
}

/** NeverVerifyAllowlistedImages.imageMatches: 1.36+ cuts tag and digest first; before #137629 the image is compared as written. */
export function allowlistMatches(
  allowlist: string[],
  image: string,
  names: KubeBehaviour['kep2535ImageNames'] = NEWEST_KUBELET.kep2535ImageNames,
): boolean {
  let name = image;
  if (names === 'as-written') {
    try {
      name = trimImageTagDigest(image);
    } catch {
      name = image;
    }
  }
  return allowlist
    .map((p) => allowlistPattern(p, names))
    .some((p) => (p.wildcard ? name.startsWith(p.pattern) : name === p.pattern));
}

/** ImagePullPolicyEnforcer.RequireCredentialVerificationForImage. */
export function requiresVerification(
  policy: VerificationPolicy,
  image: string,
  pulledByKubelet: boolean,
  allowlist: string[] = [],
  names: KubeBehaviour['kep2535ImageNames'] = NEWEST_KUBELET.kep2535ImageNames,
): boolean {
  switch (policy) {
    case 'NeverVerify':
      return false;
    case 'NeverVerifyPreloadedImages':
      return pulledByKubelet;
    case 'NeverVerifyAllowlistedImages':
      return !allowlistMatches(allowlist, image, names);
    case 'AlwaysVerify':
      return true;
  }
}

// ---- the pod's credentials ---------------------------------------------------------

type Tracked =
  | { kind: 'secret'; secret: RecordedSecret; label: string; works: boolean }
  | { kind: 'service-account'; sa: ServiceAccountCoordinates; label: string; works: boolean }
  | { kind: 'node'; label: string; works: boolean };

interface Lookup {
  credentials: Tracked[];
  providersInvoked: string[];
}

/** makeLookupPullCredentialsFunc: the pod's secrets' keyring, then node + plugin keyrings, for the image's repository. */
export function lookupCredentials(image: string, pod: PodCredentials): Lookup {
  const repository = normalizeImage(image).repository;
  const meta = new Map<object, Tracked>();
  const entries = (source: string, auths: Record<string, AuthEntry>, track: (a: AuthEntry) => Tracked) =>
    Object.entries(auths).flatMap(([authKey, a]) => {
      const key = authKeyToKeyringKey(authKey);
      if (key === undefined) return [];
      const e = { source, key, credential: { username: a.username, works: a.works } as Credential };
      meta.set(e, track(a));
      return [e];
    });
  const fromSecrets = keyringLookup(
    pod.secrets.flatMap((s) =>
      entries(`secret ${s.name}`, s.auths, (a) => ({
        kind: 'secret',
        label: `secret ${s.name}`,
        works: a.works,
        secret: { uid: s.uid, namespace: pod.namespace, name: s.name, credentialHash: credentialHash(a) },
      })),
    ),
    repository,
  );
  const invoked = (pod.providers ?? []).filter(
    (p) =>
      p.matchImages.some((m) => matchImage(m, image).match) &&
      !(p.serviceAccountMode && !pod.serviceAccount && (p.requireServiceAccount ?? true)),
  );
  const providerCredential = (p: PodProvider, a: AuthEntry): Tracked =>
    p.serviceAccountMode && pod.serviceAccount
      ? {
          kind: 'service-account',
          label: `provider ${p.name} (service account ${pod.serviceAccount.name})`,
          works: a.works,
          sa: { uid: pod.serviceAccount.uid, namespace: pod.namespace, name: pod.serviceAccount.name },
        }
      : { kind: 'node', label: `provider ${p.name}`, works: a.works };
  const fromProviders = keyringLookup(
    invoked.flatMap((p) => entries(`provider ${p.name}`, p.auths, (a) => providerCredential(p, a))),
    repository,
  );
  return {
    credentials: [...fromSecrets, ...fromProviders].map((e) => meta.get(e)!),
    providersInvoked: invoked.map((p) => p.name),
  };
}

// ---- records ------------------------------------------------------------------------

/** trackedToImagePullCreds: what a successful pull records (an SA-mode credential is nodePodsAccessible before k/k #132771). */
function pullCredentialsOf(used: Tracked | undefined, kubelet: Kep2535Kubelet): ImagePullCredentials {
  if (!used || used.kind === 'node') return { nodePodsAccessible: true };
  if (used.kind === 'secret') return { kubernetesSecrets: [used.secret] };
  if (!kubelet.serviceAccountPullRecords) return { nodePodsAccessible: true };
  return { kubernetesServiceAccounts: [used.sa] };
}

const byCoords = (a: SecretCoordinates, b: SecretCoordinates) =>
  cmp(a.namespace, b.namespace) || cmp(a.name, b.name) || cmp(a.uid, b.uid);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** pulledRecordMergeNewCreds: the merged mapping for `name`, or undefined when nothing changes. */
export function mergeCredentials(
  current: ImagePullCredentials | undefined,
  add: ImagePullCredentials,
): ImagePullCredentials | undefined {
  if (!add.nodePodsAccessible && !add.kubernetesSecrets?.length && !add.kubernetesServiceAccounts?.length)
    return undefined;
  if (!current) return add;
  if (current.nodePodsAccessible) return undefined;
  if (add.nodePodsAccessible) return { nodePodsAccessible: true };
  if (add.kubernetesSecrets?.length) {
    const set = new Map((current.kubernetesSecrets ?? []).map((s) => [`${s.uid}\0${s.namespace}\0${s.name}`, s]));
    let changed = false;
    for (const s of add.kubernetesSecrets) {
      const k = `${s.uid}\0${s.namespace}\0${s.name}`;
      if (set.get(k)?.credentialHash !== s.credentialHash) {
        changed = true;
        set.set(k, s);
      }
    }
    return changed ? { ...current, kubernetesSecrets: [...set.values()].sort(byCoords) } : undefined;
  }
  const have = current.kubernetesServiceAccounts ?? [];
  const fresh = add.kubernetesServiceAccounts!.filter(
    (s) => !have.some((h) => h.uid === s.uid && h.namespace === s.namespace && h.name === s.name),
  );
  return fresh.length ? { ...current, kubernetesServiceAccounts: [...have, ...fresh].sort(byCoords) } : undefined;
}

/** writePulledRecordIfChanged: the record afterwards and whether the file was written. */
function writeRecord(
  node: NodeImage,
  name: string,
  creds: ImagePullCredentials | undefined,
): { record: PulledRecord; written: boolean } {
  if (!node.record)
    return { record: { imageRef: node.imageRef, credentialMapping: creds ? { [name]: creds } : {} }, written: true };
  const merged = creds ? mergeCredentials(node.record.credentialMapping[name], creds) : undefined;
  if (!merged) return { record: node.record, written: false };
  return {
    record: { ...node.record, credentialMapping: { ...node.record.credentialMapping, [name]: merged } },
    written: true,
  };
}

// ---- EnsureImageExists ----------------------------------------------------------

const MESSAGES = {
  presentAccessible: (image: string) =>
    `Container image "${image}" already present on machine and can be accessed by the pod`,
  present: (image: string) => `Container image "${image}" already present on machine`,
  neverPull: (image: string) => `Container image "${image}" is not present with pull policy of Never`,
  pulled: (image: string) => `Successfully pulled image "${image}" in `,
  pullFailed: (image: string) => `Failed to pull image "${image}": `,
};

export function ensureImageExists(c: EnsureCase): EnsurePrediction {
  const policy = c.policy ?? DEFAULT_POLICY;
  const gate = c.gateEnabled ?? true;
  const kubelet = c.kubelet ?? NEWEST_KUBELET;
  const { image, node } = c;
  const name = recordImageName(image, kubelet.kep2535ImageNames);
  let lookup: Lookup | undefined;
  const lookUp = () => (lookup ??= lookupCredentials(image, c.pod));
  const base = { recordWritten: false, recordCreated: false, intentWritten: false };
  const done = (
    p: Omit<EnsurePrediction, 'lookedUp' | 'providersInvoked' | keyof typeof base> & Partial<typeof base>,
  ): EnsurePrediction => ({
    ...base,
    ...p,
    lookedUp: lookup !== undefined,
    providersInvoked: lookup?.providersInvoked ?? [],
  });
  const allowed = (
    check: MustPullResult | undefined,
    why: string,
    after: NodeImage = node,
    written = false,
  ): EnsurePrediction =>
    done({
      outcome: 'Running',
      check,
      pull: false,
      node: after,
      recordWritten: written,
      because: why,
      event: gate
        ? {
            kind: 'present-accessible',
            type: 'Normal',
            reason: 'Pulled',
            message: MESSAGES.presentAccessible(image),
            prefix: false,
          }
        : { kind: 'present', type: 'Normal', reason: 'Pulled', message: MESSAGES.present(image), prefix: false },
    });
  const neverPull = (check: MustPullResult | undefined, why: string): EnsurePrediction =>
    done({
      outcome: 'ErrImageNeverPull',
      check,
      pull: false,
      node,
      because: why,
      event: {
        kind: 'never-pull',
        type: 'Warning',
        reason: 'ErrImageNeverPull',
        message: MESSAGES.neverPull(image),
        prefix: false,
      },
    });
  const pull = (check: MustPullResult | undefined, why: string): EnsurePrediction => {
    const { credentials } = lookUp();
    const used = credentials.find((x) => x.works);
    const works = used !== undefined || (credentials.length === 0 && c.pod.publicImage === true);
    const tried =
      credentials.length === 0
        ? 'an anonymous pull'
        : credentials.map((x) => `${x.label} (${x.works ? 'works' : 'refused'})`).join(' → ');
    if (!works) {
      return done({
        outcome: 'ErrImagePull',
        check,
        pull: true,
        node,
        intentWritten: gate,
        because: `${why}; pull with ${tried}: refused`,
        event: {
          kind: 'pull-failed',
          type: 'Warning',
          reason: 'Failed',
          message: MESSAGES.pullFailed(image),
          prefix: true,
        },
      });
    }
    const recordedCreds = pullCredentialsOf(used, kubelet);
    const after = gate ? writeRecord({ ...node, present: true }, name, recordedCreds) : undefined;
    const recorded = recordedCreds.nodePodsAccessible
      ? 'nodePodsAccessible'
      : used?.kind === 'secret'
        ? `secret ${used.secret.name}`
        : `service account ${used?.kind === 'service-account' ? used.sa.name : '?'}`;
    return done({
      outcome: 'Running',
      check,
      pull: true,
      node: { ...node, present: true, ...(after ? { record: after.record } : {}) },
      recordWritten: after?.written ?? false,
      recordCreated: gate && !node.record,
      intentWritten: gate,
      because: `${why}; pull with ${tried}${gate ? `, recorded as ${recorded}` : ''}`,
      event: { kind: 'pulled', type: 'Normal', reason: 'Pulled', message: MESSAGES.pulled(image), prefix: true },
    });
  };

  if (c.pullPolicy === 'Always') return pull(undefined, 'pull policy Always pulls every time');
  if (!node.present) {
    return c.pullPolicy === 'Never'
      ? neverPull(undefined, 'not on the node and pull policy Never')
      : pull(undefined, 'not on the node');
  }
  if (!gate) return allowed(undefined, 'on the node and KubeletEnsureSecretPulledImages is off');

  const pulledByKubelet = node.record !== undefined || node.intent === true;
  const provenance = node.record
    ? 'pulled by the kubelet (record)'
    : node.intent
      ? 'pulled by the kubelet (intent)'
      : 'preloaded (no record or intent)';
  const requiring = (why: string): EnsurePrediction =>
    c.pullPolicy === 'Never'
      ? neverPull('mustAuthenticate', `${why}: must authenticate, and Never may not pull`)
      : pull('mustAuthenticate', `${why}: must authenticate`);
  if (!requiresVerification(policy, image, pulledByKubelet, c.allowlist, kubelet.kep2535ImageNames)) {
    return allowed(
      'credentialPolicyAllowed',
      `${provenance}; ${policy}${policy === 'NeverVerifyAllowlistedImages' ? ' (allowlisted)' : ''} needs no verification`,
    );
  }
  const why = `${provenance}; ${policy}${policy === 'NeverVerifyAllowlistedImages' ? ' (not allowlisted)' : ''} verifies`;
  if (!node.record) return requiring(`${why}, and there is no record`);
  const cached = node.record.credentialMapping[name];
  if (!cached) return requiring(`${why}, and the record has no entry for ${name}`);
  if (cached.nodePodsAccessible) return allowed('credentialRecordFound', `${why}: the record says nodePodsAccessible`);
  if (!cached.kubernetesSecrets?.length && !cached.kubernetesServiceAccounts?.length)
    return requiring(`${why}, and the record names no credential`);

  const { credentials } = lookUp();
  const podSecrets = credentials.flatMap((x) => (x.kind === 'secret' ? [x.secret] : []));
  const podSa = credentials.find(
    (x): x is Extract<Tracked, { kind: 'service-account' }> => x.kind === 'service-account',
  )?.sa;
  for (const s of podSecrets) {
    for (const r of cached.kubernetesSecrets ?? []) {
      const hashes = r.credentialHash.length > 0 && s.credentialHash === r.credentialHash;
      const coords = s.uid === r.uid && s.namespace === r.namespace && s.name === r.name;
      if (hashes) {
        const w = coords
          ? { record: node.record, written: false }
          : writeRecord(node, name, { kubernetesSecrets: [s] });
        return allowed(
          'credentialRecordFound',
          `${why}: secret ${s.name} has the credential hash recorded for secret ${r.name}${coords ? '' : ` (its coordinates are added to the record)`}`,
          { ...node, record: w.record },
          w.written,
        );
      }
      if (coords) {
        const w = writeRecord(node, name, { kubernetesSecrets: [s] });
        return allowed(
          'credentialRecordFound',
          `${why}: secret ${s.name} is the recorded secret (its new hash is recorded)`,
          { ...node, record: w.record },
          w.written,
        );
      }
    }
  }
  if (
    podSa &&
    (cached.kubernetesServiceAccounts ?? []).some(
      (r) => r.uid === podSa.uid && r.namespace === podSa.namespace && r.name === podSa.name,
    )
  ) {
    return allowed('credentialRecordFound', `${why}: service account ${podSa.name} is recorded`);
  }
  const offered = [...podSecrets.map((s) => `secret ${s.name}`), ...(podSa ? [`service account ${podSa.name}`] : [])];
  return requiring(
    offered.length
      ? `${why}, and ${offered.join(', ')} ${offered.length === 1 ? 'is' : 'are'} not recorded`
      : `${why}, and the pod offers no secret or service-account credential`,
  );
}

/** The mustpull_checks_total increments of a set of EnsureImageExists calls. */
export function mustPullCounts(ps: EnsurePrediction[]): Record<MustPullResult, number> {
  const out = Object.fromEntries(MUST_PULL_RESULTS.map((r) => [r, 0])) as Record<MustPullResult, number>;
  for (const p of ps) if (p.check) out[p.check] += 1;
  return out;
}

// ---- kubelet restart and pruning -------------------------------------------------

export interface RestartCase {
  kubeletMinor: number;
  /** apiVersions of the record files on disk. */
  recordVersions: string[];
  /** Intents on disk, and whether the CRI has their image. */
  intents: Array<{ image: string; imagePresent: boolean }>;
}

export interface RestartPrediction {
  /** Record files rewritten at startup (older apiVersion). */
  rewritten: number;
  /** Intents turned into records (image present) and removed. */
  intentsConverted: number;
  /** Record files deleted at startup. */
  recordsDeleted: number;
  /** The ondisk gauges right after startup, before any pull. */
  gauges: { pulledRecords: number | 'files on disk'; pullIntents: number | 'files on disk' };
  because: string;
}

/** NewFSPullRecordsAccessor (recordsVersionMigration) + PullManager.initialize at kubelet startup. */
export function afterRestart(c: RestartCase): RestartPrediction {
  const current = recordApiVersion(c.kubeletMinor);
  const rewritten = c.recordVersions.filter((v) => v !== current).length;
  const converted = c.intents.filter((i) => i.imagePresent).length;
  const writes = rewritten + converted > 0;
  return {
    rewritten,
    intentsConverted: converted,
    recordsDeleted: 0,
    gauges: writes
      ? { pulledRecords: 'files on disk', pullIntents: 'files on disk' }
      : { pulledRecords: 0, pullIntents: 0 },
    because: `records in ${current} are read, not rewritten (${rewritten} older ones migrated); ${converted} intent(s) of present images become records; nothing is pruned at startup; the ondisk gauges are set only when a file is written or deleted${writes ? '' : ', so they read 0 until the next pull'}`,
  };
}

export interface PruneCase {
  /** KubeletConfiguration values (defaults 85 and 0s). */
  imageGCHighThresholdPercent?: number;
  imageMaximumGCAge?: string;
}

export interface PrunePrediction {
  /** The record of an image removed behind the kubelet's back, after waiting / after a kubelet restart. */
  afterWait: 'kept' | 'pruned';
  afterRestart: 'kept' | 'pruned';
  /** What does prune it. */
  prunedBy: string;
  because: string;
}

export function pruneOnRemoval(c: PruneCase): PrunePrediction {
  const high = c.imageGCHighThresholdPercent ?? 85;
  const maxAge = c.imageMaximumGCAge ?? '0s';
  const gcDisabled = high === 100 && !/[1-9]/.test(maxAge);
  const prunedBy = `PruneUnknownRecords, a post-image-GC hook: it runs only after image GC found disk usage at or above imageGCHighThresholdPercent (${high}), or after the eviction manager's DeleteUnusedImages under disk pressure`;
  return {
    afterWait: 'kept',
    afterRestart: 'kept',
    prunedBy,
    because: `${prunedBy}${gcDisabled ? '; with imageGCHighThresholdPercent 100 and imageMaximumGCAge 0 image GC does not even start' : ''}; startup only migrates records and converts intents, so removing an image (ctr/crictl) leaves its record until such a GC`,
  };
}
