// A node's images over a sequence of pods, for KEP-2535 cases where names
// share an image ID (k/k #138175): containerd keeps one image per name, and
// several names may resolve to one image ID (the config digest), while the
// kubelet keeps ONE pulled record per image ID (fs_pullrecords.go, keyed by
// imageRef) whose credentialMapping is keyed by name. So a pull of name Y
// writes a record that a preloaded name X, sharing Y's digest, then finds:
// X counts as "pulled by the kubelet" (image_pull_manager.go
// MustAttemptImagePull: a record for the imageRef), NeverVerifyPreloadedImages
// verifies it, and the record has no mapping for X: a Never pod of X fails
// with ErrImageNeverPull, an IfNotPresent pod of X must pull. Each step is
// ensureImageExists (./ensure-secret-pulled.ts) on the state this model
// keeps. The fix under review (k/k #139156, an ImagePreloadedRecord;
// enhancements#6267) is in no release read (version table
// preloadedImageRecords), so a row that had it is refused until modelled.
import { normalizeImage } from '../matching/image.ts';
import {
  NEWEST_KUBELET,
  ensureImageExists,
  type EnsureCase,
  type EnsurePrediction,
  type Kep2535Kubelet,
  type PulledRecord,
} from './ensure-secret-pulled.ts';
import type { KubeBehaviour } from '../versions/table.ts';

/** The name containerd keeps an image under: the normalised repository with its tag (or digest). */
export function storedName(image: string): string {
  const n = normalizeImage(image);
  return n.digest && !n.tag ? `${n.repository}@${n.digest}` : `${n.repository}:${n.tag ?? 'latest'}`;
}

export interface NodeStep extends Omit<EnsureCase, 'node' | 'kubelet'> {
  /** The image ID the registry's manifest for `image` has (containerd's config digest): what a pull would store. */
  imageRef: string;
}

export interface NodeStepPrediction extends EnsurePrediction {
  /** The image ID the step used: the present name's, or the pulled one's. */
  imageRef: string;
}

export class NodeImagesModel {
  private readonly names = new Map<string, string>();
  private readonly records = new Map<string, PulledRecord>();
  private readonly kubelet: Kep2535Kubelet;

  constructor(kubelet: Kep2535Kubelet & Partial<Pick<KubeBehaviour, 'preloadedImageRecords'>> = NEWEST_KUBELET) {
    if (kubelet.preloadedImageRecords)
      throw new Error(
        'this kubelet records preloaded images (k/k #139156): NodeImagesModel does not model ImagePreloadedRecord yet',
      );
    this.kubelet = kubelet;
  }

  /** An image loaded behind the kubelet's back (ctr import, a node image): present, no record. */
  preload(image: string, imageRef: string): void {
    this.names.set(storedName(image), imageRef);
  }

  /** The kubelet's pulled record for an image ID, if any. */
  recordOf(imageRef: string): PulledRecord | undefined {
    return this.records.get(imageRef);
  }

  /** One container (or image volume) of a pod: the kubelet's EnsureImageExists on the node as it is now. */
  run(step: NodeStep): NodeStepPrediction {
    const present = this.names.get(storedName(step.image));
    const imageRef = present ?? step.imageRef;
    const record = this.records.get(imageRef);
    const p = ensureImageExists({
      ...step,
      kubelet: this.kubelet,
      node: { present: present !== undefined, imageRef, ...(record ? { record } : {}) },
    });
    if (p.pull && p.outcome === 'Running') this.names.set(storedName(step.image), imageRef);
    if (p.node.record) this.records.set(imageRef, p.node.record);
    const shared = [...this.names].filter(([n, r]) => r === imageRef && n !== storedName(step.image)).map(([n]) => n);
    return {
      ...p,
      imageRef,
      because: shared.length ? `${p.because} (image ID ${imageRef} is shared with ${shared.join(', ')})` : p.because,
    };
  }
}
