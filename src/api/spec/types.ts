// The one environment spec: what a suite needs from a cluster. Users write it
// as YAML (credprov up --spec FILE), suites build it in code; both go through
// applyDefaults() and validateSpec() before a provider sees it. Providers only
// ever receive a defaulted, validated spec and never read env or files.

export type ProviderName = 'local' | 'kind' | 'existing';

export interface EnvironmentSpec {
  /** Names the environment's state dir (stateDir()/env/<name>) so several can coexist. */
  name: string;
  /** `auto` asks each provider's isAvailable() in order: local, kind. */
  provider: ProviderName | 'auto';
  /** Exact Kubernetes version for kubelet and kube-apiserver (v1.37.1). */
  kubeVersion: string;
  /** A directory holding kubelet, kube-apiserver, kubectl; otherwise the binaries resolver picks them. */
  binDir?: string;
  featureGates: {
    kubelet: Record<string, boolean>;
    apiserver: Record<string, boolean>;
  };
  kubelet: KubeletSpec;
  apiserver: ApiServerSpec;
  credentialProvider?: CredentialProviderSpec;
  /** Only for provider `existing`. */
  existing?: { kubeconfig: string };
  /** Only for provider `kind`. */
  kindCluster?: KindClusterSpec;
  timeouts: {
    /** Go duration: how long the node may take to become Ready. */
    nodeReady: string;
  };
}

export interface KindClusterSpec {
  /** Worker nodes beside the control plane (0–3); suites' pods run on the control plane, node A of two-node checks. */
  workers: number;
  /** A node image to use as it is (e.g. kindest/node:v1.37.0@sha256:…); default credprov/kind-node:<kubeVersion>, built offline. */
  nodeImage?: string;
}

export interface KubeletSpec {
  /** The node's name (--hostname-override) and its client cert's CN system:node:<name>. */
  nodeName: string;
  /**
   * The kubelet's own version when it differs from kubeVersion (version skew:
   * up to 3 minors older, never newer). Only its kubelet is built or fetched.
   */
  version?: string;
  /**
   * Merged over the harness's KubeletConfiguration (kubelet.config.k8s.io/v1beta1):
   * e.g. { imagePullCredentialsVerificationPolicy: AlwaysVerify }.
   */
  config: Record<string, unknown>;
  /** Extra kubelet flags (--v=4). Flags the harness sets itself are rejected. */
  extraArgs: string[];
}

export interface ApiServerSpec {
  /** kubeconfig-format file for --authentication-token-webhook-config-file (401 suites). */
  tokenWebhookConfigFile?: string;
  /** AuthenticationConfiguration file (apiserver.config.k8s.io/v1) for --authentication-config: JWT authenticators. */
  authenticationConfigFile?: string;
  extraArgs: string[];
}

export interface CredentialProviderSpec {
  /** An inline CredentialProviderConfig object, or … */
  config?: Record<string, unknown>;
  /** … a file (or, from 1.34, a directory) handed to --image-credential-provider-config as is. */
  configFile?: string;
  /** Plugin name (as in providers[].name) → executable to install into the kubelet's plugin bin dir. */
  plugins: Record<string, string>;
}
