// The field bugs, as data and predictions (no I/O): images with familiar
// Docker Hub names (`espi-<id>-xns:v1`, i.e. docker.io/library/…), served by
// the lab registry as docker.io.
//
// - The cross-namespace story of k/k #137024: pod A pulls with the secret its
//   namespace's default ServiceAccount lists in imagePullSecrets; pod A2 (same
//   namespace) reuses it without a pull; pod B in another namespace, without
//   credentials, must pull and fail; pod A3 names the image in full
//   (docker.io/library/…) with Never. Which ref the record is keyed by
//   (#135369/#136498/#136558) and which image name keys its credentialMapping
//   (#137629) are read from the record file.
// - The allowlist with familiar names (#137629): preloaded images, pods with
//   Never and no credentials under NeverVerifyAllowlistedImages, one allowlist
//   entry each, in the form the row's kubelet validates and matches.
import {
  allowlistEntryValid,
  ensureImageExists,
  type EnsurePrediction,
  type Kep2535Kubelet,
  type PodCredentials,
} from '../../src/model/ensure-secret-pulled.ts';
import { CONTAINERD_PULL_REF, recordKeys, type ImageIds, type RecordKeys } from '../../src/model/pull-record-keys.ts';
import { imageVariant, type BuiltImage, type Prediction } from '../../src/run/kit.ts';
import { MODEL } from './plan.ts';

export const HUB_HOST = 'docker.io';
const TAG = 'v1';

export interface HubImage {
  /** As the pod names it. */
  ref: string;
  /** Repository in the lab registry (library/…), and the full name containerd stores. */
  repo: string;
  full: string;
  image: BuiltImage;
}

export type AllowKey = 'familiar-entry' | 'normalised-entry' | 'full-image' | 'full-untagged';
export interface AllowCell {
  key: AllowKey;
  /** The allowlist entry this cell's image is meant to match. */
  entry: string;
  hub: HubImage;
}

export interface HubPlan {
  /** Familiar-name prefix of this run's images: espi-<id>. */
  root: string;
  cross: HubImage;
  allow: AllowCell[];
}

function hubImage(base: BuiltImage, root: string, suffix: string, ref: 'familiar' | 'full' | 'untagged'): HubImage {
  const name = `${root}-${suffix}`;
  const repo = `library/${name}`;
  const tag = ref === 'untagged' ? 'latest' : TAG;
  return {
    ref: ref === 'familiar' ? `${name}:${TAG}` : ref === 'full' ? `${HUB_HOST}/${repo}:${TAG}` : `${HUB_HOST}/${repo}`,
    repo,
    full: `${HUB_HOST}/${repo}:${tag}`,
    // The run's root in the marker: an image ID of its own.
    image: imageVariant(base, `credprov ${root} hub ${suffix}`, repo, tag),
  };
}

export function hubPlan(root: string, base: BuiltImage): HubPlan {
  const normalised = (h: HubImage) => `${HUB_HOST}/${h.repo}`;
  const short = hubImage(base, root, 'als', 'familiar');
  const norm = hubImage(base, root, 'aln', 'familiar');
  const full = hubImage(base, root, 'alf', 'full');
  const untagged = hubImage(base, root, 'alu', 'untagged');
  return {
    root,
    cross: hubImage(base, root, 'xns', 'familiar'),
    allow: [
      { key: 'familiar-entry', entry: `${root}-als`, hub: short },
      { key: 'normalised-entry', entry: normalised(norm), hub: norm },
      { key: 'full-image', entry: normalised(full), hub: full },
      { key: 'full-untagged', entry: normalised(untagged), hub: untagged },
    ],
  };
}

/** The entries the kubelet of this row accepts (a refused one would keep it from starting), in plan order. */
export function hubAllowlist(plan: HubPlan, kubelet: Kep2535Kubelet): string[] {
  return plan.allow.map((c) => c.entry).filter((e) => allowlistEntryValid(e, kubelet.kep2535ImageNames));
}

export type EntryValidation = Record<string, 'accepted' | 'refused'>;

export function predictEntryValidation(plan: HubPlan, kubelet: Kep2535Kubelet): EntryValidation {
  return Object.fromEntries(
    plan.allow.map((c) => [c.entry, allowlistEntryValid(c.entry, kubelet.kep2535ImageNames) ? 'accepted' : 'refused']),
  );
}

/** Each allowlist cell's pod: its preloaded image, Never, no credentials, under NeverVerifyAllowlistedImages. */
export function predictAllowCells(
  plan: HubPlan,
  kubelet: Kep2535Kubelet,
  allowlist: string[],
  pod: PodCredentials,
): Map<AllowKey, EnsurePrediction> {
  return new Map(
    plan.allow.map((c) => [
      c.key,
      ensureImageExists({
        kubelet,
        policy: 'NeverVerifyAllowlistedImages',
        allowlist,
        image: c.hub.ref,
        pullPolicy: 'Never',
        node: { present: true, imageRef: c.hub.image.config.digest },
        pod,
      }),
    ]),
  );
}

