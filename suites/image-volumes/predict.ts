// What the kubelet does with each pod's image volume, from credprov's models:
// the service-account token model says whether the SA-mode provider is exec'd
// for the pod's ServiceAccount at all (its required annotation), and the
// image-volume model (over the ensure-secret-pulled model) says whether the
// kubelet looks credentials up, pulls, writes the record, and how the pod
// ends. The node's state threads from pod to pod. Pure: UIDs come in.
import { imageVolumePull } from '../../src/model/image-volume.ts';
import type { NodeImage, PodProvider } from '../../src/model/ensure-secret-pulled.ts';
import { ServiceAccountTokenModel } from '../../src/model/service-account-token.ts';
import { behaviourFor } from '../../src/versions/table.ts';
import type { Prediction } from '../../src/run/kit.ts';
import { PROVIDER, STORY, tokenAttributes, type StoryPod } from './plan.ts';

export interface VolumeSeen {
  /** The pod's container ran (terminated 0), or the waiting reason the volume's pull left it with. */
  outcome: 'Running' | 'ErrImagePull' | 'ErrImageNeverPull';
  /** The provider's execs for the volume's repository while the pod started. */
  execs: number;
  /** Predicted only: `execs` is a floor (a kubelet that looks the volume up on every sync: version table imageVolume.lookupEverySync). */
  atLeast?: true;
}

/** The observation agrees with the prediction: the same outcome, and the execs exactly, or at least the floor. */
export const seenAgrees = (p: VolumeSeen, o: VolumeSeen): boolean =>
  p.outcome === o.outcome && (p.atLeast ? o.execs >= p.execs : o.execs === p.execs);

export interface StoryInput {
  kubeletVersion: string;
  namespace: string;
  /** The lab registry's host and the volume's reference on it. */
  host: string;
  volumeRef: string;
  audience: string;
  uids: Record<string, string>;
}

export interface PodStep {
  pod: StoryPod;
  seen: Prediction<VolumeSeen>;
  /** IV-SA-TOKEN: the `sub` of the token the provider gets (first pod). */
  tokenSub?: string;
  /** IV-RECORD: the record's credentialMapping entry for the volume's repository after this pod. */
  mapping?: unknown;
  /** IV-EVENTS-ON-POD (a failing pull): where its events show. */
  events?: VolumeEvents;
}

/** Where a failed volume pull shows: the pull events' object, and the container `main`'s Error event. */
export interface VolumeEvents {
  pullEventsOn: 'pod' | 'a container' | 'nowhere';
  container: string;
}

export const MODEL = 'image volumes (src/model/image-volume.ts imageVolumePull) over service-account-token.ts';

export function predictStory(i: StoryInput): PodStep[] {
  const row = behaviourFor(i.kubeletVersion);
  const attrs = tokenAttributes(i.audience);
  const sa = new ServiceAccountTokenModel({
    provider: { name: PROVIDER, defaultCacheDurationMs: 0, tokenAttributes: attrs },
    behaviour: row,
    grants: [{ audience: i.audience }],
  });
  const repository = i.volumeRef.replace(/:[^:/]+$/, '');
  let node: NodeImage = { present: false, imageRef: 'sha256:volume' };
  return STORY.map((pod, n) => {
    const account = {
      name: pod.serviceAccount.name,
      uid: i.uids[pod.serviceAccount.name]!,
      annotations: pod.serviceAccount.annotations,
    };
    const token = sa.pull(
      { namespace: i.namespace, name: pod.name, uid: `pod-${n}`, serviceAccount: account },
      i.volumeRef,
      { cacheKeyType: 'Image', cacheDurationMs: 0, password: 'static', registryAccepts: true },
      n,
    );
    const provider: PodProvider = {
      name: PROVIDER,
      matchImages: [i.host],
      auths: { [i.host]: { username: 'lab', password: 'lab', works: true } },
      serviceAccountMode: true,
      requireServiceAccount: true,
    };
    const p = imageVolumePull({
      kubelet: row,
      reference: i.volumeRef,
      ...(pod.volumePolicy ? { pullPolicy: pod.volumePolicy } : {}),
      node,
      pod: {
        namespace: i.namespace,
        serviceAccount: { name: account.name, uid: account.uid },
        secrets: [],
        providers: token.invoked ? [provider] : [],
      },
    });
    const ensure = p.ensure!;
    node = ensure.node;
    const execs = ensure.providersInvoked.length;
    return {
      pod,
      seen: {
        value: {
          outcome: ensure.outcome,
          execs,
          ...(p.lookups === 'at-least-once' && execs > 0 ? { atLeast: true } : {}),
        },
        model: MODEL,
        because: `${pod.name}: ${token.invoked ? '' : `the provider is not exec'd for ${account.name} (${token.because}); `}${p.because}`,
      },
      ...(execs > 0 && p.tokenFor
        ? { tokenSub: `system:serviceaccount:${p.tokenFor.namespace}:${p.tokenFor.name}` }
        : {}),
      ...(ensure.node.record ? { mapping: ensure.node.record.credentialMapping[repository] } : {}),
      ...(p.containerEvent
        ? { events: { pullEventsOn: p.eventsOn, container: `${p.containerEvent.reason}: ${p.containerEvent.message}` } }
        : {}),
    };
  });
}
