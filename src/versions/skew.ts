// The Kubernetes version skew policy as it applies to a node: the kubelet may
// be up to three minor versions older than kube-apiserver, never newer
// (kubernetes.io/releases/version-skew-policy, from 1.28). credprov refuses
// any other pairing before it starts anything.
import { DEFAULT_KUBE_VERSION, parseKubeVersion, SUPPORTED_MINORS } from './table.ts';

export const MAX_KUBELET_MINORS_BEHIND = 3;

export const SKEW_RULE = `a kubelet may be up to ${MAX_KUBELET_MINORS_BEHIND} minor versions older than kube-apiserver, never newer (Kubernetes version skew policy)`;

/**
 * Every older kubelet the version-skew suite asks about under the default API
 * server, newest first, within the skew policy and the version table; the
 * test command builds their kubelets alone.
 */
export const SKEW_KUBELET_VERSIONS = Array.from(
  { length: MAX_KUBELET_MINORS_BEHIND },
  (_, i) => parseKubeVersion(DEFAULT_KUBE_VERSION).minor - 1 - i,
)
  .filter((m) => SUPPORTED_MINORS.includes(m))
  .map((m) => `1.${m}`);

/** Why this pairing is unsupported, in one line; undefined when it is supported. */
export function skewProblem(apiserver: string, kubelet: string): string | undefined {
  const a = parseKubeVersion(apiserver, 'kubeVersion');
  const k = parseKubeVersion(kubelet, 'kubelet.version');
  const behind = a.minor - k.minor;
  if (behind < 0) return `kubelet ${k.text} is newer than kube-apiserver ${a.text}: ${SKEW_RULE}`;
  if (behind > MAX_KUBELET_MINORS_BEHIND)
    return `kubelet ${k.text} is ${behind} minor versions older than kube-apiserver ${a.text}: ${SKEW_RULE}`;
  return undefined;
}
