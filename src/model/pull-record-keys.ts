// Which imageRef a KEP-2535 pulled record is written under, and which one
// the kubelet looks it up by. The kubelet writes the record under what the
// runtime's PullImage returned and looks it up by GetImageRef; when the two
// differ the record is never found and the image looks preloaded: under the
// default policy any pod may then use it (k/k #135369 → #136549/#136498,
// taken back by #136558; what #137024 reports on CRI-O). Which lookup each
// kubelet minor uses is the version table's `pulledRecordLookup`.
import type { Kep2535Kubelet } from './ensure-secret-pulled.ts';

/**
 * What a CRI's PullImage returns as image_ref. containerd 2.3.7: the image ID, the config digest
 * (internal/cri/server/images/image_pull.go:200 `imageID := configDesc.Digest.String()`, returned
 * by PullImage at :120; ImageStatus answers the same ID, image_status.go toCRIImage `Id: image.ID`); CRI-O
 * before cri-o#9728 (1.35 backport #9826) and cri-dockerd before Mirantis/cri-dockerd#549: a repo
 * digest. The kubelet writes a pulled record under it.
 */
export type CriPullRef = 'image-id' | 'repo-digest';
/** containerd, the only runtime credprov runs (2.3.7). */
export const CONTAINERD_PULL_REF: CriPullRef = 'image-id';

export interface ImageIds {
  /** The CRI image ID: the config digest. */
  id: string;
  /** RepoDigests[0]: repo@<manifest digest>. */
  repoDigest: string;
}

export interface RecordKeys {
  /** The imageRef the record of a pull is written under (its file is sha256 of it). */
  writtenUnder: string;
  /** The imageRef MustAttemptImagePull looks a record up by. */
  lookedUpUnder: string;
  /** The lookup finds the record the pull wrote. */
  found: boolean;
  because: string;
}

export function recordKeys(kubelet: Kep2535Kubelet, pullRef: CriPullRef, ids: ImageIds): RecordKeys {
  const of = (r: CriPullRef) => (r === 'image-id' ? ids.id : ids.repoDigest);
  const writtenUnder = of(pullRef);
  const lookedUpUnder = of(kubelet.pulledRecordLookup);
  const found = writtenUnder === lookedUpUnder;
  const name = (r: CriPullRef) => (r === 'image-id' ? 'the image ID (config digest)' : 'the repo digest');
  return {
    writtenUnder,
    lookedUpUnder,
    found,
    because: `the runtime's PullImage returns ${name(pullRef)}, the record is written under it; GetImageRef looks it up by ${name(kubelet.pulledRecordLookup)}${found ? '' : ': never found, so the image looks preloaded'}`,
  };
}