/** The cross-namespace image's two refs a record could be keyed by. */
export const crossIds = (plan: HubPlan): ImageIds => ({
  id: plan.cross.image.config.digest,
  repoDigest: `${HUB_HOST}/${plan.cross.repo}@${plan.cross.image.manifest.digest}`,
});

export interface CrossNamespacePods {
  /** Namespace A's default ServiceAccount lists the secret; so does each of its pods. */
  a: PodCredentials;
  /** Namespace B: nothing. */
  b: PodCredentials;
}

export interface CrossPrediction {
  keys: RecordKeys;
  /** Pod A: first pull through the SA's imagePullSecrets. */
  podA: EnsurePrediction;
  /** Pod A2: namespace A again, IfNotPresent. */
  podA2: EnsurePrediction;
  /** Pod B: namespace B, no credentials, IfNotPresent. */
  podB: EnsurePrediction;
  /** Pod A3: namespace A, the image named in full (docker.io/library/…), Never. */
  podA3: EnsurePrediction;
}

/** The #137024 story under the default policy (the kubelet's field left unset). */
export function predictCross(plan: HubPlan, kubelet: Kep2535Kubelet, pods: CrossNamespacePods): CrossPrediction {
  const img = plan.cross;
  const keys = recordKeys(kubelet, CONTAINERD_PULL_REF, crossIds(plan));
  const podA = ensureImageExists({
    kubelet,
    image: img.ref,
    pullPolicy: 'IfNotPresent',
    node: { present: false, imageRef: keys.writtenUnder },
    pod: pods.a,
  });
  // What the next pods' lookups find: the record only when it is keyed by what they look up.
  const node = {
    present: true,
    imageRef: keys.lookedUpUnder,
    ...(keys.found && podA.node.record ? { record: podA.node.record } : {}),
  };
  const next = (image: string, pullPolicy: 'IfNotPresent' | 'Never', pod: PodCredentials) =>
    ensureImageExists({ kubelet, image, pullPolicy, node, pod });
  return {
    keys,
    podA,
    podA2: next(img.ref, 'IfNotPresent', pods.a),
    podB: next(img.ref, 'IfNotPresent', pods.b),
    podA3: next(img.full, 'Never', pods.a),
  };
}

// ---- what the checks compare ---------------------------------------------------------

/** Which of the image's refs the record file is named after (sha256 of it), as the checks show it. */
export type KeyedBy = 'image ID (config digest)' | 'repo digest' | 'no record';
export const keyedByOf = (written: string | undefined, ids: ImageIds): KeyedBy =>
  written === undefined ? 'no record' : written === ids.id ? 'image ID (config digest)' : 'repo digest';

export interface CrossView {
  podA: string;
  podB: string;
}
export interface RefView {
  recordKeyedBy: KeyedBy;
  sameSecretPod: string;
}
export interface NamesView {
  credentialMappingKeys: string[];
  fullNameNever: string;
}
export interface AllowView {
  validation: EntryValidation;
  pods: Partial<Record<AllowKey, string>>;
}

export function predictCrossViews(
  plan: HubPlan,
  p: CrossPrediction,
  view: (x: EnsurePrediction) => string,
): { cross: Prediction<CrossView>; ref: Prediction<RefView>; names: Prediction<NamesView> } {
  const model = MODEL;
  return {
    cross: {
      value: { podA: view(p.podA), podB: view(p.podB) },
      model,
      because: `pod A: ${p.podA.because}; pod B: ${p.podB.because}`,
    },
    ref: {
      value: {
        recordKeyedBy: keyedByOf(p.podA.recordWritten ? p.keys.writtenUnder : undefined, crossIds(plan)),
        sameSecretPod: view(p.podA2),
      },
      model,
      because: `${p.keys.because}; pod A2: ${p.podA2.because}`,
    },
    names: {
      value: {
        credentialMappingKeys: Object.keys(p.podA.node.record?.credentialMapping ?? {}),
        fullNameNever: view(p.podA3),
      },
      model,
      because: `pod A's pull is recorded under its image name as the kubelet names it; pod A3 (${plan.cross.full}, Never): ${p.podA3.because}`,
    },
  };
}

export function predictAllow(
  plan: HubPlan,
  validation: EntryValidation,
  cells: Map<AllowKey, EnsurePrediction>,
  view: (x: EnsurePrediction) => string,
): Prediction<AllowView> {
  return {
    value: { validation, pods: Object.fromEntries([...cells].map(([k, x]) => [k, view(x)])) },
    model: MODEL,
    because: plan.allow
      .map((c) => `${c.key} (${c.hub.ref} ↔ ${c.entry}, ${validation[c.entry]}): ${cells.get(c.key)!.because}`)
      .join('; '),
  };
}
