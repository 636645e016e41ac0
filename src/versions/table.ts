// Behaviour that differs between Kubernetes versions lives here, and only here.
// Suites and validators ask `behaviourFor(version)`; none of them compare
// version numbers themselves. Sources: shared/reference/kubelet-credential-providers.md
// (§1, §2.3, §5.1, §6, §8) unless a row says otherwise.
import { ConfigError } from '../core/errors.ts';

export interface KubeBehaviour {
  minor: number;
  /** Providers are invoked in config order from 1.33; sorted by name before (k/k PR #129669). */
  providerOrder: 'name' | 'config';
  /** Feature gate defaults on the kubelet (and, for the node audience restriction, the API server). */
  gateDefaults: {
    KubeletServiceAccountTokenForCredentialProviders: boolean | 'absent';
    KubeletEnsureSecretPulledImages: boolean | 'absent';
    ServiceAccountNodeAudienceRestriction: boolean;
  };
  /** tokenAttributes exists in the v1 CredentialProviderConfig type. */
  tokenAttributesField: boolean;
  /** tokenAttributes.cacheType exists and is required. */
  cacheTypeRequired: boolean;
  /** --image-credential-provider-config may name a directory. */
  configDirectory: boolean;
  /** The kubelet rejects a response whose password equals the SA token unless cacheType is Token. */
  rejectsTokenAsPassword: boolean;
  /** Name of the plugin error counter on /metrics. */
  pluginErrorsMetric: string;
  /** failCgroupV1 default; on this repo's cgroup v1 hosts it must be set false from 1.35. */
  failCgroupV1Default: boolean;
  /** Lowest containerd minor releases that support this kubelet (containerd RELEASES.md). */
  containerdSupported: string[];
  /** The kubelet flag --pod-infra-container-image still exists. */
  podInfraContainerImageFlag: boolean;
  /**
   * The etcd image tag kubeadm of this minor runs (registry.k8s.io/etcd:<tag>), read from
   * SupportedEtcdVersion in cmd/kubeadm/app/constants/constants.go of the patch credprov builds
   * (v1.34.5, v1.35.4, v1.36.5, v1.37.1; 1.33 from v1.34.5's table). Patch releases move it, so a
   * node image checks it against `kubeadm config images list`.
   */
  etcdImageTag: string;
}

const ROWS: KubeBehaviour[] = [
  row(33, {
    gateDefaults: {
      KubeletServiceAccountTokenForCredentialProviders: false,
      KubeletEnsureSecretPulledImages: false,
      ServiceAccountNodeAudienceRestriction: true,
    },
    cacheTypeRequired: false,
    configDirectory: false,
    rejectsTokenAsPassword: false,
    pluginErrorsMetric: 'kubelet_credential_provider_plugin_errors',
    failCgroupV1Default: false,
    containerdSupported: ['2.1.0', '2.0.4', '1.7.24', '1.6.36'],
    podInfraContainerImageFlag: true,
    etcdImageTag: '3.5.24-0',
  }),
  row(34, {
    gateDefaults: {
      KubeletServiceAccountTokenForCredentialProviders: true,
      KubeletEnsureSecretPulledImages: false,
      ServiceAccountNodeAudienceRestriction: true,
    },
    failCgroupV1Default: false,
    containerdSupported: ['2.1.3', '2.0.6', '1.7.28', '1.6.39'],
    podInfraContainerImageFlag: true,
    etcdImageTag: '3.6.5-0',
  }),
  row(35, { containerdSupported: ['2.2.0', '2.1.5', '1.7.28'], etcdImageTag: '3.6.6-0' }),
  row(36, { containerdSupported: ['2.3.0', '2.2.0'], etcdImageTag: '3.6.8-0' }),
  // 1.37 is not yet in containerd's matrix; 2.2/2.3 are what upstream CI uses.
  // kubeadm v1.37.1's etcd table stops at 36 and falls back to its newest entry.
  row(37, { containerdSupported: ['2.3.0', '2.2.0'], etcdImageTag: '3.7.0-0' }),
];

function row(minor: number, o: Partial<KubeBehaviour> & Pick<KubeBehaviour, 'etcdImageTag'>): KubeBehaviour {
  return {
    minor,
    providerOrder: 'config',
    gateDefaults: {
      KubeletServiceAccountTokenForCredentialProviders: true,
      KubeletEnsureSecretPulledImages: true,
      ServiceAccountNodeAudienceRestriction: true,
    },
    tokenAttributesField: true,
    cacheTypeRequired: true,
    configDirectory: true,
    rejectsTokenAsPassword: true,
    pluginErrorsMetric: 'kubelet_credential_provider_plugin_errors_total',
    failCgroupV1Default: true,
    containerdSupported: [],
    podInfraContainerImageFlag: false,
    ...o,
  };
}

/**
 * The release credprov tests when none is named: the newest patch whose
 * source the Go module proxy serves (v1.37.2's zip is refused with 403).
 * The one place to bump it.
 */
export const DEFAULT_KUBE_VERSION = 'v1.37.1';

/**
 * The older kubelet the harness's own restart test runs under the default API
 * server: one minor back. The test command builds only its kubelet.
 */
export const SKEW_KUBELET_VERSION = `1.${parseKubeVersion(DEFAULT_KUBE_VERSION).minor - 1}`;

export const SUPPORTED_MINORS = ROWS.map((r) => r.minor);
export const NEWEST_MINOR = Math.max(...SUPPORTED_MINORS);
export const OLDEST_MINOR = Math.min(...SUPPORTED_MINORS);

export interface KubeVersion {
  major: 1;
  minor: number;
  patch?: number;
  /** As the user wrote it, normalised with a leading v: v1.37.1, v1.36. */
  text: string;
}

/** Accepts 1.37, v1.37, 1.37.1, v1.37.1, 1.37.x. */
export function parseKubeVersion(text: string, field = '--kube-version'): KubeVersion {
  const m = /^v?1\.(\d+)(?:\.(\d+|x))?(?:[-+].*)?$/.exec(text.trim());
  if (!m)
    throw new ConfigError(`${field}: '${text}' is not a Kubernetes version`, {
      hint: 'write it as 1.37, v1.37 or v1.37.1',
    });
  const minor = Number(m[1]);
  const patch = m[2] === undefined || m[2] === 'x' ? undefined : Number(m[2]);
  return {
    major: 1,
    minor,
    ...(patch === undefined ? {} : { patch }),
    text: `v1.${minor}${patch === undefined ? '' : `.${patch}`}`,
  };
}

export function behaviourFor(version: KubeVersion | string): KubeBehaviour {
  const v = typeof version === 'string' ? parseKubeVersion(version) : version;
  const r = ROWS.find((x) => x.minor === v.minor);
  if (!r) {
    throw new ConfigError(
      `Kubernetes ${v.text} is outside the versions credprov models (1.${OLDEST_MINOR} to 1.${NEWEST_MINOR})`,
      {
        hint: `pick a version from 1.${OLDEST_MINOR} to 1.${NEWEST_MINOR}; the table lives in src/versions/table.ts`,
      },
    );
  }
  return r;
}

export function newestBehaviour(): KubeBehaviour {
  return behaviourFor(`1.${NEWEST_MINOR}`);
}
