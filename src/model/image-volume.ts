// credprov's model of an image volume's pull (`volumes[].image`, KEP-4639) as
// far as credentials go, read in k8s.io/kubernetes v1.35.4, v1.36.5 and
// v1.37.1 (the same code in each):
// - kuberuntime_manager.go getImageVolumes (v1.37.1:2034-2073) calls the image
//   manager's EnsureImageExists for every image volume, with the pod, the
//   pod's pull secrets, its sandbox config and the volume's pullPolicy: the
//   very call a container image gets (kuberuntime_container.go:215). So
//   matching providers exec for the volume's image, a KEP-4412 provider gets a
//   token for the pod's own spec.serviceAccountName (the sandbox metadata
//   gives namespace/name/UID), KEP-2535 writes an intent and a pulled record
//   keyed by the volume's reference, and a second pod's volume goes through
//   MustAttemptImagePull like a container would: the ensure-secret-pulled
//   model answers all of it (./ensure-secret-pulled.ts).
// - The differences are where it shows: the pull events name the pod (no
//   fieldPath: GetReference(pod)), a failure is reported on every container
//   mounting the volume (FailedToCreateContainer "Error: …" event), and the
//   containers wait with the pull's error (ErrImagePull, ErrImageNeverPull).
// - pullPolicy defaults as a container's does (pkg/apis/core/v1/defaults.go:72):
//   Always for `:latest` or no tag, IfNotPresent otherwise.
// - The gate: the version table's imageVolume (on by default from 1.35).
// - How often: through 1.36 SyncPod calls getImageVolumes on every sync of
//   the pod (imageVolume.lookupEverySync; k/k #138644, fixed by #138655 in
//   1.37.0), so a pod whose volume is present gets a lookup, and a provider
//   exec, per sync: at least one, more as the pod worker syncs it again
//   (timing). From 1.37 only a sync that starts a container looks it up.
import { parseImageReference } from '../matching/image.ts';
import type { KubeBehaviour } from '../versions/table.ts';
import { ensureImageExists, type EnsureCase, type EnsurePrediction } from './ensure-secret-pulled.ts';

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/** SetDefaults_Volume for an image volume: Always when the tag is `latest` (or neither tag nor digest), else IfNotPresent. */
export function defaultVolumePullPolicy(reference: string): PullPolicy {
  const p = parseImageReference(reference);
  if ('error' in p) throw new Error(`invalid image volume reference ${JSON.stringify(reference)}: ${p.error}`);
  // parsers.ParseImageName: no tag and no digest reads as tag latest.
  return p.tag === 'latest' || (p.tag === undefined && p.digest === undefined) ? 'Always' : 'IfNotPresent';
}

export interface ImageVolumeCase extends Omit<EnsureCase, 'image' | 'pullPolicy' | 'kubelet'> {
  /** The kubelet's version-table row (the gate and KEP-2535's fields). */
  kubelet: Pick<
    KubeBehaviour,
    'imageVolume' | 'kep2535ImageNames' | 'serviceAccountPullRecords' | 'pulledRecordLookup' | 'pullRecordApiVersion'
  >;
  /** volumes[].image.reference */
  reference: string;
  /** volumes[].image.pullPolicy; undefined: defaulted. */
  pullPolicy?: PullPolicy;
  /** The ImageVolume gate if the environment sets it; default the table's. */
  gateEnabled?: boolean;
}

export interface ImageVolumePrediction {
  /** The kubelet pulls the volume at all (the gate). */
  gate: boolean;
  pullPolicy: PullPolicy;
  /** The same prediction a container image gets (providers exec'd, record, event, outcome). */
  ensure?: EnsurePrediction;
  /** The object the pull events are about: the pod itself, never a container. */
  eventsOn: 'pod';
  /**
   * When the pull fails: the event each container mounting the volume gets (reason Failed, on
   * spec.containers{<name>}): `Error: <the pull's error>` (toKubeContainerImageVolumes, v1.37.1:2016-2020).
   */
  containerEvent?: { reason: 'Failed'; message: string };
  /** A KEP-4412 provider's token is for this service account: the pod's own. */
  tokenFor?: { namespace: string; name: string };
  /**
   * Lookups per pod: `once` (the sync that starts its container), or `at-least-once` (every sync of the
   * pod looks the volume up again, so providers exec ensure.providersInvoked once per sync: ≥ 1 time).
   */
  lookups: 'once' | 'at-least-once';
  because: string;
}

export function imageVolumePull(c: ImageVolumeCase): ImageVolumePrediction {
  const gate = c.gateEnabled ?? c.kubelet.imageVolume.enabledByDefault;
  const pullPolicy = c.pullPolicy ?? defaultVolumePullPolicy(c.reference);
  if (!gate)
    return {
      gate,
      pullPolicy,
      eventsOn: 'pod',
      lookups: 'once',
      because: 'the ImageVolume gate is off: the API server drops volumes[].image and the kubelet pulls nothing for it',
    };
  const ensure = ensureImageExists({ ...c, kubelet: c.kubelet, image: c.reference, pullPolicy });
  const everySync = c.kubelet.imageVolume.lookupEverySync;
  const saMode = ensure.providersInvoked.length > 0 && (c.pod.providers ?? []).some((p) => p.serviceAccountMode);
  const tokenFor =
    saMode && c.pod.serviceAccount ? { namespace: c.pod.namespace, name: c.pod.serviceAccount.name } : undefined;
  return {
    gate,
    pullPolicy,
    ensure,
    eventsOn: 'pod',
    ...(tokenFor ? { tokenFor } : {}),
    lookups: everySync ? 'at-least-once' : 'once',
    ...(ensure.outcome !== 'Running'
      ? { containerEvent: { reason: 'Failed' as const, message: `Error: ${ensure.outcome}` } }
      : {}),
    because: `getImageVolumes calls EnsureImageExists as for a container (pull policy ${pullPolicy}${c.pullPolicy ? '' : ', defaulted'}): ${ensure.because}${tokenFor ? `; the token is for the pod's service account ${tokenFor.namespace}/${tokenFor.name}` : ''}${everySync && ensure.lookedUp ? '; and again on every sync of the pod (kubelet ≤ 1.36, k/k #138644): at least once' : ''}`,
  };
}
